/**
 * A whole job on an independent VDA 5050 2.0 robot: vda-5050-lib's AgvController with its VirtualAgvAdapter
 * (the TNG "vda-5050" reference stack), configured with our `uvd_disinfect` node action, logs in to the
 * embedded broker as a registered robot, takes the job's order, drives it and reports the disinfections; the
 * job ends Completed with a log whose rooms are done. Proof that a robot speaking the standard, and knowing
 * nothing of this code, runs our jobs.
 */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ActionStatus, AgvController, VirtualAgvAdapter, type VirtualActionDefinition } from 'vda-5050-lib';
import { Job, LogEntry, UvdActionType } from '@uvd/contracts';
import { robots } from '../db/schema.ts';
import { createJobFor, executionWorld, waitUntil } from '../testing/execution-fixtures.ts';
import { startTestServer, type TestServer } from '../testing/harness.ts';

/**
 * The library's virtual robot with one more action definition (the documented way to extend it: its
 * `actionDefinitions` are meant to be overridden): `uvd_disinfect` on nodes, RUNNING for `dose` seconds
 * (sped up by the time lapse), then FINISHED.
 */
class UvdVirtualAgv extends VirtualAgvAdapter {
  protected override get actionDefinitions(): VirtualActionDefinition[] {
    const disinfect: VirtualActionDefinition = {
      actionType: UvdActionType.disinfect,
      actionScopes: 'node',
      actionParameterConstraints: {
        room_id: (value) => typeof value === 'string',
        dose: (value) => typeof value === 'number' && value > 0,
      },
      transitions: {
        ON_INIT: { next: ActionStatus.Running },
        ON_CANCEL: {},
        [ActionStatus.Running]: { durationTime: ['dose', 10], next: ActionStatus.Finished },
        [ActionStatus.Finished]: { resultDescription: () => 'disinfected' },
        [ActionStatus.Failed]: { errorDescription: () => 'disinfection failed' },
      },
    };
    return [...super.actionDefinitions, disinfect];
  }
}

let server: TestServer;
const controllers: AgvController[] = [];

beforeAll(async () => {
  server = await startTestServer({
    schedulerPollMs: 100,
    fleet: { staleMs: 30_000, offlineMs: 60_000, pingIntervalMs: 500, pingTimeoutMs: 2000 },
  });
});
afterAll(async () => {
  for (const controller of controllers) await controller.stop().catch(() => undefined);
  await server.close();
});

describe('vda-5050-lib robot runs a job', () => {
  it('takes the order of POST /jobs/job/start, drives to each room, disinfects, and the job completes with its log', async () => {
    const world = await executionWorld(server, 3);
    const job = await createJobFor(server, world, { dose: 10 });
    // VDA 5050 6.6.1: a new order's first node is where the vehicle stands (the library refuses any other);
    // our orders begin at the robot's reported position, so it starts at its home, away from every room.
    const controller = new AgvController(
      { manufacturer: world.robot.manufacturer, serialNumber: world.robot.serialNumber },
      {
        interfaceName: 'uagv',
        vdaVersion: '2.0.0',
        transport: {
          brokerUrl: server.context.fleet.brokerUrl,
          username: `${world.robot.manufacturer}/${world.robot.serialNumber}`,
          password: world.mqttPassword,
        },
      },
      { agvAdapterType: UvdVirtualAgv, publishStateInterval: 500 },
      {
        initialPosition: { mapId: world.floorId, x: 0, y: -2, theta: 0, lastNodeId: 'dock' },
        initialBatteryCharge: 90,
        timeLapse: 20,
      },
    );
    controllers.push(controller);
    await controller.start();
    await waitUntil(async () => (server.context.fleet.link(world.robotId)?.mode === 2 ? true : undefined), 8000, 'the robot online and Autonomous');
    await waitUntil(
      async () => {
        const [row] = await server.context.db.select({ pose: robots.pose }).from(robots).where(eq(robots.id, world.robotId));
        return row?.pose && Math.hypot(row.pose.x, row.pose.y + 2) < 0.1 ? true : undefined;
      },
      8000,
      'the robot position known at its home',
    );

    const started = await server.request('POST', '/api/jobs/job/start', { token: world.operator.token, query: { job_id: job.job_id } });
    expect(started.status).toBe(200);
    expect(started.body).toEqual({ data: true });

    const completed = await waitUntil(
      async () => {
        const response = await server.request('GET', `/api/jobs/job/${job.job_id}`, { token: world.operator.token });
        const current = Job.parse(response.body);
        return current.status === 'Completed' ? current : undefined;
      },
      20_000,
      'the job completed',
    );
    expect(completed.performed).toBe(true);

    const logged = await server.request('GET', `/api/log/${job.job_id}`, { token: world.operator.token });
    expect(logged.status).toBe(200);
    const log = LogEntry.parse(logged.body);
    expect(log.completion_status).toBe('completed');
    expect(log.attributes.rooms.map((room) => [room.room_id, room.state, room.dose])).toEqual(world.roomIds.map((id) => [id, 'done', 10]));
    expect(log.has_trajectory).toBe(true);
    // Nothing it sent was dropped, and it reports no error of ours (an order it refused would be one).
    expect(server.context.fleet.stats().invalid).toBe(0);
    const home = await waitUntil(
      async () => {
        const [row] = await server.context.db.select({ pose: robots.pose, errors: robots.errors }).from(robots).where(eq(robots.id, world.robotId));
        return row?.pose && Math.hypot(row.pose.x - 0, row.pose.y + 2) < 0.5 ? row : undefined;
      },
      10_000,
      'the robot back home, the last node of the order',
    );
    expect(home.errors).toEqual([]);
  });
});
