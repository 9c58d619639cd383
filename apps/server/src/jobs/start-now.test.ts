/**
 * "Start immediately" over the real API with a simulated robot on the embedded broker: a job saved with
 * start_now runs at once or is not saved at all, so nobody is told it could not start while it waits to start
 * by itself five minutes later.
 */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SimRobot } from '@uvd/robot-sim';
import { ApiError, CommandRefusal, Job, type JobInput } from '@uvd/contracts';
import { jobs } from '../db/schema.ts';
import { createJobFor, executionWorld, playWorldRobot, type ExecutionWorld } from '../testing/execution-fixtures.ts';
import { startTestServer, type TestServer } from '../testing/harness.ts';

describe('creating or editing a job with start_now (simulated robot)', () => {
  let server: TestServer;
  const sims: SimRobot[] = [];
  beforeAll(async () => {
    server = await startTestServer({ schedulerPollMs: 50 });
  });
  afterAll(async () => {
    await Promise.all(sims.map((sim) => sim.stop()));
    await server.close();
  });

  // Slow enough that the first job still runs when the second is asked to start.
  const robotFor = (w: ExecutionWorld) => playWorldRobot(server, w, sims, { timeFactor: 5 });
  const startingNow = (w: ExecutionWorld): JobInput => ({
    name: 'Start now',
    notes: '',
    // The editor's start of a job started now: five minutes ahead, the time the scheduler would have used.
    start_time: new Date(Date.now() + 5 * 60_000).toISOString(),
    rooms: [{ room_id: w.roomIds[0] ?? '', order_no: 0, dose: 10 }],
    start_now: true,
  });
  const jobsOf = (w: ExecutionWorld) => server.context.db.select({ id: jobs.id, status: jobs.status }).from(jobs).where(eq(jobs.orgId, w.orgId));

  it('starts the job it creates at once: the reply is the Running job and the robot gets its order', async () => {
    const w = await executionWorld(server);
    const sim = await robotFor(w);
    const response = await server.request('POST', `/api/jobs/jobs/${w.robotId}`, { token: w.operator.token, body: startingNow(w) });
    expect(response.status).toBe(200);
    const job = Job.parse(response.body);
    expect(job.status).toBe('Running');
    await sim.waitForState((state) => state.orderId === job.job_id);
  });

  it('refuses to create a job to start now on a busy robot with the reason, saving nothing that could start later', async () => {
    const w = await executionWorld(server);
    const sim = await robotFor(w);
    const first = await createJobFor(server, w);
    expect((await server.request('POST', '/api/jobs/job/start', { token: w.operator.token, query: { job_id: first.job_id } })).status).toBe(200);

    const refused = await server.request('POST', `/api/jobs/jobs/${w.robotId}`, { token: w.operator.token, body: startingNow(w) });
    expect(refused.status).toBe(409);
    const error = ApiError.parse(refused.body);
    expect(error.error).toBe(CommandRefusal.robotBusy);
    expect(error.message).toMatch(/running another job/);
    expect(await jobsOf(w)).toEqual([{ id: first.job_id, status: 'Running' }]);
    // The query's flag is refused alike.
    const byQuery = await server.request('POST', `/api/jobs/jobs/${w.robotId}`, {
      token: w.operator.token,
      query: { start_now: true },
      body: { ...startingNow(w), start_now: false },
    });
    expect(byQuery.status).toBe(409);
    expect(await jobsOf(w)).toHaveLength(1);
    expect(sim.state?.orderId).toBe(first.job_id);
  });

  it('refuses to start an edited job now on a busy robot, leaving the job as it was', async () => {
    const w = await executionWorld(server);
    await robotFor(w);
    const running = await createJobFor(server, w);
    const later = await createJobFor(server, w);
    expect((await server.request('POST', '/api/jobs/job/start', { token: w.operator.token, query: { job_id: running.job_id } })).status).toBe(200);

    const refused = await server.request('PUT', `/api/jobs/jobs/${later.job_id}`, { token: w.operator.token, body: startingNow(w) });
    expect(refused.status).toBe(409);
    expect(ApiError.parse(refused.body).error).toBe(CommandRefusal.robotBusy);
    const unchanged = Job.parse((await server.request('GET', `/api/jobs/job/${later.job_id}`, { token: w.operator.token })).body);
    expect(unchanged).toMatchObject({ status: 'Scheduled', name: later.name, start_time: later.start_time, start_now: false });
  });

  it('refuses to create a job to start now on an offline robot, saving nothing', async () => {
    const w = await executionWorld(server);
    const refused = await server.request('POST', `/api/jobs/jobs/${w.robotId}`, { token: w.operator.token, body: startingNow(w) });
    expect(refused.status).toBe(409);
    expect(ApiError.parse(refused.body).error).toBe(CommandRefusal.robotOffline);
    expect(await jobsOf(w)).toEqual([]);
  });
});
