import { getFloorMap, getFloorMapMetadata, getFloors, getLog, getRobots, listLogs, LogEntry, updateLogNotes } from '@uvd/contracts';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FakeNetwork } from '../../testing/fake-network.ts';
import type { RecordedRequest } from '../../testing/fake-network.ts';
import { fakeIdentity, storeSession } from '../../testing/fixtures.ts';
import { renderApp } from '../../testing/render-app.tsx';
import { robotFixture } from '../../testing/robot-fixtures.ts';
import { applyLimit, defaultStartDate, readFilters } from '../../lib/list-filters.ts';

const ALPHA = '0b8f3a52-51d4-4e0c-9d0f-2a6c7d8e9f01';
const BRAVO = '1c9f3a52-51d4-4e0c-9d0f-2a6c7d8e9f02';
const LOG_A = '3a9f3a52-51d4-4e0c-9d0f-2a6c7d8e9f11';
const LOG_B = '4b9f3a52-51d4-4e0c-9d0f-2a6c7d8e9f12';
const ROOM_1 = '5c9f3a52-51d4-4e0c-9d0f-2a6c7d8e9f21';
const ROOM_2 = '6d9f3a52-51d4-4e0c-9d0f-2a6c7d8e9f22';
const ROOM_3 = '7e9f3a52-51d4-4e0c-9d0f-2a6c7d8e9f23';
const BUILDING = '8f9f3a52-51d4-4e0c-9d0f-2a6c7d8e9f31';
const GROUND = '9a9f3a52-51d4-4e0c-9d0f-2a6c7d8e9f41';
const FIRST = 'aa9f3a52-51d4-4e0c-9d0f-2a6c7d8e9f42';
/** The path of the Morning round: two points on the ground floor, then the lift to the first floor. */
const PATH = [
  { t: 0, x: -1, y: -2, floor_id: GROUND },
  { t: 5, x: 1, y: 0.5, floor_id: GROUND },
  { t: 60, x: 4, y: 3, floor_id: FIRST },
  { t: 65, x: 5, y: 3, floor_id: FIRST },
];
const PLAN_SVG = '<svg xmlns="http://www.w3.org/2000/svg" width="400" height="300"/>';

const logFixture = (overrides: Partial<LogEntry> & Pick<LogEntry, 'job_id' | 'job_name'>): LogEntry =>
  LogEntry.parse({
    completion_status: 'completed',
    robot_name: 'Alpha',
    robot_id: ALPHA,
    created_by: 'olivia',
    starttime: '2026-11-20T08:30:00+00:00',
    endtime: '2026-11-20T09:05:00+00:00',
    notes: 'Ward cleaned',
    has_trajectory: false,
    attributes: { rooms: [], prompts: [] },
    events: [],
    ...overrides,
  });

const withRooms = logFixture({
  job_id: LOG_A,
  job_name: 'Morning round',
  completion_status: 'aborted',
  has_trajectory: true,
  attributes: {
    rooms: [
      { order: 1, room_id: ROOM_2, room_name: 'Room 102', dose: 30, state: 'not_ready', dose_received: null },
      { order: 0, room_id: ROOM_1, room_name: 'Room 101', dose: 20, state: 'done', dose_received: 20 },
      { order: 2, room_id: ROOM_3, room_name: 'Room 103', dose: 40, state: 'aborted', dose_received: 12.46 },
      { order: 3, room_id: '00000000-0000-4000-8000-000000000104', room_name: 'Room 104', dose: 40, state: 'not_reached', dose_received: null },
    ],
    prompts: [],
  },
});
const empty = logFixture({ job_id: LOG_B, job_name: 'Evening round', robot_id: BRAVO, robot_name: 'Bravo' });

const signedIn = (logs: LogEntry[] = [withRooms, empty], count = logs.length) => {
  storeSession();
  const network = fakeIdentity(new FakeNetwork())
    .on(listLogs, { status: 200, body: { count, payload: logs } })
    .on(getRobots, {
      status: 200,
      body: {
        count: 2,
        payload: [robotFixture({ robot_id: ALPHA, name: 'Alpha' }), robotFixture({ robot_id: BRAVO, name: 'Bravo' })],
      },
    });
  network.on(getLog, (request) => {
    const log = logs.find((candidate) => request.url.pathname.endsWith(candidate.job_id)) ?? logs[0];
    // As the server: the path only when asked for, and only a log with one has it.
    const withPath = request.url.searchParams.get('extra_navigation_data') === 'true' && log?.has_trajectory;
    return { status: 200, body: withPath ? { ...log, trajectory: PATH } : log };
  });
  network
    .on(getFloors, {
      status: 200,
      body: { data: [{ floor_id: GROUND, floor_name: 'Ground', building_id: BUILDING, level: 0 }, { floor_id: FIRST, floor_name: 'First', building_id: BUILDING, level: 1 }] },
    })
    .on(getFloorMap, { status: 200, body: PLAN_SVG })
    .on(getFloorMapMetadata, (request) => ({
      status: 200,
      body: { floor_id: request.url.searchParams.get('floor_id') ?? GROUND, resolution: 0.05, origin: { x: -1, y: -2 }, width: 400, height: 300, rooms: [] },
    }));
  return network;
};

const lastListQuery = (network: FakeNetwork): URLSearchParams => {
  const calls: RecordedRequest[] = network.callsTo(listLogs);
  const last = calls[calls.length - 1];
  if (!last) throw new Error('GET /log was not called');
  return last.url.searchParams;
};

const openLogs = async (network: FakeNetwork, path = '/logs') => {
  const view = await renderApp({ path, network });
  expect(await screen.findByRole('heading', { level: 1, name: 'Logs' })).toBeInTheDocument();
  await screen.findAllByTestId('log-row');
  return view;
};

const rowOf = (name: string) => {
  const row = screen.getAllByTestId('log-row').find((candidate) => within(candidate).queryByText(name) !== null);
  if (!row) throw new Error(`no row ${name}`);
  return row;
};

const expand = async (name: string) => {
  await userEvent.click(within(rowOf(name)).getByRole('button', { name: `Show log details: ${name}` }));
  return screen.findByTestId('log-detail');
};

describe('logs list filters (behaviour §2, same rules as the jobs list)', () => {
  it('asks for the last 7 days, offset 0 and limit 10 by default', async () => {
    const network = signedIn();
    const { router } = await openLogs(network);
    const query = lastListQuery(network);
    expect(query.get('from_date')).toBe(defaultStartDate());
    expect(query.get('to_date')).toBeNull();
    expect(query.get('offset')).toBe('0');
    expect(query.get('limit')).toBe('10');
    expect(query.getAll('robot_id')).toEqual([]);
    expect(router.location().search).toBe('');
  });

  it('sends the address filters to GET /log with robot_id repeated', async () => {
    const network = signedIn();
    await openLogs(network, `/logs?startDate=2026-11-01&endDate=2026-11-15&robot=${ALPHA},${BRAVO}&offset=20&limit=20`);
    const query = lastListQuery(network);
    expect(query.get('from_date')).toBe('2026-11-01');
    expect(query.get('to_date')).toBe('2026-11-15');
    expect(query.getAll('robot_id')).toEqual([ALPHA, BRAVO]);
    expect(query.get('offset')).toBe('20');
    expect(query.get('limit')).toBe('20');
  });

  it('changing dates or robots in the dialog resets the offset and removes it from the address', async () => {
    const network = signedIn();
    const { router } = await openLogs(network, '/logs?offset=20&limit=10');
    await userEvent.click(screen.getByRole('button', { name: 'Filter' }));
    const dialog = await screen.findByRole('dialog');
    await userEvent.click(await within(dialog).findByLabelText('Bravo'));
    const from = within(dialog).getByLabelText('From date');
    await userEvent.clear(from);
    await userEvent.type(from, '2026-11-02');
    await userEvent.type(within(dialog).getByLabelText('To date'), '2026-11-09');
    await userEvent.click(within(dialog).getByRole('button', { name: 'OK' }));
    await waitFor(() => {
      expect(router.location().search).not.toContain('offset');
    });
    const params = new URLSearchParams(router.location().search);
    expect(params.get('startDate')).toBe('2026-11-02');
    expect(params.get('endDate')).toBe('2026-11-09');
    expect(params.get('robot')).toBe(BRAVO);
    expect(params.get('limit')).toBe('10');
    await waitFor(() => {
      expect(lastListQuery(network).getAll('robot_id')).toEqual([BRAVO]);
    });
    expect(lastListQuery(network).get('offset')).toBe('0');
  });

  it('reset clears every parameter', async () => {
    const network = signedIn();
    const { router } = await openLogs(network, `/logs?startDate=2026-11-01&robot=${ALPHA}&offset=10&limit=5`);
    await userEvent.click(screen.getByRole('button', { name: 'Filter' }));
    await userEvent.click(within(await screen.findByRole('dialog')).getByRole('button', { name: 'Reset' }));
    await waitFor(() => {
      expect(router.location().search).toBe('');
    });
  });

  it('changing the page size snaps the offset down to a multiple of the new limit; sizes 5, 10, 20, 50', async () => {
    const network = signedIn([withRooms, empty], 120);
    const { router } = await openLogs(network, '/logs?offset=30&limit=10');
    const size = screen.getByLabelText('Rows per page');
    expect(within(size).getAllByRole('option').map((option) => option.textContent)).toEqual(['5', '10', '20', '50']);
    expect(screen.getByText('Page 4 of 12')).toBeInTheDocument();
    await userEvent.selectOptions(size, '20');
    await waitFor(() => {
      expect(new URLSearchParams(router.location().search).get('offset')).toBe('20');
    });
    expect(new URLSearchParams(router.location().search).get('limit')).toBe('20');
    expect(await screen.findByText('Page 2 of 6')).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Next' }));
    await waitFor(() => {
      expect(new URLSearchParams(router.location().search).get('offset')).toBe('40');
    });
  });

  it('reads the address rules as pure functions too', () => {
    expect(applyLimit(new URLSearchParams('offset=45&limit=5'), 20).toString()).toBe('offset=40&limit=20');
    expect(applyLimit(new URLSearchParams('limit=5'), 50).toString()).toBe('limit=50');
    const now = new Date(2026, 10, 22, 12);
    expect(readFilters(new URLSearchParams('offset=x&limit=0&startDate=bad'), now)).toEqual({
      startDate: '2026-11-15',
      endDate: undefined,
      robots: [],
      offset: 0,
      limit: 10,
    });
  });
});

describe('logs list states', () => {
  it('shows 10 placeholder rows while loading', async () => {
    storeSession();
    const network = fakeIdentity(new FakeNetwork()).on(listLogs, { hang: true });
    await renderApp({ path: '/logs', network });
    await waitFor(() => {
      expect(screen.getAllByTestId('skeleton-row')).toHaveLength(10);
    });
  });

  it('shows logTable.error when the list fails', async () => {
    storeSession();
    const network = fakeIdentity(new FakeNetwork()).on(listLogs, { status: 500, body: { error: 'internal', message: 'boom' } });
    await renderApp({ path: '/logs', network });
    expect(await screen.findByRole('alert')).toHaveTextContent('Failed to load logs.');
  });

  it('translates the list in Finnish', async () => {
    const network = signedIn();
    await renderApp({ path: '/logs', network, language: 'fi' });
    expect(await screen.findByRole('columnheader', { name: 'Aloitusaika' })).toBeInTheDocument();
    await userEvent.click(await screen.findByRole('button', { name: 'Näytä lokin tiedot: Morning round' }));
    expect(await screen.findByText('Ei valmis')).toBeInTheDocument();
  });

  it('names every completion status in the language of the user, an interrupted and a missed job too', async () => {
    const interrupted = logFixture({ job_id: LOG_A, job_name: 'Night round', completion_status: 'interrupted' });
    const missed = logFixture({ job_id: LOG_B, job_name: 'Late round', completion_status: 'missed' });
    await renderApp({ path: '/logs', network: signedIn([interrupted, missed]), language: 'fi' });
    await screen.findByText('Night round');
    expect(within(rowOf('Night round')).getByText('Katkennut')).toBeInTheDocument();
    expect(within(rowOf('Late round')).getByText('Jäi aloittamatta')).toBeInTheDocument();
  });
});

describe('log detail', () => {
  beforeEach(() => {
    vi.stubGlobal('URL', Object.assign(class extends URL {}, { createObjectURL: () => 'blob:plan', revokeObjectURL: () => undefined }));
  });
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it('expands to robot, creator, times, rooms in order with translated results and the trajectory map', async () => {
    const network = signedIn();
    await openLogs(network);
    const detail = await expand('Morning round');
    expect(within(rowOf('Morning round')).getByRole('button', { name: 'Hide log details: Morning round' })).toHaveAttribute('aria-expanded', 'true');
    expect(within(detail).getByText('olivia')).toBeInTheDocument();
    // Europe/Helsinki is UTC+2 in November (behaviour §9 display).
    expect(within(detail).getByText('20.11.2026 10:30 AM')).toBeInTheDocument();
    expect(within(detail).getByText('20.11.2026 11:05 AM')).toBeInTheDocument();
    const rooms = within(detail).getAllByTestId('logged-room').map((row) => Array.from(row.querySelectorAll('td'), (cell) => cell.textContent));
    // A log without a dose map: the model's columns say, to a screen reader too, that nothing was computed.
    const none = Array.from({ length: 4 }, () => '–not computed');
    expect(rooms).toEqual([
      ['1', 'Room 101', 'Disinfected', '20 of 20', ...none],
      ['2', 'Room 102', 'Not ready', '30', ...none],
      // Its lamp ran and was stopped: the dose it got stays in the record; the room after it was never begun.
      ['3', 'Room 103', 'Not disinfected (Aborted)', '12.5 of 40', ...none],
      ['4', 'Room 104', 'Not reached', '40', ...none],
    ]);
    // The path drawn on the floor's plan, in the row: where it starts first, the other floor a click away.
    const map = await within(detail).findByTestId('log-trajectory-map');
    expect(within(map).getByRole('img', { name: 'Floor plan of Ground' })).toHaveAttribute('src', 'blob:plan');
    expect(within(map).getByTestId('trajectory')).toHaveAttribute('points', '0,300 40,250');
    expect(within(detail).queryByRole('link', { name: 'Trajectory' })).toBeNull();
    expect(network.callsTo(getLog).at(-1)?.url.searchParams.get('extra_navigation_data')).toBe('true');
    expect(network.callsTo(getFloorMapMetadata).map((call) => call.url.searchParams.get('floor_id'))).toEqual([GROUND]);
    const floors = within(detail).getByRole('group', { name: 'Floors of the trajectory' });
    expect(within(floors).getByRole('button', { name: 'Ground' })).toHaveAttribute('aria-pressed', 'true');
    await userEvent.click(within(floors).getByRole('button', { name: 'First' }));
    await waitFor(() => {
      expect(within(detail).getByRole('img', { name: 'Floor plan of First' })).toBeInTheDocument();
    });
    expect(within(detail).getByTestId('trajectory')).toHaveAttribute('points', '100,200 120,200');
    // The plan zooms here as on the map screen.
    await userEvent.click(within(detail).getByRole('button', { name: 'Zoom in' }));
    expect(within(detail).getByTestId('plan-layer').style.transform).toContain('scale(1.5)');
  });

  it('keeps the trajectory map after the notes are saved, whose reply carries no path', async () => {
    const network = signedIn();
    network.on(updateLogNotes, (request) => ({ status: 200, body: { ...withRooms, notes: (JSON.parse(request.body) as { notes: string }).notes } }));
    await openLogs(network);
    const detail = await expand('Morning round');
    await within(detail).findByTestId('trajectory');
    await userEvent.type(within(detail).getByLabelText('Notes'), '!');
    await userEvent.click(within(detail).getByRole('button', { name: 'Save notes' }));
    expect(await screen.findByText('Notes saved')).toBeInTheDocument();
    expect(within(detail).getByTestId('trajectory')).toBeInTheDocument();
  });

  it('shows not reached for a completed job, logDetail.nodata without rooms and no map without a trajectory', async () => {
    const reached = logFixture({
      job_id: LOG_A,
      job_name: 'Morning round',
      attributes: { rooms: [{ order: 0, room_id: ROOM_1, room_name: 'Room 101', dose: 20, state: 'not_reached', dose_received: null }], prompts: [] },
    });
    const network = signedIn([reached, empty]);
    await openLogs(network);
    let detail = await expand('Morning round');
    expect(within(detail).getByText('Not reached')).toBeInTheDocument();
    expect(within(detail).queryByTestId('log-trajectory-map')).toBeNull();
    expect(network.callsTo(getFloorMap)).toHaveLength(0);
    await userEvent.click(within(rowOf('Morning round')).getByRole('button', { name: 'Hide log details: Morning round' }));
    detail = await expand('Evening round');
    expect(within(detail).getByText('No rooms in this log')).toBeInTheDocument();
    expect(within(detail).queryByRole('link')).toBeNull();
  });

  it('shows logDetail.error when the log fails to load', async () => {
    const network = signedIn().on(getLog, { status: 500, body: { error: 'internal', message: 'boom' } });
    await openLogs(network);
    await userEvent.click(within(rowOf('Evening round')).getByRole('button', { name: 'Show log details: Evening round' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Failed to load the log.');
  });

  it('saves edited notes with PATCH /log/{id}/notes and toasts logDetail.success', async () => {
    const network = signedIn();
    network.on(updateLogNotes, (request) => ({ status: 200, body: { ...empty, notes: (JSON.parse(request.body) as { notes: string }).notes } }));
    await openLogs(network);
    const detail = await expand('Evening round');
    const notes = within(detail).getByLabelText('Notes');
    await userEvent.clear(notes);
    await userEvent.type(notes, 'Door 3 blocked');
    await userEvent.click(within(detail).getByRole('button', { name: 'Save notes' }));
    expect(await screen.findByText('Notes saved')).toBeInTheDocument();
    const call = network.callsTo(updateLogNotes)[0];
    expect(call?.url.pathname).toBe(`/api/log/${LOG_B}/notes`);
    expect(call?.body).toBe(JSON.stringify({ notes: 'Door 3 blocked' }));
    expect(within(detail).getByLabelText('Notes')).toHaveValue('Door 3 blocked');
  });

  it('toasts logDetail.failure when saving notes fails and keeps the text', async () => {
    const network = signedIn().on(updateLogNotes, { status: 500, body: { error: 'internal', message: 'boom' } });
    await openLogs(network);
    const detail = await expand('Evening round');
    const notes = within(detail).getByLabelText('Notes');
    await userEvent.type(notes, ' again');
    await userEvent.click(within(detail).getByRole('button', { name: 'Save notes' }));
    expect(await screen.findByText('Notes could not be saved')).toBeInTheDocument();
    expect(notes).toHaveValue('Ward cleaned again');
  });
});

describe('log detail prompts', () => {
  it("lists the robot's prompts with the answer, who gave it, when, and from where", async () => {
    const prompted = logFixture({
      job_id: LOG_A,
      job_name: 'Morning round',
      attributes: {
        rooms: [{ order: 0, room_id: ROOM_1, room_name: 'Room 101', dose: 20, state: 'done', dose_received: 20 }],
        prompts: [
          {
            action_id: ROOM_2,
            button: 'wait_to_enter',
            room_name: 'Room 101',
            asked_at: '2026-11-20T08:40:00+00:00',
            answered_at: '2026-11-20T08:41:00+00:00',
            answered_by: 'olivia',
            confirm: true,
            source: 'notification',
          },
          {
            action_id: ROOM_3,
            button: 'go_home',
            room_name: null,
            asked_at: '2026-11-20T09:00:00+00:00',
            answered_at: null,
            answered_by: null,
            confirm: null,
            source: null,
          },
        ],
      },
    });
    const network = signedIn([prompted, empty]);
    await openLogs(network);
    const detail = await expand('Morning round');
    const prompts = within(detail).getAllByTestId('logged-prompt').map((item) => Array.from(item.children, (line) => line.textContent));
    expect(prompts).toEqual([
      ['Confirm the room is empty to enter · Room 101', 'Confirmed by olivia, 20.11.2026 10:41 AM, from a notification'],
      ['Confirm to go home', 'Not answered'],
    ]);
    await userEvent.click(within(rowOf('Morning round')).getByRole('button', { name: 'Hide log details: Morning round' }));
    expect(within(await expand('Evening round')).queryAllByTestId('logged-prompt')).toEqual([]);
  });
});

describe('log detail events', () => {
  it('lists readiness changes during the job with who, when and the dose by then, translated', async () => {
    const changed = logFixture({
      job_id: LOG_A,
      job_name: 'Morning round',
      events: [
        { at: '2026-11-20T08:40:00+00:00', kind: 'room_not_ready', actor: 'olivia', order_no: 0, room_id: ROOM_1, room_name: 'Room 101', dose: 12.5 },
        { at: '2026-11-20T08:42:00+00:00', kind: 'room_ready', actor: 'olivia', order_no: 0, room_id: ROOM_1, room_name: 'Room 101', dose: null },
      ],
    });
    const network = signedIn([changed, empty]);
    await openLogs(network);
    const detail = await expand('Morning round');
    expect(within(detail).getByRole('heading', { name: 'Changes during the job' })).toBeInTheDocument();
    const events = within(detail).getAllByTestId('logged-event').map((item) => Array.from(item.children, (line) => line.textContent));
    expect(events).toEqual([
      ['Room 101 set not ready by olivia, 20.11.2026 10:40 AM', 'dose received by then: 12.5 J/m²'],
      ['Room 101 set ready by olivia, 20.11.2026 10:42 AM'],
    ]);
    await userEvent.click(within(rowOf('Morning round')).getByRole('button', { name: 'Hide log details: Morning round' }));
    expect(within(await expand('Evening round')).queryAllByTestId('logged-event')).toEqual([]);
  });
});
