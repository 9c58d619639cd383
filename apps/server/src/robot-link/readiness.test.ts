/**
 * A room set not ready (or ready again) during a running job, on a simulated robot over real MQTT (embedded
 * broker): what the robot does is read from every state it publishes, what the console sees through the API.
 */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SimRobot } from '@uvd/robot-sim';
import { Action, Job, LogEntry, UVD_PROMPT_INFO_TYPE, type StateMessage } from '@uvd/contracts';
import { jobs } from '../db/schema.ts';
import {
  createJobFor,
  executionWorld,
  lampIntervalsInStates,
  playWorldRobot,
  recordedLampIntervals,
  waitUntil,
  type ExecutionWorld,
} from '../testing/execution-fixtures.ts';
import { startTestServer, type TestServer } from '../testing/harness.ts';
import { disinfectActionId, roomNodeId } from './order.ts';

// Side by side (concurrent): each test has its own organization and robot, and mostly waits for it (37 -> 20 s).
describe('room readiness during a running job (simulated robot, embedded broker)', { concurrent: true }, () => {
  let server: TestServer;
  const sims: SimRobot[] = [];
  beforeAll(async () => {
    server = await startTestServer({ schedulerPollMs: 50 });
  });
  afterAll(async () => {
    await Promise.all(sims.map((sim) => sim.stop()));
    await server.close();
  });

  /** A robot whose every published state is kept, so a lamp switched on even for one state is seen. */
  async function robotFor(w: ExecutionWorld, timeFactor: number, irradiance = 0.5): Promise<{ sim: SimRobot; states: StateMessage[] }> {
    const states: StateMessage[] = [];
    const sim = await playWorldRobot(server, w, sims, { timeFactor, irradiance });
    sim.onState((state) => states.push(state));
    return { sim, states };
  }

  const actionOf = (state: StateMessage, jobId: string, orderNo: number) =>
    state.actionStates.find((action) => action.actionId === disinfectActionId(jobId, orderNo));
  const start = async (w: ExecutionWorld, jobId: string) => {
    const response = await server.request('POST', '/api/jobs/job/start', { token: w.operator.token, query: { job_id: jobId } });
    expect(response.status).toBe(200);
  };
  const setReady = async (w: ExecutionWorld, roomId: string, ready: boolean) => {
    const response = await server.request('PATCH', '/api/rooms/room/ready', {
      token: w.operator.token,
      body: { rooms: [{ room_id: roomId, ready_for_disinfection: ready }] },
    });
    expect(response.status).toBe(200);
  };
  const prompt = (w: ExecutionWorld, jobId: string) =>
    waitUntil(async () => {
      const response = await server.request('GET', '/api/action/action', { token: w.operator.token, query: { job_id: jobId } });
      return response.status === 200 ? Action.parse(response.body) : undefined;
    }, 15_000, 'the prompt');
  const answer = async (w: ExecutionWorld, action: Action, confirm: boolean) => {
    const response = await server.request('POST', '/api/action/action/confirm', { token: w.operator.token, body: { action_id: action.action_id, confirm } });
    expect(response.status).toBe(200);
  };
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
  const orderUpdateId = async (jobId: string) =>
    (await server.context.db.select({ id: jobs.orderUpdateId }).from(jobs).where(eq(jobs.id, jobId)))[0]?.id;

  it('a room set not ready while the robot drives to it: the robot asks at it, never irradiates it, skip logs not_ready and who changed it', async () => {
    const w = await executionWorld(server);
    // 4× time: the 5 m from room 0 to room 1 take 2.5 s, the time the change has to reach the robot before it is
    // there. At 10× (one second) a loaded CI machine (the PostgreSQL suite beside the browser tests) once took longer
    // from the PATCH's commit to the robot, which then switched its lamp on in room 1 until the change arrived.
    const { sim, states } = await robotFor(w, 4);
    const created = await createJobFor(server, w, { dose: 10 });
    await start(w, created.job_id);
    const [room0, room1] = w.roomIds;
    if (!room0 || !room1) throw new Error('world without rooms');
    await sim.waitForState((state) => state.lastNodeId === roomNodeId(0, room0) && state.driving, 15_000);
    const before = Date.now();
    await setReady(w, room1, false);
    const after = Date.now();

    const asked = await prompt(w, created.job_id);
    expect(asked.button.text).toBe('wait_to_enter');
    expect(sim.model.prompt).toMatchObject({ roomId: room1, actionId: disinfectActionId(created.job_id, 1) });
    expect(sim.state).toMatchObject({ lastNodeId: roomNodeId(1, room1), orderUpdateId: 1 });
    expect(await orderUpdateId(created.job_id)).toBe(1);
    const answeredFrom = Date.now();
    await answer(w, asked, false);
    const answeredTo = Date.now();
    await ended(w, created.job_id);

    // The lamp never ran in room 1, in any state the robot published.
    expect(states.filter((state) => actionOf(state, created.job_id, 1)?.actionStatus === 'RUNNING')).toEqual([]);
    const log = await logOf(w, created.job_id);
    expect(log.attributes.rooms.map((room) => room.state)).toEqual(['done', 'not_ready', 'done']);
    expect(log.completion_status).toBe('completed');
    // Who set it not ready, the robot's question at its door, who answered skip, and the room skipped for it.
    expect(log.events.map((event) => [event.kind, event.actor, event.order_no, event.room_id, event.cause ?? null])).toEqual([
      ['started', w.operator.username, null, null, 'operator'],
      ['room_not_ready', w.operator.username, 1, room1, null],
      ['prompt_asked', null, 1, room1, 'wait_to_enter'],
      ['prompt_answered', w.operator.username, 1, room1, 'skip'],
      ['room_skipped', w.operator.username, 1, room1, 'not_ready'],
    ]);
    const [, notReady, promptAsked, answered, skipped] = log.events;
    expect(notReady?.dose).toBeNull();
    const at = Date.parse(notReady?.at ?? '');
    expect(at).toBeGreaterThanOrEqual(before - 1);
    expect(at).toBeLessThanOrEqual(after + 1);
    // Asked at the robot's time of the first state that carried the prompt.
    const firstAsking = states.find((state) => (state.information ?? []).some((info) => info.infoType === UVD_PROMPT_INFO_TYPE));
    expect(promptAsked?.at).toBe(firstAsking?.timestamp);
    expect(Date.parse(answered?.at ?? '')).toBeGreaterThanOrEqual(answeredFrom - 1);
    expect(Date.parse(answered?.at ?? '')).toBeLessThanOrEqual(answeredTo + 1);
    // Skipped when the robot gave the room up (its own time, after the answer reached it), with no UV-C given.
    expect(Date.parse(skipped?.at ?? '')).toBeGreaterThanOrEqual(Date.parse(answered?.at ?? ''));
    expect(skipped?.dose ?? 0).toBe(0);
    // The lamp ran in rooms 0 and 2 only, once each, exactly as the robot's states show it.
    const lamps = await recordedLampIntervals(server, created.job_id);
    expect(lamps.map((lamp) => lamp.order)).toEqual([0, 2]);
    expect(lamps).toEqual(lampIntervalsInStates(states, created.job_id));
  });

  it('a room set not ready while the robot irradiates it: the lamp is off within 2 s, it asks, and confirm gives the rest of the dose', async () => {
    const w = await executionWorld(server, 1);
    // 20× time: the room's dose of 50 J/m² at 0.3125 W/m² takes 160 s, 8 s here; it is set not ready halfway,
    // so a robot that ignored it would switch its lamp off only 4 s later.
    const { sim, states } = await robotFor(w, 20, 0.3125);
    const created = await createJobFor(server, w, { dose: 50 });
    await start(w, created.job_id);
    const [room0] = w.roomIds;
    if (!room0) throw new Error('world without rooms');
    await sim.waitForState((state) => actionOf(state, created.job_id, 0)?.actionStatus === 'RUNNING', 15_000);
    await new Promise((resolve) => setTimeout(resolve, 4000));
    const notReadyAt = Date.now();
    await setReady(w, room0, false);
    const off = await sim.waitForState((state) => actionOf(state, created.job_id, 0)?.actionStatus !== 'RUNNING', 5000);
    expect(Date.now() - notReadyAt).toBeLessThan(2000);
    expect(actionOf(off, created.job_id, 0)?.actionStatus).toBe('PAUSED');

    const asked = await prompt(w, created.job_id);
    expect(asked.button.text).toBe('wait_to_enter');
    expect(sim.model.prompt).toMatchObject({ roomId: room0 });
    // Nobody answers yet: the lamp stays off, in every state the robot publishes meanwhile.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const waiting = states.slice(states.indexOf(off));
    expect(waiting.length).toBeGreaterThan(3);
    expect(waiting.map((state) => actionOf(state, created.job_id, 0)?.actionStatus)).toEqual(waiting.map(() => 'PAUSED'));

    const confirmedAt = Date.now();
    await answer(w, asked, true);
    await sim.waitForState((state) => actionOf(state, created.job_id, 0)?.actionStatus === 'FINISHED', 10_000);
    // The rest of the dose (about 4 s here), not the whole of it again (8 s).
    expect(Date.now() - confirmedAt).toBeGreaterThan(3000);
    expect(Date.now() - confirmedAt).toBeLessThan(6500);
    await ended(w, created.job_id);
    const log = await logOf(w, created.job_id);
    expect(log.attributes.rooms.map((room) => room.state)).toEqual(['done']);
    expect(log.events.map((event) => [event.kind, event.actor, event.room_id, event.cause ?? null])).toEqual([
      ['started', w.operator.username, null, 'operator'],
      ['room_not_ready', w.operator.username, room0, null],
      ['prompt_asked', null, room0, 'wait_to_enter'],
      ['prompt_answered', w.operator.username, room0, 'confirm'],
    ]);
    // The dose the room had by the robot's last report when it was set not ready: about half of it, some way in;
    // the same when it asked and when it was answered (its lamp was off meanwhile).
    const [, notReadyEvent, askedEvent, answeredEvent] = log.events;
    expect(notReadyEvent?.dose ?? 0).toBeGreaterThan(5);
    expect(notReadyEvent?.dose ?? 50).toBeLessThan(50);
    expect(askedEvent?.dose ?? 0).toBeGreaterThanOrEqual(notReadyEvent?.dose ?? 0);
    expect(askedEvent?.dose ?? 50).toBeLessThan(50);
    expect(answeredEvent?.dose).toBe(askedEvent?.dose);

    // The room's lamp interval closed at the state that showed the lamp off, and a second one ran after the confirm.
    const lamps = await recordedLampIntervals(server, created.job_id);
    expect(lamps).toEqual(lampIntervalsInStates(states, created.job_id));
    expect(lamps.map((lamp) => lamp.order)).toEqual([0, 0]);
    expect(lamps[0]?.to).toBe(off.timestamp);
    expect(Date.parse(lamps[1]?.from ?? '')).toBeGreaterThanOrEqual(confirmedAt - 1);
  });

  it('a room set not ready and ready again before the robot gets there is disinfected without asking', async () => {
    const w = await executionWorld(server);
    const { sim, states } = await robotFor(w, 10);
    const created = await createJobFor(server, w, { dose: 10 });
    await start(w, created.job_id);
    const [room0, , room2] = w.roomIds;
    if (!room0 || !room2) throw new Error('world without rooms');
    await sim.waitForState((state) => actionOf(state, created.job_id, 0)?.actionStatus === 'RUNNING', 15_000);
    await setReady(w, room2, false);
    await setReady(w, room2, true);
    await sim.waitForState((state) => state.orderUpdateId === 2, 5000);
    expect(await orderUpdateId(created.job_id)).toBe(2);
    await ended(w, created.job_id);
    expect(states.some((state) => (state.information ?? []).some((info) => info.infoType === UVD_PROMPT_INFO_TYPE))).toBe(false);
    const log = await logOf(w, created.job_id);
    expect(log.attributes.rooms.map((room) => room.state)).toEqual(['done', 'done', 'done']);
    expect(log.events.map((event) => [event.kind, event.order_no])).toEqual([
      ['started', null],
      ['room_not_ready', 2],
      ['room_ready', 2],
    ]);
  });
});
