/**
 * Jobs start only on robots that can run them, and only within their start window (issue #22, defects 6 and 7):
 * the SimRobot (and a raw MQTT robot for a FATAL error) over the embedded broker, checked through the API and
 * the rows a push is made from.
 */
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SimRobot } from '@uvd/robot-sim';
import { Job, LogEntry } from '@uvd/contracts';
import { jobs, organizations, pushEvents } from '../db/schema.ts';
import { createJobFor, executionWorld, playWorldRobot, waitUntil, type ExecutionWorld } from '../testing/execution-fixtures.ts';
import { connectTestRobot } from '../testing/fleet-fixtures.ts';
import { startTestServer, type TestServer } from '../testing/harness.ts';

describe('start conditions and the start window', () => {
  let server: TestServer;
  const sims: SimRobot[] = [];
  beforeAll(async () => {
    server = await startTestServer({ schedulerPollMs: 50 });
  });
  afterAll(async () => {
    await Promise.all(sims.map((sim) => sim.stop()));
    await server.close();
  });

  // Autonomous comes with the robot's first state, which also reports its battery.
  const robotFor = (w: ExecutionWorld, battery = 100) => playWorldRobot(server, w, sims, { battery });

  const job = async (w: ExecutionWorld, jobId: string) =>
    Job.parse((await server.request('GET', `/api/jobs/job/${jobId}`, { token: w.operator.token })).body);
  const logOf = async (w: ExecutionWorld, jobId: string) =>
    LogEntry.parse((await server.request('GET', `/api/log/${jobId}`, { token: w.operator.token })).body);
  const pushesOf = (jobId: string) => server.context.db.select().from(pushEvents).where(eq(pushEvents.jobId, jobId));
  /** Makes the job due now (or at `at`), as if its time had come. */
  const dueAt = (jobId: string, at = new Date()) => server.context.db.update(jobs).set({ startTime: at }).where(eq(jobs.id, jobId));

  it('refuses to start now a job on a robot below the low-battery threshold: 409 robot_battery_low, no order', async () => {
    const w = await executionWorld(server);
    const sim = await robotFor(w, 15);
    const created = await createJobFor(server, w);
    const refused = await server.request('POST', '/api/jobs/job/start', { token: w.operator.token, query: { job_id: created.job_id } });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ error: 'robot_battery_low' });
    expect((await job(w, created.job_id)).status).toBe('Scheduled');
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(sim.state?.orderId).toBe('');
  });

  it('refuses to start now a job on a robot reporting a FATAL error: 409 robot_error, no order sent', async () => {
    const w = await executionWorld(server);
    const robot = await connectTestRobot({
      brokerUrl: server.context.fleet.brokerUrl,
      manufacturer: w.robot.manufacturer,
      serialNumber: w.robot.serialNumber,
      username: `${w.robot.manufacturer}/${w.robot.serialNumber}`,
      password: w.mqttPassword,
    });
    try {
      await robot.publishState({ errors: [{ errorType: 'laserScannerFault', errorLevel: 'FATAL', errorDescription: 'scanner down' }] });
      await waitUntil(async () => (server.context.fleet.isOnline(w.robotId) ? true : undefined), 5000, 'the robot online');
      const created = await createJobFor(server, w);
      const refused = await server.request('POST', `/api/command/job/${created.job_id}`, { token: w.operator.token, query: { command: 'start' } });
      expect(refused.status).toBe(409);
      expect(refused.body).toMatchObject({ error: 'robot_error' });
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(robot.orders).toHaveLength(0);
    } finally {
      await robot.close();
    }
  });

  it('holds a due job on a low battery with the reason and one push, and starts it once the robot charged, keeping its planned start', async () => {
    const w = await executionWorld(server);
    const sim = await robotFor(w, 15);
    const created = await createJobFor(server, w);
    const planned = new Date(Math.floor(Date.now() / 1000) * 1000);
    await dueAt(created.job_id, planned);
    const held = await waitUntil(async () => {
      const current = await job(w, created.job_id);
      return current.not_started_reason ? current : undefined;
    }, 5000, 'the job held');
    expect(held).toMatchObject({ status: 'Scheduled', not_started_reason: 'robot_battery_low', started_at: null });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(sim.state?.orderId).toBe('');
    const pushes = await pushesOf(created.job_id);
    expect(pushes.filter((push) => push.kind === 'job_not_started')).toHaveLength(1);

    sim.setBattery(90);
    const running = await waitUntil(async () => {
      const current = await job(w, created.job_id);
      return current.status === 'Running' ? current : undefined;
    }, 5000, 'the job started');
    expect(running.start_time).toBe(planned.toISOString());
    expect(Date.parse(running.started_at ?? '')).toBeGreaterThan(planned.getTime());
    expect(running.not_started_reason).toBeNull();
    await sim.waitForState((state) => state.orderId === created.job_id);
  });

  it('logs why rooms were not reached when the battery runs low mid-job', async () => {
    const w = await executionWorld(server);
    const sim = await robotFor(w);
    const created = await createJobFor(server, w, { dose: 30 });
    expect((await server.request('POST', '/api/jobs/job/start', { token: w.operator.token, query: { job_id: created.job_id } })).status).toBe(200);
    await sim.waitForState((state) => state.actionStates.some((action) => action.actionType === 'uvd_disinfect' && action.actionStatus === 'RUNNING'));
    sim.setBattery(15);
    const ended = await waitUntil(async () => {
      const current = await job(w, created.job_id);
      return current.status === 'Completed' ? current : undefined;
    }, 20_000, 'the job to end');
    expect(ended.completion_status).toBe('failed');
    const log = await logOf(w, created.job_id);
    expect(log).toMatchObject({ completion_status: 'failed', reason: 'robot_battery_low' });
    expect(log.attributes.rooms.map((room) => room.state)).toContain('not_reached');
  }, 30_000);

  it('misses a job whose robot is away past the start window: never started late, its reason kept, a push and a log', async () => {
    const w = await executionWorld(server);
    const created = await createJobFor(server, w);
    // Due now, the robot never heard from: held as offline.
    await dueAt(created.job_id);
    await waitUntil(async () => ((await job(w, created.job_id)).not_started_reason === 'robot_offline' ? true : undefined), 5000, 'held offline');
    // Its window (15 minutes by default) passes.
    const planned = new Date(Date.now() - 16 * 60_000);
    await dueAt(created.job_id, planned);
    const missed = await waitUntil(async () => {
      const current = await job(w, created.job_id);
      return current.status === 'Completed' ? current : undefined;
    }, 5000, 'the job missed');
    expect(missed).toMatchObject({ completion_status: 'missed', not_started_reason: 'robot_offline', started_at: null });
    expect(missed.start_time).toBe(planned.toISOString());
    const log = await logOf(w, created.job_id);
    expect(log).toMatchObject({ completion_status: 'missed', reason: 'robot_offline', planned_starttime: planned.toISOString() });
    const finished = (await pushesOf(created.job_id)).filter((push) => push.kind === 'job_finished');
    expect(finished).toHaveLength(1);
    expect(finished[0]?.facts).toMatchObject({ completionStatus: 'missed', reason: 'robot_offline' });

    // The robot comes back: nothing starts.
    const sim = await robotFor(w);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(sim.state?.orderId).toBe('');
  });

  it("starts a job late within its organization's window, keeping the planned start_time beside the real start", async () => {
    const w = await executionWorld(server);
    await server.context.db.update(organizations).set({ startWindowMinutes: 10 }).where(eq(organizations.id, w.orgId));
    const created = await createJobFor(server, w);
    const planned = new Date(Date.now() - 8 * 60_000);
    await dueAt(created.job_id, planned);
    const sim = await robotFor(w);
    const running = await waitUntil(async () => {
      const current = await job(w, created.job_id);
      return current.status === 'Running' ? current : undefined;
    }, 5000, 'the late start');
    expect(running.start_time).toBe(planned.toISOString());
    expect(Date.parse(running.started_at ?? '') - planned.getTime()).toBeGreaterThan(7 * 60_000);
    await sim.waitForState((state) => state.orderId === created.job_id);

    // Past the 10 minutes of this organization, another is missed.
    const late = await createJobFor(server, w);
    await dueAt(late.job_id, new Date(Date.now() - 11 * 60_000));
    await waitUntil(async () => ((await job(w, late.job_id)).completion_status === 'missed' ? true : undefined), 5000, 'missed');
    const [row] = await server.context.db.select().from(jobs).where(and(eq(jobs.id, late.job_id), eq(jobs.status, 'Completed')));
    expect(row?.startedAt).toBeNull();
  });
});
