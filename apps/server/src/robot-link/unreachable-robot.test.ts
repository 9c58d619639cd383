/**
 * A robot that drops off mid-job (issue #22, defect 4), on the SimRobot over the embedded broker: the console
 * says the connection is lost instead of "disinfecting", a person can end the job at once, and the robot's stop
 * waits for its return, however long, and reaches it then.
 */
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SimRobot } from '@uvd/robot-sim';
import { Job, LogEntry, RobotList } from '@uvd/contracts';
import { events, jobRooms, robotCommands } from '../db/schema.ts';
import { createJobFor, executionWorld, playWorldRobot, waitUntil, type ExecutionWorld } from '../testing/execution-fixtures.ts';
import { startTestServer, type TestServer } from '../testing/harness.ts';
import { disinfectActionId } from './order.ts';

/** Commands are given up after this here: the stop of an interrupted job must outlive it. */
const GIVE_UP_MS = 1000;

describe('a job whose robot dropped off', () => {
  let server: TestServer;
  const sims: SimRobot[] = [];
  beforeAll(async () => {
    server = await startTestServer({ schedulerPollMs: 50, commandGiveUpMs: GIVE_UP_MS });
  });
  afterAll(async () => {
    await Promise.all(sims.map((sim) => sim.stop()));
    await server.close();
  });

  // A room of dose 50 takes 250 s at 0.2 W/m²: about 4 s here, long enough to cut the link in it.
  const robotFor = (w: ExecutionWorld) => playWorldRobot(server, w, sims, { irradiance: 0.2 });

  const job = async (w: ExecutionWorld, jobId: string) =>
    Job.parse((await server.request('GET', `/api/jobs/job/${jobId}`, { token: w.operator.token })).body);
  const listedRobot = async (w: ExecutionWorld) => {
    const list = RobotList.parse((await server.request('GET', '/api/robot/robot/robots', { token: w.operator.token })).body);
    return list.payload.find((robot) => robot.robot_id === w.robotId);
  };

  it('shows the connection lost, lets an operator end the job at once, and cancels the order when the robot returns', async () => {
    const w = await executionWorld(server);
    const sim = await robotFor(w);
    const created = await createJobFor(server, w, { dose: 50 });
    const start = await server.request('POST', `/api/command/job/${created.job_id}`, { token: w.operator.token, query: { command: 'start' } });
    expect(start.status).toBe(200);
    await waitUntil(async () => {
      const [room] = await server.context.db
        .select({ state: jobRooms.state })
        .from(jobRooms)
        .where(and(eq(jobRooms.jobId, created.job_id), eq(jobRooms.orderNo, 0)));
      return room?.state === 'active' ? true : undefined;
    }, 15_000, 'the first room disinfecting');
    expect((await listedRobot(w))?.status).toBe('disinfecting');
    const lastReport = Date.now();

    await sim.kill();
    // The job says what is known: the connection is lost since the robot's last report, not "disinfecting".
    const lost = await waitUntil(async () => {
      const current = await job(w, created.job_id);
      return current.connection_lost_since ? current : undefined;
    }, 5000, 'the job to show the connection lost');
    expect(lost.status).toBe('Running');
    expect(Math.abs(Date.parse(lost.connection_lost_since ?? '') - lastReport)).toBeLessThan(2000);
    expect((await listedRobot(w))?.status).toBe('offline');

    const stopped = await server.request('POST', `/api/command/job/${created.job_id}`, { token: w.operator.token, query: { command: 'stop' } });
    expect(stopped.status).toBe(200);
    const ended = await job(w, created.job_id);
    expect(ended).toMatchObject({ status: 'Completed', completion_status: 'interrupted', connection_lost_since: null });
    const log = LogEntry.parse((await server.request('GET', `/api/log/${created.job_id}`, { token: w.operator.token })).body);
    expect(log).toMatchObject({ completion_status: 'interrupted', reason: 'robot_offline' });
    // Nothing was finished before the link dropped: no room is logged disinfected. The first room's lamp ran and
    // was cut off (Not disinfected (Aborted)) with the dose the robot had reported; the others were never begun.
    expect(log.attributes.rooms.map((room) => room.state)).toEqual(['aborted', 'not_reached', 'not_reached']);
    expect(log.endtime !== null && Date.parse(log.endtime) - lastReport).toBeLessThan(2000);
    const finished = await server.context.db.select({ type: events.type }).from(events).where(eq(events.key, created.job_id));
    expect(finished.filter((event) => event.type === 'job_finished')).toHaveLength(1);

    // Long past the give-up time, the cancel still waits for the robot.
    await new Promise((resolve) => setTimeout(resolve, GIVE_UP_MS + 2500));
    const [stop] = await server.context.db
      .select()
      .from(robotCommands)
      .where(and(eq(robotCommands.jobId, created.job_id), eq(robotCommands.kind, 'stop')));
    expect(stop?.state).toBe('pending');
    const undelivered = await server.context.db.select().from(events).where(and(eq(events.key, w.robotId), eq(events.type, 'command_undelivered')));
    expect(undelivered).toHaveLength(0);

    // Back, the robot reports the old order: the cancel reaches it, and the room's lamp never comes on again.
    await sim.start();
    const room0 = disinfectActionId(created.job_id, 0);
    const cancelled = await sim.waitForState((state) =>
      state.actionStates.some((action) => action.actionType === 'cancelOrder' && action.actionStatus === 'FINISHED'),
    );
    expect(cancelled.actionStates.find((action) => action.actionId === room0)).toMatchObject({ actionStatus: 'FAILED', resultDescription: 'aborted' });
    await waitUntil(async () => {
      const [row] = await server.context.db.select({ state: robotCommands.state }).from(robotCommands).where(eq(robotCommands.id, stop?.id ?? ''));
      return row?.state === 'acknowledged' ? true : undefined;
    }, 5000, 'the stop acknowledged');
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const later = sim.state;
    expect(later?.actionStates.filter((action) => action.actionType === 'uvd_disinfect').map((action) => action.actionStatus)).toEqual([
      'FAILED',
      'FAILED',
      'FAILED',
    ]);
    expect((await job(w, created.job_id)).completion_status).toBe('interrupted');
  }, 60_000);

  it('lets an admin end it too, and a robot that never returns leaves no Running job', async () => {
    const w = await executionWorld(server);
    const sim = await robotFor(w);
    const created = await createJobFor(server, w, { dose: 50 });
    expect((await server.request('POST', '/api/jobs/job/start', { token: w.admin.token, query: { job_id: created.job_id } })).status).toBe(200);
    await sim.waitForState((state) => state.orderId === created.job_id);
    await sim.kill();
    await waitUntil(async () => (server.context.fleet.isOnline(w.robotId) ? undefined : true), 5000, 'the robot offline');
    const pause = await server.request('POST', `/api/command/job/${created.job_id}`, { token: w.admin.token, query: { command: 'pause' } });
    expect(pause.status).toBe(409);
    expect(pause.body).toMatchObject({ error: 'robot_offline' });
    const stop = await server.request('POST', `/api/command/job/${created.job_id}`, { token: w.admin.token, query: { command: 'stop' } });
    expect(stop.status).toBe(200);
    expect(await job(w, created.job_id)).toMatchObject({ status: 'Completed', completion_status: 'interrupted' });
    // Ended, it no longer blocks the robot's next job (refused only because the robot is still offline).
    const next = await createJobFor(server, w);
    const refused = await server.request('POST', '/api/jobs/job/start', { token: w.admin.token, query: { job_id: next.job_id } });
    expect(refused.body).toMatchObject({ error: 'robot_offline' });
  }, 30_000);
});
