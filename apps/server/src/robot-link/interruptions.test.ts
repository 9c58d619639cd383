/**
 * Interruptions of a running job and its lamp-on intervals (interruptions.ts; README.md "Interruptions"): on a
 * simulated robot over real MQTT (embedded broker, a link proxy to cut its link), every state it publishes kept to
 * compare with what the server recorded; and states fed straight to job runners, for states seen twice, late, by two
 * server processes and after a restart.
 */
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SimRobot } from '@uvd/robot-sim';
import { Action, Job, LogEntry, UVD_PROMPT_INFO_TYPE, type ActionState, type LoggedJobEvent, type StateMessage } from '@uvd/contracts';
import { jobEvents, jobs } from '../db/schema.ts';
import {
  createJobFor,
  disinfectState,
  executionWorld,
  lampIntervalsInStates,
  recordedLampIntervals,
  robotState,
  SIM_HOME,
  waitUntil,
  type ExecutionWorld,
} from '../testing/execution-fixtures.ts';
import { startTestServer, type TestServer } from '../testing/harness.ts';
import { startLinkProxy, type LinkProxy } from '../testing/link-proxy.ts';
import { createJobRunner } from './job-runner.ts';
import { LAMP_REPORT_GAP_MS } from './interruptions.ts';
import { disinfectActionId } from './order.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// Side by side (concurrent): each test has its own organization, robot and link proxy, and mostly waits for it.
describe('interruptions on a simulated robot (embedded broker)', { concurrent: true }, () => {
  let server: TestServer;
  const sims: SimRobot[] = [];
  const proxies: LinkProxy[] = [];
  const offs: (() => void)[] = [];
  beforeAll(async () => {
    server = await startTestServer({ schedulerPollMs: 50 });
  });
  afterAll(async () => {
    for (const off of offs) off();
    await Promise.all(sims.map((sim) => sim.stop()));
    await Promise.all(proxies.map((proxy) => proxy.close()));
    await server.close();
  });

  /**
   * The world's robot behind a link proxy, every published state kept. 20× time at 0.3125 W/m²: a room of 50 J/m²
   * takes 8 s, so a person has time to act within it.
   */
  async function robotFor(w: ExecutionWorld): Promise<{ sim: SimRobot; proxy: LinkProxy; states: StateMessage[]; received: StateMessage[] }> {
    const proxy = await startLinkProxy(server.context.fleet.brokerUrl);
    proxies.push(proxy);
    const received: StateMessage[] = [];
    const off = server.context.fleet.onState((robot, state) => {
      if (robot.robotId === w.robotId) received.push(state);
    });
    offs.push(off);
    const sim = new SimRobot({
      brokerUrl: proxy.url,
      password: w.mqttPassword,
      manufacturer: w.robot.manufacturer,
      serialNumber: w.robot.serialNumber,
      mapId: w.floorId,
      home: SIM_HOME,
      timeFactor: 20,
      irradiance: 0.3125,
      stateIntervalMs: 200,
      tickMs: 20,
      keepalive: 1,
    });
    sims.push(sim);
    const states: StateMessage[] = [];
    sim.onState((state) => states.push(state));
    await sim.start();
    await waitUntil(async () => (server.context.fleet.link(w.robotId)?.mode === 2 ? true : undefined), 5000, 'the robot online');
    return { sim, proxy, states, received };
  }

  const actionOf = (state: StateMessage, jobId: string, orderNo: number) =>
    state.actionStates.find((action) => action.actionId === disinfectActionId(jobId, orderNo));
  const lampOn = (jobId: string, orderNo: number) => (state: StateMessage) => !state.paused && actionOf(state, jobId, orderNo)?.actionStatus === 'RUNNING';

  /** A person's request, with the server's clock before and after it (the decision's time lies between). */
  async function timed(request: () => Promise<{ status: number }>): Promise<{ from: number; to: number }> {
    const from = Date.now();
    const response = await request();
    const to = Date.now();
    expect(response.status).toBe(200);
    return { from, to };
  }
  const jobCommand = (w: ExecutionWorld, jobId: string, command: string) =>
    timed(() => server.request('POST', `/api/command/job/${jobId}`, { token: w.operator.token, query: { command } }));
  const robotCommand = (w: ExecutionWorld, command: string) =>
    timed(() => server.request('POST', `/api/command/${w.robotId}`, { token: w.operator.token, query: { command } }));
  const ended = (w: ExecutionWorld, jobId: string) =>
    waitUntil(async () => {
      const job = Job.parse((await server.request('GET', `/api/jobs/job/${jobId}`, { token: w.admin.token })).body);
      return job.status === 'Completed' ? job : undefined;
    }, 60_000, 'the job to end');
  const logOf = async (w: ExecutionWorld, jobId: string) => {
    const response = await server.request('GET', `/api/log/${jobId}`, { token: w.operator.token });
    expect(response.status).toBe(200);
    return LogEntry.parse(response.body);
  };
  const within = (event: LoggedJobEvent | undefined, window: { from: number; to: number }) => {
    const at = Date.parse(event?.at ?? '');
    expect(at).toBeGreaterThanOrEqual(window.from - 1);
    expect(at).toBeLessThanOrEqual(window.to + 1);
  };

  it('a pause in a room: two lamp intervals for it, their gap the pause; the log has who paused and resumed, when, and the dose', async () => {
    const w = await executionWorld(server, 1);
    const { sim, states } = await robotFor(w);
    const created = await createJobFor(server, w, { dose: 50 });
    const jobId = created.job_id;
    await timed(() => server.request('POST', '/api/jobs/job/start', { token: w.operator.token, query: { job_id: jobId } }));
    await sim.waitForState(lampOn(jobId, 0), 15_000);
    await sleep(2000);
    // Paused by the job's button, resumed by the robot's: both are a person's, recorded at the decision.
    const pause = await jobCommand(w, jobId, 'pause');
    const paused = await sim.waitForState((state) => state.paused === true, 5000);
    await sleep(1500);
    const resume = await robotCommand(w, 'play');
    const resumed = await sim.waitForState(lampOn(jobId, 0), 5000);
    await ended(w, jobId);

    const lamps = await recordedLampIntervals(server, jobId);
    expect(lamps).toEqual(lampIntervalsInStates(states, jobId));
    expect(lamps.map((lamp) => lamp.order)).toEqual([0, 0]);
    const [first, second] = lamps;
    // The gap is the pause as the robot reported it: from its first paused state to its first state lit again.
    expect(first?.to).toBe(paused.timestamp);
    expect(second?.from).toBe(resumed.timestamp);
    const gap = Date.parse(second?.from ?? '') - Date.parse(first?.to ?? '');
    expect(gap).toBeGreaterThanOrEqual(1400);
    expect(gap).toBeLessThan(4000);
    expect(second?.to).not.toBeNull();

    const log = await logOf(w, jobId);
    expect(log.completion_status).toBe('completed');
    expect(log.events.map((event) => [event.kind, event.actor, event.cause, event.order_no, event.room_id])).toEqual([
      ['started', w.operator.username, 'operator', null, null],
      ['paused', w.operator.username, 'operator', 0, w.roomIds[0]],
      ['resumed', w.operator.username, 'operator', 0, w.roomIds[0]],
    ]);
    const [, pausedEvent, resumedEvent] = log.events;
    within(pausedEvent, pause);
    within(resumedEvent, resume);
    // About 2 s of a room of 8 s had run: some of its 50 J/m², by the robot's reports.
    expect(pausedEvent?.dose ?? 0).toBeGreaterThan(0);
    expect(pausedEvent?.dose ?? 50).toBeLessThan(50);
    expect(resumedEvent?.dose ?? 0).toBeGreaterThanOrEqual(pausedEvent?.dose ?? 0);
    expect(resumedEvent?.dose ?? 50).toBeLessThan(50);
  }, 60_000);

  it("a finished job's log shows every kind of interruption with its time, cause, who acted and the dose", async () => {
    const w = await executionWorld(server, 3);
    const { sim, proxy, states, received } = await robotFor(w);
    const [room0, room1, room2] = w.roomIds;
    if (!room0 || !room1 || !room2) throw new Error('world without rooms');
    const created = await createJobFor(server, w, { dose: 50 });
    const jobId = created.job_id;
    const start = await timed(() => server.request('POST', '/api/jobs/job/start', { token: w.operator.token, query: { job_id: jobId } }));

    // Room 0: a person pauses and resumes.
    await sim.waitForState(lampOn(jobId, 0), 15_000);
    await sleep(1000);
    const pause = await jobCommand(w, jobId, 'pause');
    await sim.waitForState((state) => state.paused === true, 5000);
    const resume = await jobCommand(w, jobId, 'resume');
    await sim.waitForState(lampOn(jobId, 0), 5000);

    // Room 0: the link is lost for longer than a robot's report gap; the robot's dead man's switch turns the lamp
    // off and pauses it on its own; back, it reports uvd_link_lost until a person resumes it.
    await sleep(1000);
    proxy.cut();
    await sleep(LAMP_REPORT_GAP_MS + 1000);
    // The last state the server heard before the link went, with the lamp on: read at the end of the outage, as a
    // state already past the proxy when it cut may reach the server a moment later (on a busy machine, hundreds of
    // milliseconds: read at the cut, it was one state short).
    const lastLitBeforeCut = received.at(-1);
    expect(lastLitBeforeCut && lampOn(jobId, 0)(lastLitBeforeCut)).toBe(true);
    proxy.heal();
    const back = await sim.waitForState((state) => state.errors.some((error) => error.errorType === 'uvd_link_lost'), 10_000);
    await waitUntil(async () => {
      const [job] = await server.context.db.select({ activeState: jobs.activeState }).from(jobs).where(eq(jobs.id, jobId));
      return job?.activeState === 'paused' ? true : undefined;
    }, 10_000, 'the job paused');
    // Room 1 is set not ready while room 0 is still under way: the robot asks at its door.
    const notReady = await timed(() =>
      server.request('PATCH', '/api/rooms/room/ready', {
        token: w.operator.token,
        body: { rooms: [{ room_id: room1, ready_for_disinfection: false }] },
      }),
    );
    const play = await robotCommand(w, 'play');
    await sim.waitForState(lampOn(jobId, 0), 5000);

    const asked = await waitUntil(async () => {
      const response = await server.request('GET', '/api/action/action', { token: w.operator.token, query: { job_id: jobId } });
      return response.status === 200 ? Action.parse(response.body) : undefined;
    }, 30_000, 'the prompt');
    const skip = await timed(() =>
      server.request('POST', '/api/action/action/confirm', { token: w.operator.token, body: { action_id: asked.action_id, confirm: false } }),
    );

    // Room 2: stopped by a person while its lamp is on.
    await sim.waitForState(lampOn(jobId, 2), 15_000);
    await sleep(1000);
    const stop = await jobCommand(w, jobId, 'stop');
    await ended(w, jobId);

    const log = await logOf(w, jobId);
    expect(log.completion_status).toBe('aborted');
    expect(log.attributes.rooms.map((room) => room.state)).toEqual(['done', 'not_ready', 'aborted']);
    const user = w.operator.username;
    expect(log.events.map((event) => [event.kind, event.actor, event.cause, event.order_no, event.room_id])).toEqual([
      ['started', user, 'operator', null, null],
      ['paused', user, 'operator', 0, room0],
      ['resumed', user, 'operator', 0, room0],
      ['fault', null, 'uvd_link_lost', 0, room0],
      ['paused', null, 'robot', 0, room0],
      ['room_not_ready', user, null, 1, room1],
      ['resumed', user, 'operator', 0, room0],
      ['prompt_asked', null, 'wait_to_enter', 1, room1],
      ['prompt_answered', user, 'skip', 1, room1],
      ['room_skipped', user, 'not_ready', 1, room1],
      ['stopped', user, 'operator', 2, room2],
    ]);
    const [started, paused, resumed, fault, robotPaused, roomNotReady, played, promptAsked, answered, skipped, stopped] = log.events;
    // A person's acts at their decision; the robot's at its own time of the state that first reported them.
    within(started, start);
    within(paused, pause);
    within(resumed, resume);
    within(roomNotReady, notReady);
    within(played, play);
    within(answered, skip);
    within(stopped, stop);
    expect(fault?.at).toBe(back.timestamp);
    expect(robotPaused?.at).toBe(back.timestamp);
    const firstAsking = states.find((state) => (state.information ?? []).some((info) => info.infoType === UVD_PROMPT_INFO_TYPE));
    expect(promptAsked?.at).toBe(firstAsking?.timestamp);
    expect(Date.parse(skipped?.at ?? '')).toBeGreaterThanOrEqual(Date.parse(answered?.at ?? ''));
    // Doses: room 0's grows over its interruptions and stays below its 50 J/m² meanwhile; room 1 got none; room 2
    // had some when it was stopped.
    const room0Doses = [paused, resumed, fault, robotPaused, played].map((event) => event?.dose ?? -1);
    expect(room0Doses.every((dose) => dose > 0 && dose < 50)).toBe(true);
    expect([...room0Doses].sort((a, b) => a - b)).toEqual(room0Doses);
    expect(promptAsked?.dose ?? null).toBeNull();
    expect(answered?.dose ?? null).toBeNull();
    expect(skipped?.dose ?? 0).toBe(0);
    expect(stopped?.dose ?? 0).toBeGreaterThan(0);
    expect(stopped?.dose ?? 50).toBeLessThan(50);

    // The fault is no longer open once the robot stopped reporting it.
    const [faultRow] = await server.context.db
      .select({ details: jobEvents.details })
      .from(jobEvents)
      .where(and(eq(jobEvents.jobId, jobId), eq(jobEvents.kind, 'fault')));
    expect(faultRow?.details).toMatchObject({ cause: 'uvd_link_lost', level: 'WARNING' });
    expect(typeof faultRow?.details.cleared_at).toBe('string');

    // Lamp intervals: room 0 three times (the person's pause, the lost link), room 2 once, closed by the stop. The
    // robot's states say when each switch happened, but for the lost link: its interval ends at the last state
    // heard with the lamp on, not when the robot came back and said it was off.
    const lamps = await recordedLampIntervals(server, jobId);
    const robotSays = lampIntervalsInStates(states, jobId);
    expect(lamps.map((lamp) => lamp.order)).toEqual([0, 0, 0, 2]);
    expect(robotSays.map((lamp) => lamp.order)).toEqual([0, 0, 0, 2]);
    expect(lamps[1]?.to).toBe(lastLitBeforeCut?.timestamp);
    expect(robotSays[1]?.to).toBe(back.timestamp);
    expect([lamps[0], lamps[2], lamps[3]]).toEqual([robotSays[0], robotSays[2], robotSays[3]]);
    expect(lamps[1]?.from).toBe(robotSays[1]?.from);
  }, 120_000);
});

describe('interruptions from states seen twice, late, by two processes and after a restart', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ schedulerPollMs: 50 });
  });
  afterAll(async () => {
    await server.close();
  });

  it('records each lamp switch and fault once, ignores a late state, and a restarted process goes on from the table', async () => {
    const w = await executionWorld(server, 1);
    const created = await createJobFor(server, w);
    const jobId = created.job_id;
    await server.context.db
      .update(jobs)
      .set({ status: 'Running', activeState: 'disinfecting', startedAt: new Date(Date.now() - 60_000) })
      .where(eq(jobs.id, jobId));
    const fail = (error: unknown) => {
      throw error;
    };
    // Two server processes handling the robot's states (a shared subscription), and later a restarted one.
    const first = createJobRunner(server.context, fail);
    const second = createJobRunner(server.context, fail);
    const t0 = Date.parse('2026-03-01T10:00:00.000Z');
    const at = (seconds: number) => new Date(t0 + seconds * 1000).toISOString();
    const lit = (seconds: number, extra: Partial<StateMessage> = {}) =>
      robotState(w, { orderId: jobId, timestamp: at(seconds), actionStates: [disinfectState(jobId, 0, 'RUNNING')], ...extra });
    const pausedState = (seconds: number, extra: Partial<StateMessage> = {}) =>
      robotState(w, { orderId: jobId, timestamp: at(seconds), paused: true, actionStates: [disinfectState(jobId, 0, 'PAUSED')], ...extra });
    const blocked = [{ errorType: 'uvd_path_blocked', errorLevel: 'WARNING' as const }];

    await first.handleState(w.robot, lit(0));
    await second.handleState(w.robot, lit(0.2));
    await first.handleState(w.robot, lit(0.2));
    await first.handleState(w.robot, lit(0.4, { errors: blocked }));
    await second.handleState(w.robot, lit(0.6, { errors: blocked }));
    // The robot pauses itself at 1 s; the same state reaches both processes.
    const pause = pausedState(1, { errors: blocked });
    await first.handleState(w.robot, pause);
    await second.handleState(w.robot, pause);
    // A late copy of a state from before the pause changes nothing.
    await second.handleState(w.robot, lit(0.8, { errors: blocked }));
    expect(await recordedLampIntervals(server, jobId)).toEqual([{ order: 0, from: at(0), to: at(1) }]);

    // A restarted process knows nothing but the tables: the robot resumes, clears its fault, and goes on.
    const restarted = createJobRunner(server.context, fail);
    await restarted.handleState(w.robot, lit(3));
    await restarted.handleState(w.robot, lit(3.2));
    await first.handleState(w.robot, lit(3.4));
    expect(await recordedLampIntervals(server, jobId)).toEqual([
      { order: 0, from: at(0), to: at(1) },
      { order: 0, from: at(3), to: null },
    ]);
    // The fault comes back: a new fault event.
    await restarted.handleState(w.robot, lit(4, { errors: blocked }));
    await restarted.handleState(w.robot, robotState(w, { orderId: jobId, timestamp: at(5), actionStates: [disinfectState(jobId, 0, 'FINISHED')] }));
    await ended(jobId);

    const log = LogEntry.parse((await server.request('GET', `/api/log/${jobId}`, { token: w.operator.token })).body);
    expect(log.events.map((event) => [event.kind, event.actor, event.cause, event.at])).toEqual([
      ['fault', null, 'uvd_path_blocked', at(0.4)],
      ['paused', null, 'robot', at(1)],
      ['resumed', null, 'robot', at(3)],
      ['fault', null, 'uvd_path_blocked', at(4)],
    ]);
    // The job's end closed the last interval, at the room's end as the robot reported it (no dose info here: the
    // state's time).
    expect(await recordedLampIntervals(server, jobId)).toEqual([
      { order: 0, from: at(0), to: at(1) },
      { order: 0, from: at(3), to: at(5) },
    ]);
  });

  it("closes a lamp interval still open at the job's end at the end, and a link lost for long at the last state with the lamp on", async () => {
    const w = await executionWorld(server, 2);
    const created = await createJobFor(server, w);
    const jobId = created.job_id;
    await server.context.db
      .update(jobs)
      .set({ status: 'Running', activeState: 'disinfecting', startedAt: new Date(Date.now() - 60_000) })
      .where(eq(jobs.id, jobId));
    const jobRunner = createJobRunner(server.context, (error) => {
      throw error;
    });
    const t0 = Date.parse('2026-03-01T11:00:00.000Z');
    const at = (seconds: number) => new Date(t0 + seconds * 1000).toISOString();
    const state = (seconds: number, statuses: readonly ActionState['actionStatus'][], extra: Partial<StateMessage> = {}) =>
      robotState(w, {
        orderId: jobId,
        timestamp: at(seconds),
        actionStates: statuses.map((status, orderNo) => disinfectState(jobId, orderNo, status)),
        ...extra,
      });
    await jobRunner.handleState(w.robot, state(0, ['RUNNING', 'WAITING']));
    await jobRunner.handleState(w.robot, state(1, ['RUNNING', 'WAITING']));
    // Silent for 20 s (a lost link), then paused by its dead man's switch.
    await jobRunner.handleState(w.robot, state(21, ['PAUSED', 'WAITING'], { paused: true }));
    await jobRunner.handleState(w.robot, state(22, ['RUNNING', 'WAITING']));
    // Cancelled with room 0's lamp on (the job's stop): the job ends at the cancel, closing the interval there.
    await jobRunner.handleState(
      w.robot,
      state(25, ['FAILED', 'FAILED'], {
        actionStates: [
          disinfectState(jobId, 0, 'FAILED', 'aborted'),
          disinfectState(jobId, 1, 'FAILED', 'aborted'),
          { actionId: `cancel-${jobId}-x`, actionType: 'cancelOrder', actionStatus: 'FINISHED' },
        ],
      }),
    );
    await ended(jobId);
    expect(await recordedLampIntervals(server, jobId)).toEqual([
      { order: 0, from: at(0), to: at(1) },
      { order: 0, from: at(22), to: at(25) },
    ]);
  });

  const ended = (jobId: string) =>
    waitUntil(async () => {
      const [job] = await server.context.db.select({ status: jobs.status }).from(jobs).where(eq(jobs.id, jobId));
      return job?.status === 'Completed' ? true : undefined;
    }, 5000, 'the job to end');
});
