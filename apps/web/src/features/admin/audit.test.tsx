import { exportAudit, listAudit, verifyAudit } from '@uvd/contracts';
import type { AuditEntry, AuditList, AuditVerification } from '@uvd/contracts';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { FakeNetwork } from '../../testing/fake-network.ts';
import { fakeIdentity, storeSession } from '../../testing/fixtures.ts';
import { renderApp } from '../../testing/render-app.tsx';
import { fixtureId } from '../../testing/robot-fixtures.ts';

const entry = (seq: number, overrides: Partial<AuditEntry> = {}): AuditEntry => ({
  seq,
  at: '2026-11-20T10:15:30.000Z',
  source: 'api',
  actor: 'admin@demo.test',
  actor_id: fixtureId(1),
  ip: '10.0.0.7',
  request: 'POST /api/rooms/rooms/:roomId/ready',
  entity: 'room',
  entity_id: 'A1-106',
  operation: 'update',
  before: { name: 'A1-106', ready: true, notes: 'window' },
  after: { name: 'A1-106', ready: false, notes: 'window' },
  hash: 'a'.repeat(64),
  prev_hash: 'b'.repeat(64),
  ...overrides,
});

/** Newest first, as the server sends them: a room set not ready, a contact added by the server's import, a robot's report. */
const ENTRIES: AuditEntry[] = [
  entry(3),
  entry(2, {
    at: '2026-11-19T23:30:00.000Z',
    actor: null,
    actor_id: null,
    ip: null,
    request: null,
    source: 'system',
    entity: 'contact',
    entity_id: fixtureId(21),
    operation: 'insert',
    before: null,
    after: { name: 'Tom Tech', phone: '+358 40 123' },
  }),
  entry(1, { source: 'robot', actor: null, actor_id: null, request: null, entity: 'robot', entity_id: fixtureId(31), operation: 'delete', before: { name: 'UVD-9' }, after: null }),
];
const HOLDS: AuditVerification = { ok: true, checked: 3, broken_at: null, reason: null };

const admin = (list: AuditList = { count: ENTRIES.length, payload: ENTRIES }, verification: AuditVerification = HOLDS) => {
  storeSession();
  return fakeIdentity(new FakeNetwork(), ['done-admin'])
    .on(listAudit, { status: 200, body: list })
    .on(verifyAudit, { status: 200, body: verification });
};

const rows = () => screen.getAllByTestId('audit-row');
const cells = (row: HTMLElement) => [...row.querySelectorAll('td')].map((cell) => cell.textContent);

afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

describe('the audit trail tab (issue #24 item 5)', () => {
  it('is a tab of the admin dashboard, and lists the entries newest first with time in the user timezone, who, from where, call, what and the change', async () => {
    await renderApp({ path: '/admin#audit', network: admin() });
    expect(await screen.findByRole('tab', { name: 'Audit trail' })).toHaveAttribute('aria-selected', 'true');
    await screen.findAllByTestId('audit-row');
    expect(within(screen.getByRole('table')).getAllByRole('columnheader').map((header) => header.textContent)).toEqual([
      'Time',
      'Who',
      'From',
      'Call',
      'What',
      'Change',
      'Before and after',
    ]);
    // Europe/Helsinki is UTC+2 in November: 10:15:30 UTC is 12:15:30 PM there, and 23:30 UTC is already the next day.
    expect(cells(rows()[0] as HTMLElement).slice(0, 6)).toEqual([
      '20.11.2026 12:15:30 PM',
      'admin@demo.test',
      '10.0.0.7',
      'POST /api/rooms/rooms/:roomId/ready',
      'room A1-106',
      'Changed',
    ]);
    expect(cells(rows()[1] as HTMLElement).slice(0, 6)).toEqual([
      '20.11.2026 01:30:00 AM',
      'The server',
      '—Not known',
      '—No call (the server or a robot)',
      `contact ${fixtureId(21)}`,
      'Created',
    ]);
    expect(cells(rows()[2] as HTMLElement)[1]).toBe('A robot');
    expect(screen.getByText('Entries found: 3')).toBeInTheDocument();
    expect(screen.getByTestId('audit-chain')).toHaveTextContent('The audit chain holds. Entries checked: 3. None was changed or removed since it was written.');
  });

  it("opens an entry's before and after as the fields it changed, and closes it again", async () => {
    await renderApp({ path: '/admin#audit', network: admin() });
    await screen.findAllByTestId('audit-row');
    const show = screen.getByRole('button', { name: 'Show changes of entry 3' });
    expect(show).toHaveAttribute('aria-expanded', 'false');
    await userEvent.click(show);
    const hide = screen.getByRole('button', { name: 'Hide changes of entry 3' });
    expect(hide).toHaveAttribute('aria-expanded', 'true');
    const diff = screen.getByRole('table', { name: 'Changes of entry 3' });
    expect(hide).toHaveAttribute('aria-controls', diff.id);
    // Only `ready` changed: the unchanged name and notes would hide it.
    expect(within(diff).getAllByRole('row').map((row) => row.textContent)).toEqual(['FieldBeforeAfter', 'readytruefalse']);

    await userEvent.click(screen.getByRole('button', { name: 'Show changes of entry 2' }));
    const created = screen.getByRole('table', { name: 'Changes of entry 2' });
    expect(within(created).getAllByRole('row').map((row) => row.textContent)).toEqual(['FieldBeforeAfter', 'namenot setTom Tech', 'phonenot set+358 40 123']);

    await userEvent.click(hide);
    expect(screen.queryByRole('table', { name: 'Changes of entry 3' })).toBeNull();
  });

  it('searches by text, who, what and the user\u2019s days, from the first page', async () => {
    const network = admin({ count: 45, payload: ENTRIES });
    await renderApp({ path: '/admin#audit', network });
    await screen.findAllByTestId('audit-row');
    expect(network.callsTo(listAudit).at(-1)?.url.searchParams.get('offset')).toBe('0');
    await userEvent.click(screen.getByRole('button', { name: 'Next' }));
    await waitFor(() => {
      expect(network.callsTo(listAudit).at(-1)?.url.searchParams.get('offset')).toBe('20');
    });

    await userEvent.type(screen.getByLabelText('Search text'), 'A1-106');
    await userEvent.type(screen.getByLabelText('Who (username)'), 'admin');
    await userEvent.type(screen.getByLabelText('What (e.g. room, job, user)'), 'room');
    await userEvent.type(screen.getByLabelText('From'), '2026-11-01');
    await userEvent.type(screen.getByLabelText('To'), '2026-11-02');
    network.on(listAudit, { status: 200, body: { count: 0, payload: [] } });
    await userEvent.click(screen.getByRole('button', { name: 'Search' }));
    expect(await screen.findByTestId('audit-empty')).toHaveTextContent('No audit entry matches the search.');
    const search = network.callsTo(listAudit).at(-1)?.url.searchParams;
    expect(Object.fromEntries(search ?? [])).toEqual({
      q: 'A1-106',
      actor: 'admin',
      entity: 'room',
      // 1 November 00:00 and 2 November 23:59:59.999 in Helsinki (UTC+2).
      from_date: '2026-10-31T22:00:00.000Z',
      to_date: '2026-11-02T21:59:59.999Z',
      offset: '0',
      limit: '20',
    });
  });

  it('refuses a start date after the end date without searching', async () => {
    const network = admin();
    await renderApp({ path: '/admin#audit', network });
    await screen.findAllByTestId('audit-row');
    const calls = network.callsTo(listAudit).length;
    await userEvent.type(screen.getByLabelText('From'), '2026-11-05');
    await userEvent.type(screen.getByLabelText('To'), '2026-11-01');
    expect(screen.getByLabelText('From')).toHaveAttribute('aria-invalid', 'true');
    await userEvent.click(screen.getByRole('button', { name: 'Search' }));
    expect(screen.getByRole('alert')).toHaveTextContent('The start date must not be after the end date.');
    expect(network.callsTo(listAudit)).toHaveLength(calls);
  });

  it('says where the chain breaks and what that means', async () => {
    await renderApp({ path: '/admin#audit', network: admin(undefined, { ok: false, checked: 12, broken_at: 7, reason: 'hash_mismatch' }) });
    const chain = await screen.findByTestId('audit-chain');
    await waitFor(() => {
      expect(chain).toHaveTextContent('The audit chain is broken at entry 7.');
    });
    expect(chain).toHaveTextContent('Entry 7 is not what was written: it was changed afterwards.');
    expect(chain).toHaveTextContent('Entries from this one on cannot be trusted as a record.');
    expect(chain).toHaveAttribute('role', 'status');
  });

  it('says when the trail has no entries yet', async () => {
    await renderApp({ path: '/admin#audit', network: admin({ count: 0, payload: [] }) });
    expect(await screen.findByTestId('audit-empty')).toHaveTextContent('The audit trail has no entries yet.');
  });

  it('shows the skeleton while loading and an error when the trail cannot be read', async () => {
    let fail: (value: { status: number; body: unknown }) => void = () => undefined;
    const network = admin().on(listAudit, () => new Promise((resolve) => (fail = resolve)));
    await renderApp({ path: '/admin#audit', network });
    expect((await screen.findAllByTestId('skeleton-row')).length).toBeGreaterThan(0);
    fail({ status: 500, body: { error: 'internal', message: 'boom' } });
    expect(await screen.findByRole('alert')).toHaveTextContent('The audit trail could not be loaded.');
  });

  it('exports the filtered entries as NDJSON with the session token, and saves them as a file', async () => {
    const network = admin();
    const ndjson = `${JSON.stringify(ENTRIES[2])}\n${JSON.stringify(ENTRIES[0])}\n`;
    const exported: Request[] = [];
    const appFetch = network.fetch;
    // The export reads the reply as a file, beside the API client: the platform's fetch answers it here.
    vi.stubGlobal('fetch', async (input: RequestInfo | URL, init?: RequestInit) => {
      const request = new Request(input, init);
      if (!new URL(request.url).pathname.endsWith(exportAudit.path)) return appFetch(input, init);
      exported.push(request);
      return new Response(ndjson, { status: 200, headers: { 'content-type': 'application/x-ndjson' } });
    });
    const saved: Blob[] = [];
    const createObjectURL = vi.fn((blob: Blob) => {
      saved.push(blob);
      return 'blob:audit';
    });
    vi.stubGlobal('URL', Object.assign(class extends URL {}, { createObjectURL, revokeObjectURL: vi.fn() }));
    const clicked: HTMLAnchorElement[] = [];
    vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      clicked.push(this);
    });

    await renderApp({ path: '/admin#audit', network });
    await screen.findAllByTestId('audit-row');
    await userEvent.type(screen.getByLabelText('Who (username)'), 'admin');
    await userEvent.click(screen.getByRole('button', { name: 'Search' }));
    await userEvent.click(screen.getByRole('button', { name: 'Export (NDJSON)' }));
    expect(await screen.findByText('The audit export was downloaded')).toBeInTheDocument();

    const [request] = exported;
    expect(new URL(request?.url ?? '').searchParams.toString()).toBe('actor=admin');
    expect(request?.headers.get('authorization')).toMatch(/^Bearer access-/);
    expect(await saved[0]?.text()).toBe(ndjson);
    expect(clicked[0]?.download).toMatch(/^audit-\d{4}-\d{2}-\d{2}\.ndjson$/);
  });

  it('says so when the export fails', async () => {
    const network = admin();
    const appFetch = network.fetch;
    vi.stubGlobal('fetch', (input: RequestInfo | URL, init?: RequestInit) =>
      new URL(new Request(input, init).url).pathname.endsWith(exportAudit.path)
        ? Promise.resolve(new Response(JSON.stringify({ error: 'forbidden', message: 'no' }), { status: 403 }))
        : appFetch(input, init),
    );
    await renderApp({ path: '/admin#audit', network });
    await screen.findAllByTestId('audit-row');
    await userEvent.click(screen.getByRole('button', { name: 'Export (NDJSON)' }));
    expect(await screen.findByText('The audit export could not be downloaded')).toBeInTheDocument();
  });

  it('reads in Finnish', async () => {
    await renderApp({ path: '/admin#audit', network: admin(), language: 'fi' });
    expect(await screen.findByRole('tab', { name: 'Muutosloki' })).toHaveAttribute('aria-selected', 'true');
    await screen.findAllByTestId('audit-row');
    expect(cells(rows()[0] as HTMLElement)[5]).toBe('Muutettu');
    expect(screen.getByTestId('audit-chain')).toHaveTextContent('Muutoslokin ketju on eheä.');
  });
});
