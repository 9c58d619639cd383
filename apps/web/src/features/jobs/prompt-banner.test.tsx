import { confirmAction, getAction, getRobots, Job, listJobs, listWaitingActions } from '@uvd/contracts';
import type { JobList, WaitingAction } from '@uvd/contracts';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FakeEventStream } from '../../testing/fake-event-stream.ts';
import { FakeNetwork, heldReply } from '../../testing/fake-network.ts';
import { fakeIdentity, storeSession } from '../../testing/fixtures.ts';
import { renderApp } from '../../testing/render-app.tsx';

const ROBOT = '0b8f3a52-51d4-4e0c-9d0f-2a6c7d8e9f01';
const ROOM = '3a8f3a52-51d4-4e0c-9d0f-2a6c7d8e9f01';
const JOB = '1c9f3a52-51d4-4e0c-9d0f-000000000001';
const actionId = (n: number) => `5d9f3a52-51d4-4e0c-9d0f-${String(n).padStart(12, '0')}`;

const prompt = (n: number, overrides: Partial<WaitingAction> = {}): WaitingAction => ({
  action_id: actionId(n),
  job_id: JOB,
  button: { text: 'wait_to_enter', disabled: false },
  job_name: 'Morning round',
  robot_id: ROBOT,
  robot_name: `Alpha ${String(n)}`,
  room_id: ROOM,
  room_name: `Ward ${String(n)}`,
  created_at: '2026-11-20T10:00:00Z',
  ...overrides,
});

let streams: { url: URL; stream: FakeEventStream }[] = [];
beforeEach(() => {
  streams = [];
  vi.stubGlobal('fetch', (input: RequestInfo | URL) => {
    const stream = new FakeEventStream();
    streams.push({ url: new URL(input instanceof Request ? input.url : String(input)), stream });
    return Promise.resolve(stream.response);
  });
});
afterEach(() => {
  vi.unstubAllGlobals();
});

const actionStream = async () =>
  waitFor(() => {
    const found = streams.find((entry) => entry.url.pathname === '/api/action/action/stream');
    if (!found) throw new Error('no action stream yet');
    return found;
  });

const signedIn = (waiting: () => WaitingAction[]) => {
  storeSession();
  return fakeIdentity(new FakeNetwork())
    .on(listWaitingActions, () => ({ status: 200, body: { payload: waiting() } }))
    .on(getRobots, { status: 200, body: { count: 0, payload: [] } });
};

describe('the waiting prompts banner on every screen', () => {
  it('shows a prompt on the robots screen naming robot and room; Confirm asks in a dialog first, then says the answer was sent and received', async () => {
    let waiting = [prompt(1)];
    let asked = true;
    const network = signedIn(() => waiting)
      .on(confirmAction, () => {
        waiting = [];
        return { status: 200, body: { data: true } };
      })
      .on(getAction, () =>
        asked ? { status: 200, body: { action_id: actionId(1), job_id: JOB, button: { text: 'wait_to_enter', disabled: true } } } : { status: 204 },
      );
    await renderApp({ path: '/robots', network });
    const banner = await screen.findByTestId('prompt-banner');
    expect(within(banner).getByRole('alert')).toHaveTextContent('Alpha 1 at Ward 1: Confirm the room is empty to enter');
    expect(await screen.findByRole('heading', { level: 1, name: 'Robots' })).toBeInTheDocument();

    // One tap on Confirm (a stray one too) sends nothing: it asks, naming the room and the robot.
    await userEvent.click(within(banner).getByRole('button', { name: 'Confirm: Alpha 1 at Ward 1: Confirm the room is empty to enter' }));
    const dialog = await screen.findByRole('dialog', { name: 'Is room Ward 1 empty?' });
    expect(dialog).toHaveTextContent('Confirm that room Ward 1 is empty. Alpha 1 will start UV-C.');
    expect(network.callsTo(confirmAction)).toHaveLength(0);
    await userEvent.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => {
      expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    });
    expect(network.callsTo(confirmAction)).toHaveLength(0);

    await userEvent.click(within(banner).getByRole('button', { name: 'Confirm: Alpha 1 at Ward 1: Confirm the room is empty to enter' }));
    await userEvent.click(within(await screen.findByRole('dialog')).getByRole('button', { name: 'The room is empty' }));
    const sent = await screen.findByTestId('prompt-answer-sent');
    expect(sent).toHaveTextContent('Answer sent to Alpha 1. Waiting for the robot to take it.');
    expect(screen.getByRole('status')).toContainElement(sent);
    expect(screen.queryByTestId('prompt-banner-item')).not.toBeInTheDocument();
    const [call] = network.callsTo(confirmAction);
    expect(JSON.parse(call?.body ?? '{}')).toMatchObject({ action_id: actionId(1), confirm: true });
    expect(call?.headers.get('Idempotency-Key')).toMatch(/.{16,}/);

    // The robot stops asking: it took the answer.
    asked = false;
    const { stream } = await actionStream();
    stream.event('action_change', { action_id: actionId(1), job_id: JOB, robot_id: ROBOT, resolved: true, button: { text: 'wait_to_enter', disabled: true } });
    await waitFor(() => {
      expect(screen.getByTestId('prompt-answer-sent')).toHaveTextContent('Alpha 1 received the answer.');
    });
  });

  it('sends Skip at once, which never turns a lamp on, and says it was sent', async () => {
    let waiting = [prompt(1)];
    const network = signedIn(() => waiting)
      .on(confirmAction, () => {
        waiting = [];
        return { status: 200, body: { data: true } };
      })
      .on(getAction, { status: 200, body: { action_id: actionId(1), job_id: JOB, button: { text: 'wait_to_enter', disabled: true } } });
    await renderApp({ path: '/robots', network });
    const banner = await screen.findByTestId('prompt-banner');
    await userEvent.click(within(banner).getByRole('button', { name: 'Skip: Alpha 1 at Ward 1: Confirm the room is empty to enter' }));
    expect(await screen.findByText('Answer sent to Alpha 1. Waiting for the robot to take it.')).toBeInTheDocument();
    expect(JSON.parse(network.callsTo(confirmAction)[0]?.body ?? '{}')).toMatchObject({ action_id: actionId(1), confirm: false });
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
  });

  it('disappears when the prompt is answered elsewhere, and shows a new one as it arrives on the actions stream', async () => {
    let waiting = [prompt(1)];
    const network = signedIn(() => waiting);
    await renderApp({ path: '/robots', network });
    await screen.findByText(/Alpha 1 at Ward 1/);
    const { url, stream } = await actionStream();
    // Every job the user sees: the banner's stream names no job.
    expect(url.searchParams.get('job_list')).toBeNull();

    waiting = [];
    stream.event('action_change', { action_id: actionId(1), job_id: JOB, robot_id: ROBOT, resolved: false, button: { text: 'wait_to_enter', disabled: true } });
    await waitFor(() => {
      expect(screen.queryByTestId('prompt-banner')).not.toBeInTheDocument();
    });

    waiting = [prompt(2, { button: { text: 'go_home', disabled: false } })];
    stream.event('action_change', { action_id: actionId(2), job_id: JOB, robot_id: ROBOT, resolved: false, button: { text: 'go_home', disabled: false } });
    expect(await screen.findByText(/Alpha 2 at Ward 2: Confirm to go home/)).toBeInTheDocument();
  });

  it('recovers from a first read that failed: the next prompt on the stream reads the list again', async () => {
    let reply: { status: 503; body: unknown } | { status: 200; body: unknown } = {
      status: 503,
      body: { error: 'overloaded', message: 'The server is busy.' },
    };
    storeSession();
    const network = fakeIdentity(new FakeNetwork())
      .on(listWaitingActions, () => reply)
      .on(getRobots, { status: 200, body: { count: 0, payload: [] } });
    await renderApp({ path: '/robots', network });
    const { stream } = await actionStream();
    await waitFor(() => {
      expect(network.callsTo(listWaitingActions)).toHaveLength(1);
    });
    reply = { status: 200, body: { payload: [prompt(1)] } };
    stream.event('action_change', { action_id: actionId(1), job_id: JOB, robot_id: ROBOT, resolved: false, button: { text: 'wait_to_enter', disabled: false } });
    expect(await screen.findByText(/Alpha 1 at Ward 1/)).toBeInTheDocument();
  });

  it('shows a prompt that opens while the first read is under way, though that read answers with none', async () => {
    let waiting: WaitingAction[] = [];
    // A slow first read: the server found no prompt, and answers after the robot asked.
    const firstRead = heldReply(() => ({ status: 200, body: { payload: waiting } }));
    storeSession();
    const network = fakeIdentity(new FakeNetwork())
      .on(listWaitingActions, () => ({ status: 200, body: { payload: waiting } }))
      .on(getRobots, { status: 200, body: { count: 0, payload: [] } })
      .on(listWaitingActions, firstRead.handler, { times: 1 });
    await renderApp({ path: '/robots', network });
    const { stream } = await actionStream();
    await waitFor(() => {
      expect(firstRead.asked()).toBe(true);
    });
    waiting = [prompt(1)];
    stream.event('action_change', { action_id: actionId(1), job_id: JOB, robot_id: ROBOT, resolved: false, button: { text: 'wait_to_enter', disabled: false } });
    firstRead.release();
    expect(await screen.findByText(/Alpha 1 at Ward 1/)).toBeInTheDocument();
  });

  it('counts several prompts, shows the first three and links to the rest', async () => {
    const network = signedIn(() => [1, 2, 3, 4, 5].map((n) => prompt(n)));
    await renderApp({ path: '/robots', network });
    const banner = await screen.findByTestId('prompt-banner');
    expect(within(banner).getByRole('heading', { name: 'Robots waiting for an answer: 5' })).toBeInTheDocument();
    expect(within(banner).getAllByTestId('prompt-banner-item')).toHaveLength(3);
    expect(within(banner).getByRole('button', { name: '2 more in the jobs list' })).toBeInTheDocument();
  });

  it('speaks Finnish', async () => {
    const network = signedIn(() => [prompt(1)]);
    await renderApp({ path: '/robots', network, language: 'fi' });
    const banner = await screen.findByTestId('prompt-banner');
    expect(within(banner).getByRole('heading', { name: 'Vastausta odottavat robotit: 1' })).toBeInTheDocument();
  });
});

describe("where a running job's robot is", () => {
  const onTheWay = () =>
    runningJob({
      rooms: [
        { room_id: ROOM, order_no: 0, dose: 30, room_name: 'Ward 1', ready_for_disinfection: true, state: 'done' },
        { room_id: '3a8f3a52-51d4-4e0c-9d0f-2a6c7d8e9f02', order_no: 1, dose: 30, room_name: 'Ward 2', ready_for_disinfection: false, state: 'pending' },
      ],
      progress: {
        current_room: { room_id: '3a8f3a52-51d4-4e0c-9d0f-2a6c7d8e9f02', order_no: 1, room_name: 'Ward 2', phase: 'on_the_way' },
        rooms_total: 2,
        rooms_finished: 1,
        rooms_disinfected: 1,
        dose_delivered: 30,
        dose_total: 60,
        eta: null,
      },
    });

  it('reads On the way to the room, Waiting at it while its prompt is open, never In it before it entered', async () => {
    const network = signedIn(() => [])
      .on(listJobs, { status: 200, body: { count: 1, payload: [onTheWay()] } })
      .on(getAction, { status: 204 });
    await renderApp({ path: '/jobs', network });
    const bar = await screen.findByRole('progressbar', { name: 'Progress of Morning round' });
    expect(bar).toHaveAttribute('aria-valuetext', 'On the way to Ward 2 · 1 of 2 rooms · 30 of 60 J/m²');

    // The robot stops at the door and asks: the prompt opens on the actions stream, with no job change.
    const { stream } = await actionStream();
    stream.event('action_change', { action_id: actionId(1), job_id: JOB, robot_id: ROBOT, resolved: false, button: { text: 'wait_to_enter', disabled: false } });
    await waitFor(() => {
      expect(bar).toHaveAttribute('aria-valuetext', 'Waiting at Ward 2 · 1 of 2 rooms · 30 of 60 J/m²');
    });
    expect(screen.getByText('Waiting at Ward 2 · 1 of 2 rooms · 30 of 60 J/m²')).toBeVisible();
    // Answered, the robot still stands there until it stops asking.
    stream.event('action_change', { action_id: actionId(1), job_id: JOB, robot_id: ROBOT, resolved: false, button: { text: 'wait_to_enter', disabled: true } });
    stream.event('action_change', { action_id: actionId(1), job_id: JOB, robot_id: ROBOT, resolved: true, button: { text: 'wait_to_enter', disabled: true } });
    await waitFor(() => {
      expect(bar).toHaveAttribute('aria-valuetext', 'On the way to Ward 2 · 1 of 2 rooms · 30 of 60 J/m²');
    });
  });

  it('reads Waiting at the room in Finnish', async () => {
    const waitingJob = onTheWay();
    const room = waitingJob.progress?.current_room;
    if (!waitingJob.progress || !room) throw new Error('fixture without a current room');
    const network = signedIn(() => [])
      .on(listJobs, { status: 200, body: { count: 1, payload: [{ ...waitingJob, progress: { ...waitingJob.progress, current_room: { ...room, phase: 'waiting' } } }] } })
      .on(getAction, { status: 204 });
    await renderApp({ path: '/jobs', network, language: 'fi' });
    expect(await screen.findByText(/^Odottaa huoneen Ward 2 ovella/)).toBeInTheDocument();
  });
});

const runningJob = (overrides: Partial<Job> = {}): Job =>
  Job.parse({
    job_id: JOB,
    name: 'Morning round',
    status: 'Running',
    robot_id: ROBOT,
    robot_name: 'Alpha',
    active_state: 'disinfecting',
    start_time: '2026-11-20T10:00:00Z',
    created_at: '2026-11-19T09:00:00Z',
    created_by: 'olivia',
    notes: '',
    rooms: [
      { room_id: ROOM, order_no: 0, dose: 30, room_name: 'Ward 1', ready_for_disinfection: true, state: 'done' },
      { room_id: '3a8f3a52-51d4-4e0c-9d0f-2a6c7d8e9f02', order_no: 1, dose: 30, room_name: 'Ward 2', ready_for_disinfection: true, state: 'active' },
    ],
    start_now: false,
    performed: false,
    progress: {
      current_room: { room_id: '3a8f3a52-51d4-4e0c-9d0f-2a6c7d8e9f02', order_no: 1, room_name: 'Ward 2', phase: 'in_room' },
      rooms_total: 3,
      rooms_finished: 1,
      rooms_disinfected: 1,
      dose_delivered: 30,
      dose_total: 90,
      eta: '2026-11-20T10:20:00Z',
    },
    ...overrides,
  });

describe('a running job on the jobs list', () => {
  it("shows the job's progress, moves it on job_change, and a finished job leaves a toast with a link to its log", async () => {
    // What the server lists: the job while it runs, nothing once it ended (the list holds jobs not yet performed).
    let list: JobList = { count: 1, payload: [runningJob()] };
    const network = signedIn(() => [])
      .on(listJobs, () => ({ status: 200, body: list }))
      .on(getAction, { status: 204 });
    const view = await renderApp({ path: '/jobs', network });
    const bar = await screen.findByRole('progressbar', { name: 'Progress of Morning round' });
    // 10:20 UTC in the default timezone (Europe/Helsinki).
    expect(bar).toHaveAttribute('aria-valuetext', 'In Ward 2 · 1 of 3 rooms · 30 of 90 J/m² · ends about 12:20 PM');
    expect(bar).toHaveAttribute('aria-valuenow', '1');

    const jobStream = await waitFor(() => {
      const found = streams.find((entry) => entry.url.pathname === '/api/jobs/v2/jobs/stream');
      if (!found) throw new Error('no job stream yet');
      return found;
    });
    jobStream.stream.event(
      'job_change',
      runningJob({
        progress: {
          current_room: { room_id: ROOM, order_no: 2, room_name: 'Ward 3', phase: 'in_room' },
          rooms_total: 3,
          rooms_finished: 2,
          rooms_disinfected: 1,
          dose_delivered: 30,
          dose_total: 90,
          eta: '2026-11-20T10:30:00Z',
        },
      }),
    );
    await waitFor(() => {
      expect(bar).toHaveAttribute('aria-valuetext', 'In Ward 3 · 2 of 3 rooms · 30 of 90 J/m² · ends about 12:30 PM');
    });
    expect(screen.getByText('In Ward 3 · 2 of 3 rooms · 30 of 90 J/m² · ends about 12:30 PM')).toBeInTheDocument();

    const finished = runningJob({
      status: 'Completed',
      active_state: null,
      performed: true,
      progress: { current_room: null, rooms_total: 3, rooms_finished: 3, rooms_disinfected: 2, dose_delivered: 60, dose_total: 90, eta: null },
    });
    list = { count: 0, payload: [] };
    jobStream.stream.event('job_change', finished);
    const toast = await screen.findByTestId('job-finished-toast');
    expect(toast).toHaveTextContent('Job Morning round finished: 2 of 3 rooms disinfected');
    expect(screen.queryByRole('progressbar', { name: 'Progress of Morning round' })).not.toBeInTheDocument();
    await userEvent.click(within(toast).getByRole('button', { name: 'Open its log' }));
    await waitFor(() => {
      expect(view.router.location().pathname).toBe('/logs');
    });
    expect(view.router.location().search).toBe(`?robot=${ROBOT}`);
  });
});
