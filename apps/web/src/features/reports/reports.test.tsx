import { getBuildings, getFloors, getPeriodReport, getPeriodReportCsv, getPeriodReportPdf, listGroups, PeriodSummary } from '@uvd/contracts';
import type { Role } from '@uvd/contracts';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FakeNetwork } from '../../testing/fake-network.ts';
import type { RecordedRequest } from '../../testing/fake-network.ts';
import { fakeIdentity, storeSession } from '../../testing/fixtures.ts';
import { renderApp } from '../../testing/render-app.tsx';
import { presetPeriod } from './components/period.ts';

const BUILDING_A = '8f9f3a52-51d4-4e0c-9d0f-2a6c7d8e9f31';
const BUILDING_B = '8f9f3a52-51d4-4e0c-9d0f-2a6c7d8e9f32';
const FLOOR = '9a9f3a52-51d4-4e0c-9d0f-2a6c7d8e9f41';
const WARD_A = 'ba9f3a52-51d4-4e0c-9d0f-2a6c7d8e9f51';

/** Today in the session user's timezone (Europe/Helsinki), as the screen reckons its presets. */
const today = new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/Helsinki' }).format(new Date());

const summaryOf = (query: URLSearchParams): PeriodSummary =>
  PeriodSummary.parse({
    from_date: query.get('from_date'),
    to_date: query.get('to_date'),
    scope: query.get('scope') ?? 'organization',
    scope_id: query.get('scope_id'),
    scope_name: query.get('scope') === 'group' ? 'Ward A' : 'Demo Hospital',
    jobs: 12,
    total: { rooms_planned: 40, rooms_fully_dosed: 34, rate: 0.85 },
    by_building: [
      { building_id: BUILDING_A, building_name: 'Building A', rooms_planned: 30, rooms_fully_dosed: 27, rate: 0.9 },
      { building_id: BUILDING_B, building_name: 'Building B', rooms_planned: 10, rooms_fully_dosed: 7, rate: 0.7 },
    ],
    by_week: [
      { week: '2026-W47', rooms_planned: 25, rooms_fully_dosed: 20, rate: 0.8 },
      { week: '2026-W48', rooms_planned: 15, rooms_fully_dosed: 14, rate: 0.9333 },
    ],
  });

const signedIn = (roles: Role[] = ['done-teleoperator']) => {
  storeSession();
  return fakeIdentity(new FakeNetwork(), roles)
    .on(getPeriodReport, (request) => ({ status: 200, body: summaryOf(request.url.searchParams) }))
    .on(getBuildings, { status: 200, body: { data: [{ building_id: BUILDING_A, building_name: 'Building A' }, { building_id: BUILDING_B, building_name: 'Building B' }] } })
    .on(getFloors, { status: 200, body: { data: [{ floor_id: FLOOR, floor_name: 'Floor 1', building_id: BUILDING_A, level: 1 }] } })
    .on(listGroups, { status: 200, body: [{ id: WARD_A, name: 'Ward A' }] });
};

const lastQuery = (calls: RecordedRequest[]): Record<string, string> => {
  const last = calls[calls.length - 1];
  if (!last) throw new Error('not called');
  return Object.fromEntries(last.url.searchParams);
};

const openReports = async (network: FakeNetwork, language: 'en' | 'fi' = 'en') => {
  const view = await renderApp({ path: '/reports', network, language });
  // The first render loads the screen's chunks: on a loaded machine that takes a while.
  await screen.findByRole('heading', { level: 1, name: language === 'en' ? 'Reports' : 'Raportit' }, { timeout: 15_000 });
  return view;
};

const downloads: { name: string; file: Blob }[] = [];
let lastBlob: Blob | null = null;
beforeEach(() => {
  downloads.length = 0;
  vi.stubGlobal(
    'URL',
    Object.assign(class extends URL {}, {
      createObjectURL: (file: Blob) => {
        lastBlob = file;
        return 'blob:file';
      },
      revokeObjectURL: () => undefined,
    }),
  );
  vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
    if (this.download && lastBlob) downloads.push({ name: this.download, file: lastBlob });
  });
});
afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

describe('the Reports screen', () => {
  it('is in the navigation of a teleoperator and shows this month’s figures of the organization', async () => {
    const network = signedIn();
    await openReports(network);
    expect(screen.getByRole('link', { name: 'Reports' })).toHaveAttribute('href', '/reports');
    const summary = await screen.findByTestId('period-summary');
    expect(lastQuery(network.callsTo(getPeriodReport))).toEqual({ from_date: `${today.slice(0, 8)}01`, to_date: today, scope: 'organization' });
    expect(screen.getByRole('button', { name: 'This month' })).toHaveAttribute('aria-pressed', 'true');
    const total = within(summary).getByTestId('report-total');
    expect(Array.from(total.querySelectorAll('dt, dd'), (cell) => cell.textContent)).toEqual([
      'Jobs', '12', 'Rooms planned', '40', 'Rooms fully dosed', '34', 'Compliance', '85%',
    ]);
    const buildings = within(summary).getByRole('table', { name: 'Compliance per building' });
    expect(within(buildings).getAllByRole('row').slice(1).map((row) => row.textContent)).toEqual(['Building A302790%', 'Building B10770%']);
    const weeks = within(summary).getByRole('table', { name: 'Compliance per week (trend)' });
    expect(within(weeks).getByRole('rowheader', { name: '2026-W48' })).toBeInTheDocument();
    expect(within(weeks).getAllByRole('row')[2]).toHaveTextContent('93%');
  });

  it('reads last month, and a group of the teleoperator’s own', async () => {
    const network = signedIn();
    await openReports(network);
    await screen.findByTestId('period-summary');
    await userEvent.click(screen.getByRole('button', { name: 'Last month' }));
    const last = presetPeriod('lastMonth', today);
    await waitFor(() => {
      expect(lastQuery(network.callsTo(getPeriodReport))).toEqual({ ...last, scope: 'organization' });
    });
    await userEvent.selectOptions(screen.getByLabelText('Scope'), 'group');
    const group = await screen.findByLabelText('Group');
    await waitFor(() => {
      expect(within(group).getByRole('option', { name: 'Ward A' })).toBeInTheDocument();
    });
    await userEvent.selectOptions(group, WARD_A);
    await waitFor(() => {
      expect(lastQuery(network.callsTo(getPeriodReport))).toEqual({ ...last, scope: 'group', scope_id: WARD_A });
    });
    expect(await screen.findByRole('heading', { name: /^Ward A, / })).toBeInTheDocument();
  });

  it('chooses a floor through its building', async () => {
    const network = signedIn(['done-admin']);
    await openReports(network);
    await userEvent.selectOptions(screen.getByLabelText('Scope'), 'floor');
    expect(screen.getByLabelText('Floor')).toBeDisabled();
    await userEvent.selectOptions(await screen.findByLabelText('Building'), BUILDING_A);
    const floor = screen.getByLabelText('Floor');
    await waitFor(() => {
      expect(within(floor).getByRole('option', { name: 'Floor 1' })).toBeInTheDocument();
    });
    await userEvent.selectOptions(floor, FLOOR);
    await waitFor(() => {
      expect(lastQuery(network.callsTo(getPeriodReport))).toMatchObject({ scope: 'floor', scope_id: FLOOR });
    });
  });

  it('asks for nothing while the period is wrong, and marks the field', async () => {
    const network = signedIn();
    await openReports(network);
    await screen.findByTestId('period-summary');
    const calls = network.callsTo(getPeriodReport).length;
    const from = screen.getByLabelText('From date');
    await userEvent.clear(from);
    await userEvent.type(from, '2099-01-01');
    expect(from).toHaveAttribute('aria-invalid', 'true');
    expect(screen.getByText('Check the From date.')).toBeInTheDocument();
    expect(screen.getByText(/Choose a valid period/)).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Download PDF' })).toBeDisabled();
    expect(network.callsTo(getPeriodReport)).toHaveLength(calls);
  });

  it('names the field a 400 refuses', async () => {
    const network = signedIn().on(getPeriodReport, {
      status: 400,
      body: { error: 'bad_request', message: 'A report covers at most 366 days', details: { issues: [{ field: 'to_date' }] } },
    });
    await openReports(network);
    expect(await screen.findByRole('alert')).toHaveTextContent('The server refused the report: check To date.');
    expect(screen.getByLabelText('To date')).toHaveAttribute('aria-invalid', 'true');
  });

  it('says when the figures fail to load', async () => {
    const network = signedIn().on(getPeriodReport, { status: 500, body: { error: 'internal', message: 'boom' } });
    await openReports(network);
    expect(await screen.findByRole('alert')).toHaveTextContent('The figures could not be loaded.');
  });

  it('downloads the PDF and the CSV of the period, named after its scope and days', async () => {
    const network = signedIn()
      .on(getPeriodReportPdf, { status: 200, body: '%PDF-1.7 period', headers: { 'content-type': 'application/pdf' } })
      .on(getPeriodReportCsv, { status: 200, body: 'room,state\n', headers: { 'content-type': 'text/csv' } });
    await openReports(network);
    await screen.findByTestId('period-summary');
    await userEvent.click(screen.getByRole('button', { name: 'Last month' }));
    const last = presetPeriod('lastMonth', today);
    await userEvent.click(screen.getByRole('button', { name: 'Download PDF' }));
    await waitFor(() => {
      expect(downloads).toHaveLength(1);
    });
    expect(downloads[0]?.name).toBe(`disinfection-report-Demo-Hospital-${last.from_date}-${last.to_date}.pdf`);
    expect(await downloads[0]?.file.text()).toBe('%PDF-1.7 period');
    const pdf = network.callsTo(getPeriodReportPdf)[0];
    expect(Object.fromEntries(pdf?.url.searchParams ?? [])).toEqual({ ...last, scope: 'organization' });
    expect(pdf?.headers.get('authorization')).toMatch(/^Bearer /);
    await userEvent.click(screen.getByRole('button', { name: 'Download CSV' }));
    await waitFor(() => {
      expect(downloads).toHaveLength(2);
    });
    expect(downloads[1]?.name).toBe(`disinfection-report-Demo-Hospital-${last.from_date}-${last.to_date}.csv`);
  });

  it('says when a download fails', async () => {
    const network = signedIn().on(getPeriodReportPdf, { status: 500, body: { error: 'internal', message: 'boom' } });
    await openReports(network);
    await screen.findByTestId('period-summary');
    await userEvent.click(screen.getByRole('button', { name: 'Download PDF' }));
    expect(await screen.findByTestId('report-download-status')).toHaveTextContent('The report could not be downloaded. Try again.');
  });

  it('is translated in Finnish', async () => {
    await openReports(signedIn(), 'fi');
    expect(await screen.findByRole('button', { name: 'Edellinen kuukausi' })).toBeInTheDocument();
    expect(await screen.findByRole('table', { name: 'Toteutuminen rakennuksittain' })).toBeInTheDocument();
  });
});

describe('report presets', () => {
  it('takes this month so far, and all of last month across a year', () => {
    expect(presetPeriod('thisMonth', '2026-11-26')).toEqual({ from_date: '2026-11-01', to_date: '2026-11-26' });
    expect(presetPeriod('lastMonth', '2026-11-26')).toEqual({ from_date: '2026-10-01', to_date: '2026-10-31' });
    expect(presetPeriod('lastMonth', '2027-01-05')).toEqual({ from_date: '2026-12-01', to_date: '2026-12-31' });
    expect(presetPeriod('lastMonth', '2028-03-01')).toEqual({ from_date: '2028-02-01', to_date: '2028-02-29' });
  });
});
