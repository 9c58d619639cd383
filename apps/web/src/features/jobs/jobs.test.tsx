import { commandJob, confirmAction, deleteJob, getAction, getJob, getRobots, listJobs, postRobotCommand, startJobNow, updateRoomReadiness } from '@uvd/contracts';
import { Job } from '@uvd/contracts';
import type { JobList } from '@uvd/contracts';
import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FakeNetwork, heldReply } from '../../testing/fake-network.ts';
import type { RecordedRequest } from '../../testing/fake-network.ts';
import { fakeIdentity, storeSession } from '../../testing/fixtures.ts';
import { renderApp } from '../../testing/render-app.tsx';
import { robotFixture } from '../../testing/robot-fixtures.ts';
import { FakeEventStream } from '../../testing/fake-event-stream.ts';
import { applyJobChange } from './api/jobs-query.ts';
import { applyFilterChange, applyLimit, defaultStartDate, pageInfo, readFilters } from '../../lib/list-filters.ts';
import en from '../../locales/en.json';
import fi from '../../locales/fi.json';
import se from '../../locales/se.json';

const ROBOT = '0b8f3a52-51d4-4e0c-9d0f-2a6c7d8e9f01';
const ROBOT_B = '0b8f3a52-51d4-4e0c-9d0f-2a6c7d8e9f02';
const ROOM = '3a8f3a52-51d4-4e0c-9d0f-2a6c7d8e9f01';
const jobId = (n: number) => `1c9f3a52-51d4-4e0c-9d0f-${String(n).padStart(12, '0')}`;

const jobFixture = (n: number, overrides: Partial<Job> = {}): Job =>
  Job.parse({
    job_id: jobId(n),
    name: `Job ${n}`,
    status: 'Scheduled',
    robot_id: ROBOT,
    robot_name: 'Alpha',
    active_state: null,
    start_time: '2026-11-20T10:00:00Z',
    created_at: '2026-11-19T09:00:00Z',
    created_by: 'olivia',
    notes: '',
    rooms: [{ room_id: ROOM, order_no: 0, dose: 60, room_name: 'Ward 1', ready_for_disinfection: false }],
    start_now: false,
    performed: false,
    ...overrides,
  });

let streams: { url: URL; headers: Headers; stream: FakeEventStream }[] = [];

beforeEach(() => {
  streams = [];
  vi.stubGlobal('fetch', (input: RequestInfo | URL, init?: RequestInit) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const stream = new FakeEventStream();
    streams.push({ url, headers: new Headers(init?.headers), stream });
    return Promise.resolve(stream.response);
  });
});

afterEach(() => {
  vi.unstubAllGlobals();
  vi.useRealTimers();
});

const listOf = (jobs: Job[], count = jobs.length): JobList => ({ count, payload: jobs });

const signedIn = (list: JobList | ((request: RecordedRequest) => JobList) = listOf([jobFixture(1)])) => {
  storeSession();
  return fakeIdentity(new FakeNetwork())
    .on(listJobs, (request) => ({ status: 200, body: typeof list === 'function' ? list(request) : list }))
    .on(getRobots, { status: 200, body: { count: 0, payload: [] } })
    .on(getAction, { status: 204 });
};

const openJobs = async (network: FakeNetwork, path = '/jobs') => {
  const view = await renderApp({ path, network });
  expect(await screen.findByRole('heading', { level: 1, name: 'Jobs' })).toBeInTheDocument();
  return view;
};

const expand = async (name: string) => {
  await userEvent.click(await screen.findByRole('button', { name: `Show details: ${name}` }));
  return screen.findByTestId('job-details');
};

const lastQuery = (network: FakeNetwork) => network.callsTo(listJobs).at(-1)?.url.searchParams;

describe('jobs list filters (behaviour §2)', () => {
  it('reads defaults: start date 7 days ago, offset 0, limit 10', () => {
    const filters = readFilters(new URLSearchParams(), new Date(2026, 10, 22, 12));
    expect(filters).toEqual({ startDate: '2026-11-15', endDate: undefined, robots: [], offset: 0, limit: 10 });
    expect(readFilters(new URLSearchParams('robot=a,b&offset=20&limit=5&endDate=2026-11-30')).robots).toEqual(['a', 'b']);
  });

  it("counts the default start date's 7 days from the user's today in their timezone, not the browser's", () => {
    // 02:00 UTC on November 22nd is still November 21st in Los Angeles.
    const now = new Date('2026-11-22T02:00:00Z');
    expect(readFilters(new URLSearchParams(), now, 'America/Los_Angeles').startDate).toBe('2026-11-14');
    expect(readFilters(new URLSearchParams(), now, 'Europe/Helsinki').startDate).toBe('2026-11-15');
  });

  it('changing start date, end date or robot resets the offset and removes it from the address', () => {
    const base = new URLSearchParams('offset=20&limit=10&robot=a');
    expect(applyFilterChange(base, { startDate: '2026-11-01' }).toString()).toBe('limit=10&robot=a&startDate=2026-11-01');
    expect(applyFilterChange(base, { endDate: '2026-11-02' }).has('offset')).toBe(false);
    expect(applyFilterChange(base, { robots: ['b', 'c'] }).toString()).toBe('limit=10&robot=b%2Cc');
  });

  it('changing the limit snaps the offset down to a multiple of the new limit; pages are ceil(count/limit)', () => {
    expect(applyLimit(new URLSearchParams('offset=30'), 20, 30).toString()).toBe('offset=20&limit=20');
    expect(applyLimit(new URLSearchParams('offset=45'), 50, 45).get('offset')).toBe('0');
    expect(pageInfo(21, { offset: 10, limit: 10 })).toEqual({ page: 2, pages: 3 });
  });

  it('sends the filters to GET /jobs/v2/jobs and keeps the address in sync with the dialog, paging and page size', async () => {
    const network = signedIn(listOf([jobFixture(1)], 25));
    const { router } = await openJobs(network, `/jobs?robot=${ROBOT},${ROBOT_B}&endDate=2026-11-30&offset=10`);
    await screen.findAllByTestId('job-row');
    const query = lastQuery(network);
    expect(query?.getAll('robot_id')).toEqual([ROBOT, ROBOT_B]);
    expect(query?.get('from_date')).toBe(defaultStartDate());
    expect(query?.get('to_date')).toBe('2026-11-30');
    expect(query?.get('offset')).toBe('10');
    expect(query?.get('limit')).toBe('10');
    expect(screen.getByText('Page 2 of 3')).toBeInTheDocument();

    await userEvent.click(screen.getByRole('button', { name: 'Next' }));
    await waitFor(() => {
      expect(router.location().search).toContain('offset=20');
    });
    await userEvent.selectOptions(screen.getByLabelText('Rows per page'), '20');
    await waitFor(() => {
      expect(new URLSearchParams(router.location().search).get('offset')).toBe('20');
    });
    expect(new URLSearchParams(router.location().search).get('limit')).toBe('20');
    await userEvent.selectOptions(screen.getByLabelText('Rows per page'), '50');
    await waitFor(() => {
      expect(new URLSearchParams(router.location().search).get('offset')).toBe('0');
    });
    expect([...screen.getByLabelText('Rows per page').querySelectorAll('option')].map((option) => option.value)).toEqual(['5', '10', '20', '50']);

    await userEvent.click(screen.getByRole('button', { name: 'Filter' }));
    const dialog = await screen.findByRole('dialog');
    const from = within(dialog).getByLabelText('From date');
    await userEvent.clear(from);
    await userEvent.type(from, '2026-11-01');
    await userEvent.click(within(dialog).getByRole('button', { name: 'OK' }));
    await waitFor(() => {
      expect(new URLSearchParams(router.location().search).get('startDate')).toBe('2026-11-01');
    });
    expect(new URLSearchParams(router.location().search).has('offset')).toBe(false);
    await waitFor(() => {
      expect(lastQuery(network)?.get('from_date')).toBe('2026-11-01');
    });

    await userEvent.click(screen.getByRole('button', { name: 'Filter' }));
    await userEvent.click(within(await screen.findByRole('dialog')).getByRole('button', { name: 'Reset' }));
    await waitFor(() => {
      expect(router.location().search).toBe('');
    });
  });

  it('filters by robots chosen in the dialog, dropping the offset', async () => {
    const network = signedIn(listOf([jobFixture(1)], 30)).on(getRobots, {
      status: 200,
      body: {
        count: 2,
        payload: [
          robotFixture({ robot_id: ROBOT_B, name: 'Bravo' }),
          robotFixture({ robot_id: ROBOT, name: 'Alpha' }),
        ],
      },
    });
    const { router } = await openJobs(network, '/jobs?offset=20&limit=10');
    await userEvent.click(await screen.findByRole('button', { name: 'Filter' }));
    const dialog = await screen.findByRole('dialog');
    // Checkboxes, as the logs list has: no Ctrl-click to learn.
    const robots = within(dialog).getByRole('group', { name: 'Robots' });
    await userEvent.click(await within(robots).findByRole('checkbox', { name: 'Alpha' }));
    await userEvent.click(within(robots).getByRole('checkbox', { name: 'Bravo' }));
    await userEvent.click(within(dialog).getByRole('button', { name: 'OK' }));
    await waitFor(() => {
      expect(new URLSearchParams(router.location().search).get('robot')).toBe(`${ROBOT},${ROBOT_B}`);
    });
    expect(new URLSearchParams(router.location().search).has('offset')).toBe(false);
    expect(new URLSearchParams(router.location().search).get('limit')).toBe('10');
    await waitFor(() => {
      expect(lastQuery(network)?.getAll('robot_id')).toEqual([ROBOT, ROBOT_B]);
    });
    expect(lastQuery(network)?.get('offset')).toBe('0');
  });

  it('shows 10 placeholder rows while loading and jobTable.error when the list fails', async () => {
    const network = signedIn();
    network.on(listJobs, { hang: true });
    await openJobs(network);
    expect(await screen.findAllByTestId('skeleton-row')).toHaveLength(10);

    const failing = signedIn();
    failing.on(listJobs, { status: 500, body: { error: 'internal', message: 'boom' } });
    await openJobs(failing);
    expect(await screen.findByText('Failed to load jobs.')).toBeInTheDocument();
  });
});

describe('jobs list rows (behaviour §2, §4)', () => {
  it('expands a row with its details, notes placeholder localized and the room list', async () => {
    const network = signedIn(listOf([jobFixture(1, { notes: 'Now in {{current_room}}' })]));
    await openJobs(network);
    const button = await screen.findByRole('button', { name: 'Show details: Job 1' });
    expect(button).toHaveAttribute('aria-expanded', 'false');
    const details = await expand('Job 1');
    expect(screen.getByRole('button', { name: 'Hide details: Job 1' })).toHaveAttribute('aria-expanded', 'true');
    expect(within(details).getByText('olivia')).toBeInTheDocument();
    expect(within(details).getByText('Now in the room being disinfected now')).toBeInTheDocument();
    expect(within(details).getByText('Ward 1')).toBeInTheDocument();
    expect(within(details).getByText('60')).toBeInTheDocument();
  });

  it.each([
    ['Scheduled', null, ['Start now', 'Stop']],
    ['Running', 'disinfecting', ['Pause', 'Stop']],
    ['Running', 'paused', ['Resume', 'Stop']],
    ['Completed', null, ['Stop']],
  ] as const)('offers the commands of a %s (%s) job', async (status, activeState, offered) => {
    const network = signedIn(listOf([jobFixture(1, { status, active_state: activeState })]));
    await openJobs(network);
    const details = await expand('Job 1');
    for (const label of ['Start now', 'Pause', 'Resume', 'Stop']) {
      if ((offered as readonly string[]).includes(label)) expect(within(details).getByRole('button', { name: label })).toBeInTheDocument();
      else expect(within(details).queryByRole('button', { name: label })).not.toBeInTheDocument();
    }
  });

  it('refuses edit and delete of a Running job with jobControls.errorJobRunning', async () => {
    const network = signedIn(listOf([jobFixture(1, { status: 'Running', active_state: 'disinfecting' })]));
    await openJobs(network);
    const details = await expand('Job 1');
    await userEvent.click(within(details).getByRole('button', { name: 'Delete' }));
    expect(await within(details).findByText('A running job cannot be edited or deleted.')).toBeInTheDocument();
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
  });

  it('shows a job on an unreachable robot as connection lost and offers only End job, with a confirm that says why', async () => {
    const network = signedIn(
      listOf([
        jobFixture(1, { status: 'Running', active_state: 'disinfecting', connection_lost_since: '2026-11-20T10:42:00Z' }),
        jobFixture(2, { not_started_reason: 'robot_battery_low' }),
      ]),
    ).on(commandJob, { status: 200, body: { data: true } });
    await openJobs(network);
    const [lost, held] = await screen.findAllByTestId('job-status');
    // 10:42 UTC is 12:42 in Helsinki (the session user's timezone): never "Disinfecting".
    expect(lost).toHaveTextContent('Connection lost: lamp state unknown since 12:42 PM');
    expect(held).toHaveTextContent('Scheduled');
    expect(screen.getByTestId('job-not-started')).toHaveTextContent('Not started: battery low');
    const details = await expand('Job 1');
    expect(within(details).getByTestId('job-connection-lost')).toBeInTheDocument();
    expect(within(details).queryByRole('button', { name: 'Pause' })).not.toBeInTheDocument();
    expect(within(details).queryByRole('button', { name: 'Stop' })).not.toBeInTheDocument();
    await userEvent.click(within(details).getByRole('button', { name: 'End job' }));
    const dialog = await screen.findByRole('dialog');
    expect(dialog).toHaveTextContent('End this job while the robot is unreachable?');
    expect(dialog).toHaveTextContent('the stop reaches Alpha when it is back');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Confirm' }));
    await waitFor(() => {
      expect(network.callsTo(commandJob)[0]?.url.searchParams.get('command')).toBe('stop');
    });
  });

  it('confirm → command → toast for start-now, pause and a failing stop', async () => {
    const network = signedIn(listOf([jobFixture(1), jobFixture(2, { status: 'Running', active_state: 'disinfecting' })]))
      .on(startJobNow, { status: 200, body: { data: true } })
      .on(commandJob, (request) => ({ status: 200, body: { data: request.url.searchParams.get('command') === 'pause' } }));
    await openJobs(network);
    const first = await expand('Job 1');
    await userEvent.click(within(first).getByRole('button', { name: 'Start now' }));
    expect(network.callsTo(startJobNow)).toHaveLength(0);
    await userEvent.click(within(await screen.findByRole('dialog')).getByRole('button', { name: 'Confirm' }));
    expect(await screen.findByText('Job started')).toBeInTheDocument();
    expect(network.callsTo(startJobNow)[0]?.url.searchParams.get('job_id')).toBe(jobId(1));

    await userEvent.click(screen.getByRole('button', { name: 'Show details: Job 2' }));
    const second = screen.getAllByTestId('job-details')[1];
    if (!second) throw new Error('no details');
    await userEvent.click(within(second).getByRole('button', { name: 'Pause' }));
    await userEvent.click(within(await screen.findByRole('dialog')).getByRole('button', { name: 'Confirm' }));
    expect(await screen.findByText('Pause sent')).toBeInTheDocument();
    expect(network.callsTo(commandJob)[0]?.url.pathname).toBe(`/api/command/job/${jobId(2)}`);

    await waitFor(() => {
      expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    });
    await userEvent.click(within(second).getByRole('button', { name: 'Stop' }));
    await userEvent.click(within(await screen.findByRole('dialog')).getByRole('button', { name: 'Confirm' }));
    expect(await screen.findByText('Job could not be stopped')).toBeInTheDocument();
  });

  it('shows a command the robot has not confirmed as pending, and a stop past the alert time as an alert', async () => {
    const sent = new Date(Date.now() - 1000).toISOString();
    const overdue = new Date(Date.now() - 60_000).toISOString();
    const network = signedIn(
      listOf([
        jobFixture(1, { status: 'Running', active_state: 'disinfecting', pending_command: { command: 'pause', since: sent } }),
        jobFixture(2, { status: 'Running', active_state: 'disinfecting', pending_command: { command: 'stop', since: overdue } }),
      ]),
    );
    await openJobs(network);
    const pausing = await expand('Job 1');
    // The job shows what the robot reported: still disinfecting, so Pause is still offered beside the notice.
    expect(within(pausing).getByTestId('job-pending-command')).toHaveTextContent('Pause sent — waiting for the robot');
    expect(within(pausing).getByRole('button', { name: 'Pause' })).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Show details: Job 2' }));
    const stopping = screen.getAllByTestId('job-details')[1];
    if (!stopping) throw new Error('no details');
    expect(within(stopping).getByRole('alert')).toHaveTextContent('Stop not yet confirmed by the robot');
    expect(within(stopping).queryByTestId('job-pending-command')).toBeNull();
  });

  it('names a refusal of home while docked instead of a bare failure', async () => {
    const network = signedIn(listOf([jobFixture(1, { status: 'Running', active_state: 'disinfecting' })])).on(postRobotCommand, {
      status: 409,
      body: { error: 'robot_at_home', message: 'at home' },
    });
    await openJobs(network);
    const details = await expand('Job 1');
    await userEvent.click(within(details).getByRole('button', { name: 'Send home' }));
    await userEvent.click(within(await screen.findByRole('dialog')).getByRole('button', { name: 'Confirm' }));
    expect(await screen.findByText('The robot is at home already.')).toBeInTheDocument();
  });

  it("sends a Running job's robot home after confirmation; a Scheduled job offers no home", async () => {
    const network = signedIn(listOf([jobFixture(1), jobFixture(2, { status: 'Running', active_state: 'paused' })]))
      .on(getAction, { status: 204 })
      .on(postRobotCommand, { status: 200, body: { data: true } });
    await openJobs(network);
    const scheduled = await expand('Job 1');
    expect(within(scheduled).queryByRole('button', { name: 'Send home' })).not.toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Show details: Job 2' }));
    const running = screen.getAllByTestId('job-details')[1];
    if (!running) throw new Error('no details');
    await userEvent.click(within(running).getByRole('button', { name: 'Send home' }));
    const dialog = await screen.findByRole('dialog', { name: 'Send the robot home?' });
    expect(network.callsTo(postRobotCommand)).toHaveLength(0);
    await userEvent.click(within(dialog).getByRole('button', { name: 'Confirm' }));
    expect(await screen.findByText('Command sent')).toBeInTheDocument();
    const sent = network.callsTo(postRobotCommand);
    expect(sent).toHaveLength(1);
    expect(sent[0]?.url.pathname).toBe(`/api/command/${ROBOT}`);
    expect(sent[0]?.url.searchParams.get('command')).toBe('home');
  });

  it('deletes after confirmation, toasts and reloads the list after 500 ms', async () => {
    const network = signedIn().on(deleteJob, { status: 200, body: { data: true } });
    await openJobs(network);
    const details = await expand('Job 1');
    await userEvent.click(within(details).getByRole('button', { name: 'Delete' }));
    const before = network.callsTo(listJobs).length;
    await userEvent.click(within(await screen.findByRole('dialog')).getByRole('button', { name: 'Confirm' }));
    expect(await screen.findByText('Job deleted')).toBeInTheDocument();
    expect(network.callsTo(deleteJob)[0]?.url.pathname).toBe(`/api/jobs/jobs/${jobId(1)}`);
    expect(network.callsTo(listJobs)).toHaveLength(before);
    await waitFor(() => {
      expect(network.callsTo(listJobs).length).toBeGreaterThan(before);
    });
  });

  it('applies the readiness toggle at once and rolls it back when the server refuses', async () => {
    let answer: 'ok' | 'fail' = 'ok';
    let release: () => void = () => undefined;
    const network = signedIn().on(updateRoomReadiness, async () => {
      await new Promise<void>((resolve) => {
        release = resolve;
      });
      return answer === 'ok'
        ? { status: 200, body: { data: [{ room_id: ROOM, ready_for_disinfection: true }] } }
        : { status: 500, body: { error: 'internal', message: 'boom' } };
    });
    await openJobs(network);
    const details = await expand('Job 1');
    const toggle = within(details).getByRole('checkbox', { name: 'Ready: Ward 1' });
    await userEvent.click(toggle);
    expect(toggle).toBeChecked();
    expect(JSON.parse(network.callsTo(updateRoomReadiness)[0]?.body ?? '{}')).toEqual({ rooms: [{ room_id: ROOM, ready_for_disinfection: true }] });
    act(() => {
      release();
    });
    await waitFor(() => {
      expect(toggle).toBeChecked();
    });

    answer = 'fail';
    await userEvent.click(toggle);
    expect(toggle).not.toBeChecked();
    await waitFor(() => {
      expect(network.callsTo(updateRoomReadiness)).toHaveLength(2);
    });
    act(() => {
      release();
    });
    await waitFor(() => {
      expect(toggle).toBeChecked();
    });
  });
});

describe('operator prompt (behaviour §4)', () => {
  const action = (disabled = false) => ({ action_id: ROOM, job_id: jobId(1), button: { text: 'wait_to_enter' as const, disabled } });

  it('shows the action of an expanded Running job, sends confirm only from a dialog asking whether the room is empty, and hides it', async () => {
    const network = signedIn(listOf([jobFixture(1, { status: 'Running', active_state: 'disinfecting' })]))
      .on(getAction, { status: 200, body: action() })
      .on(confirmAction, { status: 200, body: { data: true } });
    await openJobs(network);
    const details = await expand('Job 1');
    expect(await within(details).findByText('Confirm the room is empty to enter')).toBeInTheDocument();
    expect(network.callsTo(getAction)[0]?.url.searchParams.get('job_id')).toBe(jobId(1));
    await userEvent.click(within(details).getByRole('button', { name: 'Confirm: Confirm the room is empty to enter' }));
    const dialog = await screen.findByRole('dialog', { name: 'Is the room empty?' });
    expect(dialog).toHaveTextContent('Confirm that the room is empty. Alpha will start UV-C.');
    expect(network.callsTo(confirmAction)).toHaveLength(0);
    await userEvent.click(within(dialog).getByRole('button', { name: 'The room is empty' }));
    await waitFor(() => {
      expect(network.callsTo(confirmAction)).toHaveLength(1);
    });
    expect(JSON.parse(network.callsTo(confirmAction)[0]?.body ?? '{}')).toEqual({ action_id: ROOM, confirm: true });
    await waitFor(() => {
      expect(within(details).queryByText('Confirm the room is empty to enter')).not.toBeInTheDocument();
    });
  });

  it('shows the action of an expanded job that opens while its first read is under way, though that read answers with none', async () => {
    // A slow first read: the server found no open action, and answers after the robot asked.
    const firstRead = heldReply(() => ({ status: 204 }));
    const network = signedIn(listOf([jobFixture(1, { status: 'Running', active_state: 'disinfecting' })]))
      .on(getAction, { status: 200, body: action() })
      .on(getAction, firstRead.handler, { times: 1 });
    await openJobs(network);
    const details = await expand('Job 1');
    const actionStreamOf = () => streams.find((entry) => entry.url.pathname === '/api/action/action/stream');
    await waitFor(() => {
      expect(actionStreamOf()).toBeDefined();
      expect(firstRead.asked()).toBe(true);
    });
    actionStreamOf()?.stream.event('action_change', { ...action(), robot_id: ROBOT, resolved: false });
    firstRead.release();
    expect(await within(details).findByText('Confirm the room is empty to enter')).toBeInTheDocument();
  });

  it('sends skip as confirm false', async () => {
    const network = signedIn(listOf([jobFixture(1, { status: 'Running', active_state: 'paused' })]))
      .on(getAction, { status: 200, body: action() })
      .on(confirmAction, { status: 200, body: { data: true } });
    await openJobs(network);
    const details = await expand('Job 1');
    await userEvent.click(await within(details).findByRole('button', { name: 'Skip: Confirm the room is empty to enter' }));
    expect(JSON.parse(network.callsTo(confirmAction)[0]?.body ?? '{}')).toEqual({ action_id: ROOM, confirm: false });
  });

  it('hides a disabled action, shows nothing for 204 and does not ask for jobs that are not Running', async () => {
    const running = { status: 'Running', active_state: 'disinfecting' } as const;
    const network = signedIn(listOf([jobFixture(1, running), jobFixture(3, running), jobFixture(2)])).on(getAction, (request) =>
      request.url.searchParams.get('job_id') === jobId(1) ? { status: 200, body: action(true) } : { status: 204 },
    );
    await openJobs(network);
    await expand('Job 1');
    await userEvent.click(screen.getByRole('button', { name: 'Show details: Job 3' }));
    await waitFor(() => {
      expect(network.callsTo(getAction)).toHaveLength(2);
    });
    expect(screen.queryByRole('button', { name: 'Skip' })).not.toBeInTheDocument();
    expect(screen.queryByText('Confirm the room is empty to enter')).not.toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Show details: Job 2' }));
    expect(screen.getAllByTestId('job-details')).toHaveLength(3);
    expect(network.callsTo(getAction)).toHaveLength(2);
  });
});

describe('live updates and focus', () => {
  it('job_change replaces the job by id, drops performed jobs and recomputes the count', () => {
    const list = listOf([jobFixture(1), jobFixture(2)], 12);
    const renamed = applyJobChange(list, jobFixture(1, { name: 'Renamed' }));
    expect(renamed?.payload.map((job) => job.name)).toEqual(['Renamed', 'Job 2']);
    expect(renamed?.count).toBe(12);
    const done = applyJobChange(list, jobFixture(2, { performed: true }));
    expect(done?.payload.map((job) => job.job_id)).toEqual([jobId(1)]);
    expect(done?.count).toBe(11);
    expect(applyJobChange(undefined, jobFixture(1))).toBeUndefined();
  });

  it('opens one job stream and one action stream for every job the user may see (the action stream shared with the prompt banner), one robot stream for the visible jobs\' robots, with the bearer header, and applies job_change', async () => {
    let list = listOf([jobFixture(1), jobFixture(2, { robot_id: ROBOT_B }), jobFixture(3)], 3);
    const network = signedIn(() => list);
    await openJobs(network);
    await waitFor(() => {
      expect(streams).toHaveLength(3);
    });
    const jobStream = streams.find((entry) => entry.url.pathname === '/api/jobs/v2/jobs/stream');
    const actionStream = streams.find((entry) => entry.url.pathname === '/api/action/action/stream');
    const robotStream = streams.find((entry) => entry.url.pathname === '/api/robot/stream');
    // Every job the user may see (an empty job_list), so jobs created elsewhere and prompts of any job arrive too.
    expect(jobStream?.url.searchParams.get('job_list') ?? '').toBe('');
    expect(actionStream?.url.searchParams.get('job_list') ?? '').toBe('');
    expect(robotStream?.url.searchParams.get('robot_list')?.split(',').sort()).toEqual([ROBOT, ROBOT_B]);
    expect(jobStream?.headers.get('Authorization')).toMatch(/^Bearer /);

    jobStream?.stream.event('job_change', jobFixture(1, { name: 'Live name' }));
    expect(await screen.findByText('Live name')).toBeInTheDocument();
    // The server lists only jobs not yet performed.
    list = listOf([jobFixture(1, { name: 'Live name' }), jobFixture(3)], 2);
    jobStream?.stream.event('job_change', jobFixture(2, { performed: true }));
    await waitFor(() => {
      expect(screen.queryByText('Job 2')).not.toBeInTheDocument();
    });
    expect(screen.getAllByTestId('job-row')).toHaveLength(2);
  });

  it('action_change shows a new prompt for an expanded Running job', async () => {
    const network = signedIn(listOf([jobFixture(1, { status: 'Running', active_state: 'disinfecting' })]));
    await openJobs(network);
    const details = await expand('Job 1');
    await waitFor(() => {
      expect(streams).toHaveLength(3);
    });
    const actionStream = streams.find((entry) => entry.url.pathname === '/api/action/action/stream');
    const change = { action_id: ROOM, job_id: jobId(1), robot_id: ROBOT, resolved: false, button: { text: 'go_home', disabled: false } };
    actionStream?.stream.event('action_change', change);
    expect(await within(details).findByText('Confirm to go home')).toBeInTheDocument();
    actionStream?.stream.event('action_change', { ...change, resolved: true });
    await waitFor(() => {
      expect(within(details).queryByText('Confirm to go home')).not.toBeInTheDocument();
    });
  });

  it('refetches the jobs list after its stream reconnects, so changes beyond the replay horizon heal without a reload', async () => {
    let list = listOf([jobFixture(1), jobFixture(2)]);
    const network = signedIn(() => list);
    await openJobs(network);
    await screen.findByText('Job 2');
    await waitFor(() => {
      expect(streams).toHaveLength(3);
    });
    const jobStream = streams.find((entry) => entry.url.pathname === '/api/jobs/v2/jobs/stream');
    const fetchedBefore = network.callsTo(listJobs).length;

    // While the stream is down job 1 is renamed and job 2 is performed (the server's replay no longer has them).
    list = listOf([jobFixture(1, { name: 'Renamed while away' })]);
    jobStream?.stream.end();
    expect(await screen.findByText('Renamed while away', undefined, { timeout: 10_000 })).toBeInTheDocument();
    expect(screen.queryByText('Job 2')).not.toBeInTheDocument();
    expect(network.callsTo(listJobs)).toHaveLength(fetchedBefore + 1);
  });

  it("refetches an expanded job's action after the action stream reconnects, and on a resync frame", async () => {
    let action: { status: 200; body: { action_id: string; job_id: string; button: { text: string; disabled: boolean } } } | { status: 204 } = { status: 204 };
    const network = signedIn(listOf([jobFixture(1, { status: 'Running', active_state: 'disinfecting' })])).on(getAction, () => action);
    await openJobs(network);
    const details = await expand('Job 1');
    await waitFor(() => {
      expect(streams).toHaveLength(3);
    });
    const actionStream = streams.find((entry) => entry.url.pathname === '/api/action/action/stream');

    action = { status: 200, body: { action_id: ROOM, job_id: jobId(1), button: { text: 'go_home', disabled: false } } };
    actionStream?.stream.end();
    expect(await within(details).findByText('Confirm to go home', undefined, { timeout: 10_000 })).toBeInTheDocument();

    action = { status: 204 };
    const reopened = streams.filter((entry) => entry.url.pathname === '/api/action/action/stream').at(-1);
    reopened?.stream.push(`id: 9\nevent: resync\ndata: ${JSON.stringify({ reason: 'database' })}\n\n`);
    await waitFor(() => {
      expect(within(details).queryByText('Confirm to go home')).not.toBeInTheDocument();
    });
  });

  it('/job/:id expands that job and scrolls it into view', async () => {
    const scrolled = vi.fn();
    Element.prototype.scrollIntoView = scrolled;
    const network = signedIn(listOf([jobFixture(1), jobFixture(2)]));
    const { router } = await openJobs(network, `/job/${jobId(2)}`);
    expect(await screen.findByRole('button', { name: 'Hide details: Job 2' })).toHaveAttribute('aria-expanded', 'true');
    expect(screen.getByRole('button', { name: 'Show details: Job 1' })).toHaveAttribute('aria-expanded', 'false');
    expect(router.location().pathname).toBe('/jobs');
    await waitFor(() => {
      expect(scrolled).toHaveBeenCalled();
    });
  });

  it('/job/:id shows the job first, expanded, when it is not on the page (a new job scheduled later), and keeps it live', async () => {
    Element.prototype.scrollIntoView = vi.fn();
    const network = signedIn(listOf([jobFixture(1), jobFixture(2)], 25)).on(getJob, { status: 200, body: jobFixture(30, { name: 'New evening round' }) });
    await openJobs(network, `/job/${jobId(30)}`);
    expect(await screen.findByRole('button', { name: 'Hide details: New evening round' })).toHaveAttribute('aria-expanded', 'true');
    const names = screen.getAllByTestId('job-row').map((row) => within(row).getByTestId('list-row-name').textContent);
    expect(names).toEqual(['New evening round', 'Job 1', 'Job 2']);
    expect(network.callsTo(getJob)[0]?.url.pathname).toContain(jobId(30));

    // The stream follows every job the user may see: the pinned job too.
    const jobStreamOf = () => streams.find((entry) => entry.url.pathname === '/api/jobs/v2/jobs/stream');
    await waitFor(() => {
      expect(jobStreamOf()).toBeDefined();
    });
    const jobStream = jobStreamOf();
    jobStream?.stream.event('job_change', jobFixture(30, { name: 'New evening round', status: 'Running', active_state: 'disinfecting' }));
    expect(await screen.findByText('Disinfecting')).toBeInTheDocument();
  });

  it('/job/:id of a job off the page shows a change that arrives while its first read is under way, though that read answers with the job as it was', async () => {
    Element.prototype.scrollIntoView = vi.fn();
    // A slow first read: the server read the job before its robot started, and answers after it did.
    const firstRead = heldReply(() => ({ status: 200, body: jobFixture(30, { name: 'New evening round' }) }));
    const network = signedIn(listOf([jobFixture(1), jobFixture(2)], 25)).on(getJob, firstRead.handler);
    await openJobs(network, `/job/${jobId(30)}`);
    const jobStreamOf = () => streams.find((entry) => entry.url.pathname === '/api/jobs/v2/jobs/stream');
    await waitFor(() => {
      expect(jobStreamOf()).toBeDefined();
      expect(firstRead.asked()).toBe(true);
    });
    const running = jobFixture(30, { name: 'New evening round', status: 'Running', active_state: 'disinfecting' });
    jobStreamOf()?.stream.event('job_change', running);
    network.on(getJob, { status: 200, body: running });
    firstRead.release();
    expect(await screen.findByText('Disinfecting')).toBeInTheDocument();
  });

  it('/job/:id fetches nothing more when the job is on the page', async () => {
    Element.prototype.scrollIntoView = vi.fn();
    const network = signedIn(listOf([jobFixture(1), jobFixture(2)]));
    await openJobs(network, `/job/${jobId(1)}`);
    expect(await screen.findByRole('button', { name: 'Hide details: Job 1' })).toBeInTheDocument();
    expect(network.callsTo(getJob)).toHaveLength(0);
  });
});

describe('commands exactly once, and the commands that never arrive', () => {
  const KEY = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
  const running = (n: number) => jobFixture(n, { status: 'Running', active_state: 'disinfecting' });
  const confirmIn = async () => {
    await userEvent.click(within(await screen.findByRole('dialog')).getByRole('button', { name: 'Confirm' }));
    await waitFor(() => {
      expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    });
  };

  it('sends an Idempotency-Key with start, pause, home and a prompt answer, a new one per click', async () => {
    const network = signedIn(listOf([jobFixture(1), running(2)]))
      .on(startJobNow, { status: 200, body: { data: true } })
      .on(commandJob, { status: 200, body: { data: true } })
      .on(postRobotCommand, { status: 200, body: { data: true } })
      .on(getAction, { status: 200, body: { action_id: ROOM, job_id: jobId(2), button: { text: 'wait_to_enter', disabled: false } } })
      .on(confirmAction, { status: 200, body: { data: true } });
    await openJobs(network);
    const scheduled = await expand('Job 1');
    await userEvent.click(within(scheduled).getByRole('button', { name: 'Start now' }));
    await confirmIn();
    await userEvent.click(screen.getByRole('button', { name: 'Show details: Job 2' }));
    const second = screen.getAllByTestId('job-details')[1];
    if (!second) throw new Error('no details');
    for (const name of ['Pause', 'Pause', 'Send home']) {
      await userEvent.click(within(second).getByRole('button', { name }));
      await confirmIn();
    }
    await userEvent.click(await within(second).findByRole('button', { name: 'Confirm: Confirm the room is empty to enter' }));
    await userEvent.click(within(await screen.findByRole('dialog')).getByRole('button', { name: 'The room is empty' }));
    await waitFor(() => {
      expect(network.callsTo(confirmAction)).toHaveLength(1);
    });

    const keys = [startJobNow, commandJob, postRobotCommand, confirmAction]
      .flatMap((contract) => network.callsTo(contract))
      .map((call) => call.headers.get('Idempotency-Key') ?? '');
    expect(keys).toHaveLength(5);
    for (const key of keys) expect(key).toMatch(KEY);
    expect(new Set(keys).size).toBe(5);
  });

  it('retries a command whose reply was lost, and one answered 503 with Retry-After, with the same key: one intent', async () => {
    const network = signedIn(listOf([running(1)]))
      .on(commandJob, { status: 200, body: { data: true } })
      .on(commandJob, { status: 503, body: { error: 'overloaded', message: 'Busy' }, headers: { 'Retry-After': '0' } }, { times: 1 })
      .on(commandJob, { networkError: true }, { times: 1 });
    await openJobs(network);
    const details = await expand('Job 1');
    await userEvent.click(within(details).getByRole('button', { name: 'Pause' }));
    await confirmIn();
    expect(await screen.findByText('Pause sent', undefined, { timeout: 5000 })).toBeInTheDocument();
    const calls = network.callsTo(commandJob);
    expect(calls).toHaveLength(3);
    const [first] = calls.map((call) => call.headers.get('Idempotency-Key'));
    expect(first).toMatch(KEY);
    expect(calls.map((call) => call.headers.get('Idempotency-Key'))).toEqual([first, first, first]);
  });

  it("does not refetch the list after a job command's reply: the job's change arrives on the jobs stream", async () => {
    const network = signedIn(listOf([running(1)])).on(commandJob, { status: 200, body: { data: true } });
    await openJobs(network);
    const details = await expand('Job 1');
    await waitFor(() => {
      expect(streams).toHaveLength(3);
    });
    const fetched = network.callsTo(listJobs).length;
    await userEvent.click(within(details).getByRole('button', { name: 'Pause' }));
    await confirmIn();
    expect(await screen.findByText('Pause sent')).toBeInTheDocument();
    const jobStream = streams.find((entry) => entry.url.pathname === '/api/jobs/v2/jobs/stream');
    jobStream?.stream.event('job_change', jobFixture(1, { status: 'Running', active_state: 'paused' }));
    expect(await within(details).findByRole('button', { name: 'Resume' })).toBeInTheDocument();
    // Long enough for a refetch the reply would have started.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(network.callsTo(listJobs)).toHaveLength(fetched);
  });

  it("shows a command the robot never received: a toast naming the robot and the command, once, and the job's row", async () => {
    const network = signedIn(listOf([running(1), running(2)])).on(commandJob, { status: 200, body: { data: true } });
    await openJobs(network);
    const details = await expand('Job 2');
    await waitFor(() => {
      expect(streams).toHaveLength(3);
    });
    const robotStream = streams.find((entry) => entry.url.pathname === '/api/robot/stream');
    const undelivered = {
      command_id: ROOM,
      robot_id: ROBOT,
      job_id: jobId(2),
      command: 'pause',
      issued_at: '2026-11-20T10:00:00Z',
      given_up_at: '2026-11-20T10:01:00Z',
      reason: 'unacknowledged',
    };
    robotStream?.stream.push(`id: 41\nevent: command_undelivered\ndata: ${JSON.stringify(undelivered)}\n\n`);
    // The same event again (another stream, a replay): shown once.
    robotStream?.stream.push(`id: 41\nevent: command_undelivered\ndata: ${JSON.stringify(undelivered)}\n\n`);
    expect(await within(details).findByText("Robot Alpha did not receive 'pause'.")).toBeInTheDocument();
    await waitFor(() => {
      expect(screen.getAllByText("Robot Alpha did not receive 'pause'.")).toHaveLength(2);
    });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(screen.getAllByText("Robot Alpha did not receive 'pause'.")).toHaveLength(2);

    // Another command on the job clears the row's note.
    await userEvent.click(within(details).getByRole('button', { name: 'Pause' }));
    await confirmIn();
    await waitFor(() => {
      expect(within(details).queryByTestId('job-undelivered')).not.toBeInTheDocument();
    });
  });
});

describe('the operator shift: what the list holds, live, and links to one job', () => {
  const page = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, index) => jobFixture(from + index));

  it('/job/:id of a job off the page reads it with extra_room_data=true: its rooms show names and their Ready state', async () => {
    Element.prototype.scrollIntoView = vi.fn();
    const ready = jobFixture(40, { name: 'Evening round', rooms: [{ room_id: ROOM, order_no: 0, dose: 60, room_name: 'Ward 7', ready_for_disinfection: true }] });
    // As the server answers: room names and readiness only with extra_room_data=true.
    const network = signedIn(listOf([jobFixture(1)], 25)).on(getJob, (request) => ({
      status: 200,
      body: request.url.searchParams.get('extra_room_data') === 'true' ? ready : { ...ready, rooms: [{ room_id: ROOM, order_no: 0, dose: 60 }] },
    }));
    await openJobs(network, `/job/${jobId(40)}`);
    const details = await screen.findByTestId('job-details');
    expect(await within(details).findByRole('checkbox', { name: 'Ready: Ward 7' })).toBeChecked();
    expect(network.callsTo(getJob)[0]?.url.searchParams.get('extra_room_data')).toBe('true');
  });

  it('/job/:id says so when the job is unknown (or another organization\'s), or finished, with a link to Logs', async () => {
    const unknown = signedIn().on(getJob, { status: 404, body: { error: 'not_found', message: 'Job not found' } });
    await openJobs(unknown, `/job/${jobId(41)}`);
    expect(await screen.findByText('This job was not found.')).toBeInTheDocument();
    expect(screen.getAllByTestId('job-row')).toHaveLength(1);

    const finished = signedIn().on(getJob, {
      status: 200,
      body: jobFixture(42, { name: 'Night round', status: 'Completed', performed: true, completion_status: 'aborted', start_time: '2026-11-21T22:00:00Z' }),
    });
    await openJobs(finished, `/job/${jobId(42)}`);
    expect(await screen.findByText('The job “Night round” is finished (Aborted): see it in Logs.')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Open Logs' })).toHaveAttribute('href', '/logs?startDate=2026-11-21');
    expect(screen.queryByRole('button', { name: 'Hide details: Night round' })).not.toBeInTheDocument();
  });

  it('a job performed live leaves a page of 50 that still holds 50 rows and its pages (the list holds only jobs not yet performed)', async () => {
    let server = listOf(page(1, 50), 66);
    const network = signedIn(() => server);
    await openJobs(network, '/jobs?limit=50');
    await waitFor(() => {
      expect(screen.getAllByTestId('job-row')).toHaveLength(50);
    });
    expect(screen.getByText('Page 1 of 2')).toBeInTheDocument();
    const jobStream = await waitFor(() => {
      const found = streams.find((entry) => entry.url.pathname === '/api/jobs/v2/jobs/stream');
      if (!found) throw new Error('no job stream');
      return found;
    });
    // Job 2 ends: the server lists 65 jobs not yet performed, job 51 moves up to page 1.
    server = listOf([jobFixture(1), ...page(3, 51)], 65);
    jobStream.stream.event('job_change', jobFixture(2, { status: 'Completed', performed: true, completion_status: 'completed' }));
    expect(await screen.findByText('Job 51')).toBeInTheDocument();
    expect(screen.queryByText('Job 2')).not.toBeInTheDocument();
    expect(screen.getAllByTestId('job-row')).toHaveLength(50);
    expect(screen.getByText('Page 1 of 2')).toBeInTheDocument();
  });

  it('a job created elsewhere (another tab, user or the API) appears without a reload', async () => {
    let server = listOf([jobFixture(1), jobFixture(2)]);
    const network = signedIn(() => server);
    await openJobs(network);
    await screen.findByText('Job 2');
    const jobStream = await waitFor(() => {
      const found = streams.find((entry) => entry.url.pathname === '/api/jobs/v2/jobs/stream');
      if (!found) throw new Error('no job stream');
      return found;
    });
    const created = jobFixture(7, { name: 'Made in another tab', start_time: '2026-11-20T12:00:00Z' });
    server = listOf([created, jobFixture(1), jobFixture(2)]);
    jobStream.stream.event('job_change', created);
    expect(await screen.findByText('Made in another tab')).toBeInTheDocument();
    expect(screen.getAllByTestId('job-row')).toHaveLength(3);
  });

  it('/jobs?limit=7 lists an offered page size, the one the select shows', async () => {
    const network = signedIn(listOf(page(1, 5), 12));
    await openJobs(network, '/jobs?limit=7');
    await screen.findAllByTestId('job-row');
    expect(lastQuery(network)?.get('limit')).toBe('5');
    expect(screen.getByLabelText('Rows per page')).toHaveValue('5');
    expect(screen.getByText('Page 1 of 3')).toBeInTheDocument();
    expect(readFilters(new URLSearchParams('limit=8')).limit).toBe(10);
    expect(readFilters(new URLSearchParams('limit=500')).limit).toBe(50);
  });

  it('the filter dialog refuses a from date after the to date, saying so, and changes nothing', async () => {
    const network = signedIn();
    const { router } = await openJobs(network, '/jobs?startDate=2026-11-01');
    await userEvent.click(await screen.findByRole('button', { name: 'Filter' }));
    const dialog = await screen.findByRole('dialog');
    await userEvent.type(within(dialog).getByLabelText('To date'), '2026-10-01');
    await userEvent.click(within(dialog).getByRole('button', { name: 'OK' }));
    expect(await within(dialog).findByText('The from date must not be after the to date.')).toBeInTheDocument();
    expect(within(dialog).getByLabelText('To date')).toHaveAccessibleDescription('The from date must not be after the to date.');
    expect(router.location().search).toBe('?startDate=2026-11-01');
  });

  it('filters by status in the address (status=Running,Scheduled), shows the active filters on the button and clears them', async () => {
    const network = signedIn(listOf([jobFixture(1, { status: 'Running', active_state: 'disinfecting' })]));
    const { router } = await openJobs(network, '/jobs?limit=20');
    await screen.findAllByTestId('job-row');
    expect(screen.queryByTestId('filter-badge')).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Clear filters' })).not.toBeInTheDocument();

    await userEvent.click(screen.getByRole('button', { name: 'Filter' }));
    const dialog = await screen.findByRole('dialog');
    const statuses = within(dialog).getByRole('group', { name: 'Status' });
    await userEvent.click(within(statuses).getByRole('checkbox', { name: 'Running' }));
    await userEvent.click(within(dialog).getByRole('button', { name: 'OK' }));
    await waitFor(() => {
      expect(new URLSearchParams(router.location().search).get('status')).toBe('Running');
    });
    await waitFor(() => {
      expect(lastQuery(network)?.getAll('status')).toEqual(['Running']);
    });
    expect(screen.getByTestId('filter-badge')).toHaveTextContent('1');
    expect(screen.getByRole('button', { name: 'Filter' })).toHaveAccessibleDescription('Filters active: 1');

    await userEvent.click(screen.getByRole('button', { name: 'Clear filters' }));
    await waitFor(() => {
      expect(router.location().search).toBe('?limit=20');
    });
    expect(screen.queryByTestId('filter-badge')).not.toBeInTheDocument();
  });

  it('Finnish and Swedish use one word for "filter" and one for "start time" on jobs and logs alike', () => {
    for (const locale of [en, fi, se]) {
      expect(locale.jobTable.filter).toBe(locale.filter.title);
      expect(locale.logTable.startTime).toBe(locale.jobTable.startTime);
      expect(locale.logDetail.startTime).toBe(locale.jobTable.startTime);
    }
  });
});
