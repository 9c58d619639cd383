/**
 * The dose map of a log: computed when the job ends (robot-link/repository.ts writeLog, in the ending
 * transaction) from the lamp intervals and the recorded path, and served by GET /log/:id/dose with the log's
 * visibility. The job runner records lamp intervals and path points as the robot reports; here they are inserted
 * as it would, with the robot's clock 5 minutes ahead of the server's.
 */
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, LogDose, LogEntry, type LampModel } from '@uvd/contracts';
import { jobRooms, jobs, lampIntervals, logs, robots, rooms, trajectoryPoints } from '../db/schema.ts';
import { DEFAULT_LAMP } from '../dose/lamp.ts';
import { REFERENCE_HEIGHT_M } from '../dose/model.ts';
import { finishJob } from '../robot-link/lifecycle.ts';
import { lockJob } from '../robot-link/repository.ts';
import { createJobFor, executionWorld, type ExecutionWorld } from '../testing/execution-fixtures.ts';
import { startRouteTestServer, type TestServer } from '../testing/harness.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startRouteTestServer();
});
afterAll(async () => {
  await server.close();
});

/** 1 W/sr evenly from a point at the reference height: E = 1/r² W/m². */
const POINT_LAMP: LampModel = { uvc_power_w: 4 * Math.PI, height_m: REFERENCE_HEIGHT_M, length_m: 0.001, radial_profile: [1] };

const SERVER_START = new Date('2030-03-01T08:00:00Z');
const ROBOT_START = new Date(SERVER_START.getTime() + 5 * 60_000); // the robot's clock runs 5 min ahead
const robotTime = (seconds: number) => new Date(ROBOT_START.getTime() + seconds * 1000);

/**
 * A 2-room job (rooms 4 × 4 m at x 0–4 and 5–9, entry points at their centres) that ran on the world's robot:
 * 60 s of lamp in room 0 from its centre (closed), then room 1 from its centre until the job ended 30 s later
 * with that interval still open; room 1 aborted.
 */
async function endedJob(w: ExecutionWorld, options: { intervals?: boolean; lamp?: LampModel | null } = {}): Promise<string> {
  const db = server.context.db;
  if (options.lamp !== undefined) await db.update(robots).set({ lamp: options.lamp }).where(eq(robots.id, w.robotId));
  const job = await createJobFor(server, w, { roomIds: w.roomIds.slice(0, 2), dose: 10 });
  await db.update(jobs).set({ status: 'Running', startedAt: SERVER_START, robotStartedAt: ROBOT_START }).where(eq(jobs.id, job.job_id));
  // The path's `t` is seconds since the server's start: the first point came with the robot's first report, 2 s in.
  const path = [
    { t: 2, x: 0, y: -2 },
    { t: 12, x: 2, y: 2 },
    { t: 82, x: 7, y: 2 },
  ];
  await db.insert(trajectoryPoints).values(path.map((point) => ({ jobId: job.job_id, floorId: w.floorId, ...point })));
  if (options.intervals !== false) {
    await db.insert(lampIntervals).values([
      { jobId: job.job_id, orderNo: 0, startedAt: robotTime(10), endedAt: robotTime(70) },
      { jobId: job.job_id, orderNo: 1, startedAt: robotTime(80), endedAt: null },
    ]);
  }
  await db.update(jobRooms).set({ state: 'done', doseReceived: 10 }).where(eq(jobRooms.jobId, job.job_id));
  await db.update(jobRooms).set({ state: 'aborted', doseReceived: 2 }).where(and(eq(jobRooms.jobId, job.job_id), eq(jobRooms.orderNo, 1)));
  await db.transaction(async (tx) => {
    const locked = await lockJob(tx, w.orgId, job.job_id);
    if (!locked) throw new Error('job missing');
    await finishJob(server.context, tx, locked, 'aborted', { endedAt: robotTime(110) });
  });
  return job.job_id;
}

const getDose = (token: string, jobId: string) => server.request('GET', `/api/log/${jobId}/dose`, { token });

describe('the dose map of a log', () => {
  it('is computed when the job ends: each room from its own lamp time, an open interval ending with the job', async () => {
    const w = await executionWorld(server, 2);
    const jobId = await endedJob(w, { lamp: POINT_LAMP });
    const response = await getDose(w.operator.token, jobId);
    expect(response.status).toBe(200);
    const dose = LogDose.parse(response.body);
    expect(dose.lamp).toEqual(POINT_LAMP);
    expect(dose.lamp_intervals).toEqual([
      { order: 0, from: robotTime(10).toISOString(), to: robotTime(70).toISOString() },
      { order: 1, from: robotTime(80).toISOString(), to: robotTime(110).toISOString() },
    ]);
    const [first, second] = dose.rooms;
    // Hand-computed: the far corners' cells (centres 1.9 m along both axes from the lamp) get t / 7.22 m².
    expect(first?.stats?.min).toBeCloseTo(60 / 7.22, 1);
    expect(second?.stats?.min).toBeCloseTo(30 / 7.22, 1);
    expect(first?.stats?.coverage).toBeGreaterThan(second?.stats?.coverage ?? 1);
    expect(first).toMatchObject({ order: 0, room_id: w.roomIds[0], floor_id: w.floorId, dose: 10 });
    expect(first?.polygon).toHaveLength(4);
    expect(first?.grid?.values.length).toBe((first?.grid?.columns ?? 0) * (first?.grid?.rows ?? 0));
    // The log entry carries the same figures.
    const log = LogEntry.parse((await server.request('GET', `/api/log/${jobId}`, { token: w.operator.token })).body);
    expect(log.attributes.rooms.map((room) => room.dose_stats)).toEqual([first?.stats, second?.stats]);
    expect(log.attributes.rooms.map((room) => room.state)).toEqual(['done', 'aborted']);
  });

  it('uses the default lamp for a robot without its own', async () => {
    const w = await executionWorld(server, 2);
    const jobId = await endedJob(w, { lamp: null });
    const dose = LogDose.parse((await getDose(w.admin.token, jobId)).body);
    expect(dose.lamp).toEqual(DEFAULT_LAMP);
    expect(dose.rooms.every((room) => (room.stats?.mean ?? 0) > 0)).toBe(true);
  });

  it('is absent (404 saying why) when the rooms lamp ran but no lamp time was recorded', async () => {
    const w = await executionWorld(server, 2);
    const jobId = await endedJob(w, { intervals: false });
    const response = await getDose(w.operator.token, jobId);
    expect(response.status).toBe(404);
    expect(ApiError.parse(response.body).message).toMatch(/no dose map/);
    const log = LogEntry.parse((await server.request('GET', `/api/log/${jobId}`, { token: w.operator.token })).body);
    expect(log.attributes.rooms.map((room) => room.dose_stats)).toEqual([null, null]);
    // The log itself is still written.
    expect(log.completion_status).toBe('aborted');
  });

  it('keeps a deleted room with no polygon and no floor', async () => {
    const w = await executionWorld(server, 2);
    const jobId = await endedJob(w, { lamp: POINT_LAMP });
    await server.context.db.delete(rooms).where(eq(rooms.id, w.roomIds[1] ?? ''));
    const dose = LogDose.parse((await getDose(w.operator.token, jobId)).body);
    expect(dose.rooms[1]).toMatchObject({ room_id: w.roomIds[1], polygon: [], floor_id: null });
    expect(dose.rooms[1]?.stats?.min).toBeCloseTo(30 / 7.22, 1);
  });

  it('is seen as its log is: not by a teleoperator outside the robots groups, nor by another organization', async () => {
    const w = await executionWorld(server, 2);
    const jobId = await endedJob(w);
    const outsider = await server.createUser(w.orgId, ['done-teleoperator'], { groupIds: [await server.createGroup(w.orgId)] });
    const outsiderResponse = await getDose(outsider.token, jobId);
    expect(outsiderResponse.status).toBe(404);
    expect(ApiError.parse(outsiderResponse.body).message).toMatch(/Log was not found/);
    const other = await server.createUser(await server.createOrg(), ['done-superadmin']);
    expect((await getDose(other.token, jobId)).status).toBe(404);
    expect((await getDose(w.admin.token, jobId)).status).toBe(200);
    expect((await getDose(w.admin.token, crypto.randomUUID())).status).toBe(404);
    expect((await getDose(w.admin.token, 'not-an-id')).status).toBe(400);
  });

  it('of a log written before the model is absent', async () => {
    const w = await executionWorld(server, 2);
    const jobId = await endedJob(w);
    await server.context.db.update(logs).set({ dose: null }).where(eq(logs.jobId, jobId));
    expect((await getDose(w.operator.token, jobId)).status).toBe(404);
  });
});
