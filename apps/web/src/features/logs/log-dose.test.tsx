import { getFloorMap, getFloorMapMetadata, getFloors, getJobReportCsv, getJobReportPdf, getLog, getLogDose, listLogs, LogDose, LogEntry } from '@uvd/contracts';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FakeNetwork } from '../../testing/fake-network.ts';
import { fakeIdentity, storeSession } from '../../testing/fixtures.ts';
import { renderApp } from '../../testing/render-app.tsx';
import { DOSE_COLOURS, doseRuns, doseScaleOf } from './components/dose-scale.ts';

const LOG = '3a9f3a52-51d4-4e0c-9d0f-2a6c7d8e9f11';
const ROOM_1 = '5c9f3a52-51d4-4e0c-9d0f-2a6c7d8e9f21';
const ROOM_2 = '6d9f3a52-51d4-4e0c-9d0f-2a6c7d8e9f22';
const BUILDING = '8f9f3a52-51d4-4e0c-9d0f-2a6c7d8e9f31';
const GROUND = '9a9f3a52-51d4-4e0c-9d0f-2a6c7d8e9f41';
const FIRST = 'aa9f3a52-51d4-4e0c-9d0f-2a6c7d8e9f42';
const PLAN_SVG = '<svg xmlns="http://www.w3.org/2000/svg" width="400" height="300"/>';
/** Ground floor first, then the lift to the first floor. */
const PATH = [
  { t: 0, x: 0, y: 0, floor_id: GROUND },
  { t: 5, x: 1, y: 0.5, floor_id: GROUND },
  { t: 60, x: 4, y: 3, floor_id: FIRST },
  { t: 65, x: 5, y: 3, floor_id: FIRST },
];

const entry = LogEntry.parse({
  job_id: LOG,
  job_name: 'Ward 3A / morning',
  completion_status: 'interrupted',
  robot_name: 'Alpha',
  robot_id: null,
  created_by: 'olivia',
  starttime: '2026-11-20T08:30:00+00:00',
  endtime: '2026-11-20T09:05:00+00:00',
  notes: '',
  has_trajectory: true,
  attributes: {
    rooms: [
      // The log's own figures for the first room; the second has none, so the dose map's are shown.
      { order: 0, room_id: ROOM_1, room_name: 'Room 101', dose: 20, state: 'done', dose_received: 20, dose_stats: { min: 21.04, p10: 24, mean: 35.55, coverage: 1 } },
      { order: 1, room_id: ROOM_2, room_name: 'Room 201', dose: 20, state: 'aborted', dose_received: 8, dose_stats: null },
    ],
    prompts: [],
  },
  events: [
    { at: '2026-11-20T08:30:00+00:00', kind: 'started', actor: null, order_no: null, room_id: null, room_name: null, dose: null, cause: 'scheduler' },
    { at: '2026-11-20T08:40:00+00:00', kind: 'paused', actor: 'olivia', order_no: 1, room_id: ROOM_2, room_name: 'Room 201', dose: 6.25, cause: 'operator' },
    { at: '2026-11-20T08:41:00+00:00', kind: 'resumed', actor: null, order_no: 1, room_id: ROOM_2, room_name: 'Room 201', dose: 6.25, cause: 'robot' },
    { at: '2026-11-20T08:42:00+00:00', kind: 'prompt_asked', actor: null, order_no: 1, room_id: ROOM_2, room_name: 'Room 201', dose: 6.25, cause: 'wait_to_enter' },
    { at: '2026-11-20T08:43:00+00:00', kind: 'prompt_answered', actor: 'olivia', order_no: 1, room_id: ROOM_2, room_name: 'Room 201', dose: 6.25, cause: 'skip' },
    { at: '2026-11-20T08:44:00+00:00', kind: 'room_skipped', actor: 'olivia', order_no: 1, room_id: ROOM_2, room_name: 'Room 201', dose: 8, cause: 'skip' },
    { at: '2026-11-20T08:45:00+00:00', kind: 'fault', actor: null, order_no: null, room_id: null, room_name: null, dose: null, cause: 'uvd_link_lost' },
    { at: '2026-11-20T08:46:00+00:00', kind: 'stopped', actor: null, order_no: null, room_id: null, room_name: null, dose: null, cause: 'lidar_dirty' },
  ],
});

/** Two rooms, one per floor; 1 m cells so the pixels are easy to follow at 0.05 m/px (20 px per cell). */
const dose = LogDose.parse({
  job_id: LOG,
  lamp: { uvc_power_w: 60, height_m: 1, length_m: 1, radial_profile: [1] },
  lamp_intervals: [],
  rooms: [
    {
      order: 0,
      room_id: ROOM_1,
      room_name: 'Room 101',
      floor_id: GROUND,
      polygon: [{ x: 0, y: 0 }, { x: 3, y: 0 }, { x: 3, y: 2 }, { x: 0, y: 2 }],
      dose: 20,
      stats: { min: 21.04, p10: 24, mean: 35.55, coverage: 1 },
      // Scale: 0–40 J/m² in 8 classes of 5. Row 0: 21, 22 (class 4, merged), 38 (class 7); row 1: null, 100 (class 7), 0 (class 0).
      grid: { origin: { x: 0, y: 0 }, cell_m: 1, columns: 3, rows: 2, values: [21, 22, 38, null, 100, 0] },
    },
    {
      order: 1,
      room_id: ROOM_2,
      room_name: 'Room 201',
      floor_id: FIRST,
      polygon: [{ x: 4, y: 2 }, { x: 6, y: 2 }, { x: 6, y: 4 }, { x: 4, y: 4 }],
      dose: 20,
      stats: { min: 2, p10: 3.5, mean: 8.04, coverage: 0.125 },
      grid: { origin: { x: 4, y: 2 }, cell_m: 1, columns: 2, rows: 2, values: [2, 3, 9, 18] },
    },
  ],
});

const signedIn = () => {
  storeSession();
  return fakeIdentity(new FakeNetwork())
    .on(listLogs, { status: 200, body: { count: 1, payload: [entry] } })
    .on(getLog, (request) => ({
      status: 200,
      body: request.url.searchParams.get('extra_navigation_data') === 'true' ? { ...entry, trajectory: PATH } : entry,
    }))
    .on(getLogDose, { status: 200, body: dose })
    .on(getFloors, {
      status: 200,
      body: { data: [{ floor_id: GROUND, floor_name: 'Ground', building_id: BUILDING, level: 0 }, { floor_id: FIRST, floor_name: 'First', building_id: BUILDING, level: 1 }] },
    })
    .on(getFloorMap, { status: 200, body: PLAN_SVG })
    .on(getFloorMapMetadata, (request) => ({
      status: 200,
      body: { floor_id: request.url.searchParams.get('floor_id') ?? GROUND, resolution: 0.05, origin: { x: 0, y: 0 }, width: 400, height: 300, rooms: [] },
    }));
};

const openDetail = async (network: FakeNetwork, language: 'en' | 'fi' = 'en') => {
  const view = await renderApp({ path: '/logs', network, language });
  // The first render loads the screen's chunks: on a loaded machine that takes longer than a click's reply.
  const toggle = await screen.findByRole(
    'button',
    { name: language === 'en' ? 'Show log details: Ward 3A / morning' : 'Näytä lokin tiedot: Ward 3A / morning' },
    { timeout: 15_000 },
  );
  await userEvent.click(toggle);
  return { ...view, detail: await screen.findByTestId('log-detail') };
};

const cellTexts = (row: HTMLElement) => Array.from(row.querySelectorAll('td'), (cell) => cell.textContent);

/** What was handed to the browser as a download: the file and its name. */
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

describe('the dose scale', () => {
  it('puts the planned dose in the middle of 8 viridis classes and merges equal neighbours of a row', () => {
    const scale = doseScaleOf(dose);
    expect(scale).toEqual({ top: 40, step: 5, planned: [20] });
    const grid = dose.rooms[0]?.grid;
    if (!grid) throw new Error('no grid');
    expect(doseRuns(grid, scale)).toEqual([
      { x: 0, y: 0, width: 2, height: 1, colour: DOSE_COLOURS[4] },
      { x: 2, y: 0, width: 1, height: 1, colour: DOSE_COLOURS[7] },
      { x: 1, y: 1, width: 1, height: 1, colour: DOSE_COLOURS[7] },
      { x: 2, y: 1, width: 1, height: 1, colour: DOSE_COLOURS[0] },
    ]);
  });
});

describe('log detail: the dose map', () => {
  it('draws each floor its own map with the rooms’ dose and the path, beside the room results with the model’s figures', async () => {
    const network = signedIn();
    const { detail } = await openDetail(network);
    // The results: the log's own figures, the dose map's for the room the log has none for; J/m² and mJ/cm².
    const rows = within(detail).getAllByTestId('logged-room');
    expect(rows.map(cellTexts)).toEqual([
      ['1', 'Room 101', 'Disinfected', '20 of 20', '21 J/m²2.1 mJ/cm²', '24 J/m²2.4 mJ/cm²', '35.6 J/m²3.56 mJ/cm²', '100%'],
      ['2', 'Room 201', 'Not disinfected (Aborted)', '8 of 20', '2 J/m²0.2 mJ/cm²', '3.5 J/m²0.35 mJ/cm²', '8 J/m²0.8 mJ/cm²', '13%'],
    ]);
    expect(within(detail).getByRole('columnheader', { name: '10th percentile' })).toBeInTheDocument();
    expect(within(detail).getByRole('region', { name: 'Rooms' })).toHaveAttribute('tabindex', '0');

    // One map per floor, in the order the job reached them, each with its rooms' cells and its part of the path.
    const floors = await within(detail).findAllByTestId('dose-floor');
    await waitFor(() => {
      expect(floors.map((floor) => within(floor).getByRole('heading').textContent)).toEqual(['Dose map of Ground', 'Dose map of First']);
    });
    const [ground, first] = floors;
    if (!ground || !first) throw new Error('two floors expected');
    await within(ground).findByTestId('log-dose-map');
    await within(first).findByTestId('log-dose-map');
    const groundCells = within(ground).getAllByTestId('dose-cell');
    // Row 0 (y 0–1 m) is the plan's bottom row of the room: pixels 280–300; the 21 and 22 J/m² cells are one run.
    expect(groundCells.map((cell) => [cell.getAttribute('x'), cell.getAttribute('y'), cell.getAttribute('width'), cell.getAttribute('fill')])).toEqual([
      ['0', '280', '40', DOSE_COLOURS[4]],
      ['40', '280', '20', DOSE_COLOURS[7]],
      ['20', '260', '20', DOSE_COLOURS[7]],
      ['40', '260', '20', DOSE_COLOURS[0]],
    ]);
    // 2 and 3 J/m² share the lowest class: one run.
    expect(within(first).getAllByTestId('dose-cell')).toHaveLength(3);
    expect(within(ground).getByTestId('trajectory')).toHaveAttribute('points', '0,300 20,290');
    expect(within(first).getByTestId('trajectory')).toHaveAttribute('points', '80,240 100,240');
    // The drawing is for the eye; the overlay names what it shows and where the figures are.
    expect(within(ground).getByRole('group', { name: 'Dose received on Ground: Room 101. The figures are in the room results table.' })).toBeInTheDocument();

    // The legend: 8 classes with both units, the planned dose the middle.
    const legend = within(detail).getByTestId('dose-legend');
    const classes = within(legend).getAllByRole('listitem').map((item) => item.textContent);
    expect(classes).toHaveLength(8);
    expect(classes[0]).toBe('0–5 J/m² · 0–0.5 mJ/cm²');
    expect(classes[7]).toBe('≥ 35 J/m² · ≥ 3.5 mJ/cm²');
    expect(within(detail).getByText(/Planned dose: 20 J\/m² \(2 mJ\/cm²\)/)).toBeInTheDocument();
    // The dose map replaces the trajectory map: the path is drawn on it.
    expect(within(detail).queryByTestId('log-trajectory-map')).toBeNull();
  });

  it('shows the results without a map, and why, for a log without a dose map (404); its path still shows', async () => {
    const network = signedIn().on(getLogDose, { status: 404, body: { error: 'not_found', message: 'This log has no dose map' } });
    const { detail } = await openDetail(network);
    expect(await within(detail).findByTestId('no-dose-map')).toHaveTextContent('No dose map: the dose was not computed for this log');
    expect(within(detail).getAllByTestId('logged-room').map(cellTexts)[1]).toEqual(['2', 'Room 201', 'Not disinfected (Aborted)', '8 of 20', '–not computed', '–not computed', '–not computed', '–not computed']);
    expect(within(detail).queryByTestId('log-dose')).toBeNull();
    expect(await within(detail).findByTestId('log-trajectory-map')).toBeInTheDocument();
    expect(within(detail).queryByRole('alert')).toBeNull();
  });

  it('says so when the dose map fails, and keeps the results', async () => {
    const network = signedIn().on(getLogDose, { status: 500, body: { error: 'internal', message: 'boom' } });
    const { detail } = await openDetail(network);
    expect(await within(detail).findByRole('alert')).toHaveTextContent('The dose map could not be loaded.');
    expect(within(detail).getAllByTestId('logged-room')).toHaveLength(2);
  });
});

describe('log detail: interruptions', () => {
  it('lists the start, pauses, prompts, skips, stops and faults with cause, who and the dose by then, translated', async () => {
    const { detail } = await openDetail(signedIn());
    const events = within(detail).getAllByTestId('logged-event').map((item) => Array.from(item.children, (line) => line.textContent));
    expect(events).toEqual([
      ['Job: started by the system, 20.11.2026 10:30 AM', 'Cause: the planned start time'],
      ['Room 201: paused by olivia, 20.11.2026 10:40 AM', "Cause: an operator's command", 'dose received by then: 6.3 J/m²'],
      ['Room 201: resumed by the robot, 20.11.2026 10:41 AM', "Cause: the robot's own decision", 'dose received by then: 6.3 J/m²'],
      ['Room 201: the robot asked “Confirm the room is empty to enter”, 20.11.2026 10:42 AM', 'dose received by then: 6.3 J/m²'],
      ['Room 201: Skipped by olivia, 20.11.2026 10:43 AM', 'dose received by then: 6.3 J/m²'],
      ['Room 201: skipped by olivia, 20.11.2026 10:44 AM', 'Cause: Skipped', 'dose received by then: 8 J/m²'],
      ['Job: robot fault “link to the server lost”, 20.11.2026 10:45 AM'],
      // An error type the console does not know is shown as the robot sent it.
      ['Job: stopped by the system, 20.11.2026 10:46 AM', 'Cause: lidar_dirty'],
    ]);
  });

  it('words them in Finnish', async () => {
    const { detail } = await openDetail(signedIn(), 'fi');
    const first = within(detail).getAllByTestId('logged-event')[1];
    expect(first?.textContent).toContain('Room 201: keskeytetty tauolle, olivia');
    expect(first?.textContent).toContain('Syy: käyttäjän komento');
  });
});

describe('log detail: the job report', () => {
  it('downloads the PDF and the CSV with the bearer token, named after the job and its day', async () => {
    const network = signedIn()
      .on(getJobReportPdf, { status: 200, body: '%PDF-1.7 report', headers: { 'content-type': 'application/pdf' } })
      .on(getJobReportCsv, { status: 200, body: 'order,room\n1,Room 101\n', headers: { 'content-type': 'text/csv' } });
    const { detail } = await openDetail(network);
    await userEvent.click(within(detail).getByRole('button', { name: 'Download report (PDF)' }));
    await waitFor(() => {
      expect(downloads).toHaveLength(1);
    });
    expect(downloads[0]?.name).toBe('disinfection-report-Ward-3A-morning-2026-11-20.pdf');
    expect(await downloads[0]?.file.text()).toBe('%PDF-1.7 report');
    const call = network.callsTo(getJobReportPdf)[0];
    expect(call?.url.pathname).toBe(`/api/reports/job/${LOG}/pdf`);
    expect(call?.headers.get('authorization')).toMatch(/^Bearer /);
    await userEvent.click(within(detail).getByRole('button', { name: 'Download report (CSV)' }));
    await waitFor(() => {
      expect(downloads).toHaveLength(2);
    });
    expect(downloads[1]?.name).toBe('disinfection-report-Ward-3A-morning-2026-11-20.csv');
    expect(await downloads[1]?.file.text()).toBe('order,room\n1,Room 101\n');
  });

  it('says when the report could not be downloaded', async () => {
    const network = signedIn().on(getJobReportPdf, { status: 500, body: { error: 'internal', message: 'boom' } });
    const { detail } = await openDetail(network);
    await userEvent.click(within(detail).getByRole('button', { name: 'Download report (PDF)' }));
    expect(await within(detail).findByText('The report could not be downloaded. Try again.')).toBeInTheDocument();
    expect(downloads).toEqual([]);
  });
});
