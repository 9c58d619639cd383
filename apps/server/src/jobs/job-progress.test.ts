/**
 * The shift view's figures over the real API: a job's progress while a simulated robot runs it and waits at a
 * room not ready, the waiting prompt as the console's banner lists it, and what is left once the job ended.
 */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SimRobot } from '@uvd/robot-sim';
import { Job, RobotList, WaitingActionList } from '@uvd/contracts';
import { events, rooms } from '../db/schema.ts';
import { createJobFor, executionWorld, playWorldRobot, waitUntil, type ExecutionWorld } from '../testing/execution-fixtures.ts';
import { startTestServer, type TestServer } from '../testing/harness.ts';
import { jobProgress, type ProgressRoom } from './job-progress.ts';

describe('job progress and waiting prompts (API, simulated robot)', () => {
  let server: TestServer;
  const sims: SimRobot[] = [];
  beforeAll(async () => {
    server = await startTestServer({ schedulerPollMs: 50 });
  });
  afterAll(async () => {
    await Promise.all(sims.map((sim) => sim.stop()));
    await server.close();
  });

  const robotFor = (w: ExecutionWorld) => playWorldRobot(server, w, sims);
  const getJob = async (w: ExecutionWorld, jobId: string, token = w.operator.token) =>
    Job.parse((await server.request('GET', `/api/jobs/job/${jobId}`, { token, query: { extra_room_data: true } })).body);
  const waiting = async (token: string) => {
    const response = await server.request('GET', '/api/action/actions/waiting', { token });
    expect(response.status).toBe(200);
    return WaitingActionList.parse(response.body).payload;
  };

  it('reports the current room, rooms finished, dose delivered and an ETA while the robot waits, and lists the prompt by robot and room', async () => {
    const w = await executionWorld(server);
    await robotFor(w);
    const [, notReadyRoom] = w.roomIds;
    await server.context.db.update(rooms).set({ readyForDisinfection: false }).where(eq(rooms.id, notReadyRoom ?? ''));
    const created = await createJobFor(server, w, { dose: 10 });
    expect(created.progress).toBeUndefined();
    const startedAt = Date.now();
    expect((await server.request('POST', '/api/jobs/job/start', { token: w.operator.token, query: { job_id: created.job_id } })).status).toBe(200);

    const [prompt] = await waitUntil(async () => {
      const list = await waiting(w.operator.token);
      return list.length > 0 ? list : undefined;
    }, 15_000, 'the waiting prompt');
    const [, roomName] = (await getJob(w, created.job_id)).rooms.map((room) => room.room_name);
    expect(prompt).toMatchObject({
      job_id: created.job_id,
      job_name: 'Ward round',
      robot_id: w.robotId,
      room_id: notReadyRoom,
      room_name: roomName,
      button: { text: 'wait_to_enter', disabled: false },
    });
    expect(prompt?.robot_name).toEqual(expect.any(String));

    const running = await getJob(w, created.job_id);
    // Waiting at its door, the robot has not started the room: the room is pending, and the current one.
    expect(running.rooms.map((room) => room.state)).toEqual(['done', 'pending', 'pending']);
    // It stands at the door asking: waiting, neither in the room nor idle.
    expect(running.progress).toMatchObject({
      current_room: { room_id: notReadyRoom, order_no: 1, room_name: roomName, phase: 'waiting' },
      rooms_total: 3,
      rooms_finished: 1,
      rooms_disinfected: 1,
      dose_delivered: 10,
      dose_total: 30,
    });
    const robotList = RobotList.parse((await server.request('GET', '/api/robot/robot/robots', { token: w.operator.token })).body);
    expect(robotList.payload.find((robot) => robot.robot_id === w.robotId)?.status).toBe('waiting');
    const eta = Date.parse(running.progress?.eta ?? '');
    expect(eta).toBeGreaterThan(startedAt);
    // The job's live change carries the same figures: the list updates without a reload.
    const changes = await server.context.db.select({ type: events.type, payload: events.payload }).from(events).where(eq(events.key, created.job_id));
    const lastChange = changes.filter((change) => change.type === 'job_change').map((change) => Job.parse(change.payload)).at(-1);
    expect(lastChange?.progress).toMatchObject({ rooms_finished: 1, dose_delivered: 10 });

    // Another organization sees none of it.
    const other = await executionWorld(server);
    expect(await waiting(other.operator.token)).toEqual([]);

    const decided = await server.request('POST', '/api/action/action/confirm', {
      token: w.operator.token,
      body: { action_id: prompt?.action_id, confirm: false },
    });
    expect(decided.status).toBe(200);
    // Answered, the prompt leaves the banner at once, before the robot stops asking.
    expect(await waiting(w.operator.token)).toEqual([]);

    const ended = await waitUntil(async () => {
      const job = await getJob(w, created.job_id);
      return job.status === 'Completed' ? job : undefined;
    }, 20_000, 'the job to end');
    expect(ended.rooms.map((room) => room.state)).toEqual(['done', 'not_ready', 'done']);
    expect(ended.progress).toEqual({
      current_room: null,
      rooms_total: 3,
      rooms_finished: 3,
      rooms_disinfected: 2,
      dose_delivered: 20,
      dose_total: 30,
      eta: null,
    });
  });
});

describe('jobProgress', () => {
  const room = (order_no: number, state: ProgressRoom['state'], endedAt: number | null = null): ProgressRoom => ({
    room_id: `00000000-0000-4000-8000-00000000000${String(order_no)}`,
    order_no,
    room_name: `Room ${String(order_no)}`,
    dose: 10,
    state,
    ended_at: endedAt === null ? null : new Date(endedAt),
  });
  const start = new Date('2026-01-01T10:00:00Z');

  it('estimates the end from the pace of the rooms finished so far', () => {
    const progress = jobProgress([room(0, 'done', start.getTime() + 10 * 60_000), room(1, 'active'), room(2, 'pending')], start, true);
    expect(progress.eta).toBe('2026-01-01T10:30:00.000Z');
    expect(progress.current_room?.order_no).toBe(1);
  });

  it('gives no estimate before a room finished, and the next room once none is active', () => {
    const progress = jobProgress([room(0, 'pending'), room(1, 'pending')], start, true);
    expect(progress).toMatchObject({ eta: null, rooms_finished: 0, current_room: { order_no: 0 } });
  });

  it('says the robot is on its way to the next room, waiting at its door while it asks, and in it only once the room started', () => {
    const ahead = [room(0, 'done', start.getTime() + 60_000), room(1, 'pending')];
    expect(jobProgress(ahead, start, true).current_room).toMatchObject({ order_no: 1, phase: 'on_the_way' });
    expect(jobProgress(ahead, start, true, true).current_room).toMatchObject({ order_no: 1, phase: 'waiting' });
    expect(jobProgress([room(0, 'done', start.getTime() + 60_000), room(1, 'active')], start, true).current_room).toMatchObject({
      order_no: 1,
      phase: 'in_room',
    });
  });
});
