/**
 * Which robot gets which delivery (simulated robots over real MQTT, the embedded broker): priority first, then
 * age; the nearest free delivery robot on the floor graph, a robot on another floor being farther than one across
 * the same floor; never a disinfection robot, and never a disinfection job for a delivery robot (409 robot_kind).
 */
import { eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { SimRobot } from '@uvd/robot-sim';
import { DeliveryStatus } from '@uvd/contracts';
import { robots } from '../../db/schema.ts';
import { lockDelivery, updateDelivery } from '../../deliveries/lifecycle.ts';
import { deliveryWorld, playDeliveryRobot, queueDelivery, readDelivery, waitForDelivery, type DeliveryWorld } from '../../testing/delivery-fixtures.ts';
import { createJobFor, executionWorld, playWorldRobot, waitUntil } from '../../testing/execution-fixtures.ts';
import { startTestServer, type TestServer } from '../../testing/harness.ts';
import { cancelOnRobot } from './commands.ts';

let server: TestServer;
const sims: SimRobot[] = [];

beforeAll(async () => {
  // Warnings on: a round that fails says why (onError) in the test's output. Twice, on PostgreSQL under the full
  // suite's load, the first test's first delivery was not dispatched in 15 s, and nothing said why.
  server = await startTestServer({ deliveryDispatchPollMs: 100, schedulerPollMs: 50, logLevel: 'warn' });
});
afterEach(async () => {
  await Promise.all(sims.splice(0).map((sim) => sim.stop()));
});
afterAll(async () => {
  await server.close();
});

const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000);

/** Cancels the delivery as the API does, so its robot is free for the next one. */
async function cancel(world: DeliveryWorld, deliveryId: string): Promise<void> {
  await server.context.db.transaction(async (tx) => {
    const row = await lockDelivery(tx, world.orgId, deliveryId);
    if (!row) throw new Error('delivery missing');
    await cancelOnRobot(server.context, tx, row);
    await updateDelivery(server.context, tx, row, { status: DeliveryStatus.cancelled });
  });
  server.context.commands.wake();
}

describe('the delivery dispatcher', () => {
  it('serves stat, then urgent, then routine, and the oldest first within a priority', async () => {
    const world = await deliveryWorld(server, { robots: 1 });
    const [robot] = world.robots;
    const [a, b] = world.roomIds;
    if (!robot || !a || !b) throw new Error('world incomplete');
    // Queued while no robot is there to take them.
    const oldRoutine = await queueDelivery(server, world.orgId, { pickupRoomId: a, dropoffRoomId: b, createdAt: minutesAgo(30) });
    const newRoutine = await queueDelivery(server, world.orgId, { pickupRoomId: a, dropoffRoomId: b, createdAt: minutesAgo(20) });
    const urgent = await queueDelivery(server, world.orgId, { pickupRoomId: a, dropoffRoomId: b, priority: 'urgent', createdAt: minutesAgo(10) });
    const stat = await queueDelivery(server, world.orgId, { pickupRoomId: a, dropoffRoomId: b, priority: 'stat' });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await readDelivery(server, stat.id)).status).toBe(DeliveryStatus.queued);

    await playDeliveryRobot(server, world, robot, sims, { timeFactor: 1 });
    const order: string[] = [];
    for (const expected of [stat, urgent, oldRoutine, newRoutine]) {
      await waitForDelivery(server, expected.id, (row) => row.robotId === robot.id, `delivery ${order.length + 1} dispatched`);
      order.push(expected.id);
      // One delivery at a time: the others still wait.
      for (const other of [stat, urgent, oldRoutine, newRoutine].filter((d) => !order.includes(d.id))) {
        expect((await readDelivery(server, other.id)).status).toBe(DeliveryStatus.queued);
      }
      await cancel(world, expected.id);
    }
  });

  it('gives the delivery to the nearest free robot, and a robot on another floor is farther than one across the floor', async () => {
    const world = await deliveryWorld(server, { robots: 2, floors: 2 });
    const [left, right] = world.robots;
    const floor1 = world.site.floors[0];
    const floor2 = world.site.floors[1];
    const pickup = floor1?.roomIds[2];
    const dropoff = floor1?.roomIds[0];
    if (!left || !right || !floor1 || !floor2 || !pickup || !dropoff) throw new Error('world incomplete');
    // Pickup entry point (12, 2); left docked at (0, -2), right at (10, -2): right is nearer.
    await playDeliveryRobot(server, world, left, sims, { timeFactor: 1 });
    await playDeliveryRobot(server, world, right, sims, { timeFactor: 1 });
    const first = await queueDelivery(server, world.orgId, { pickupRoomId: pickup, dropoffRoomId: dropoff });
    expect((await waitForDelivery(server, first.id, (row) => row.robotId !== null, 'dispatched')).robotId).toBe(right.id);
    await cancel(world, first.id);
    await Promise.all(sims.splice(0).map((sim) => sim.stop()));

    // The same place one floor up: now left, across the floor, is nearer than right, by the lift.
    await server.context.db.update(robots).set({ floorId: floor2.id }).where(eq(robots.id, right.id));
    await playDeliveryRobot(server, world, left, sims, { timeFactor: 1 });
    await playDeliveryRobot(server, world, right, sims, { timeFactor: 1, mapId: floor2.id });
    const second = await queueDelivery(server, world.orgId, { pickupRoomId: pickup, dropoffRoomId: dropoff });
    expect((await waitForDelivery(server, second.id, (row) => row.robotId !== null, 'dispatched')).robotId).toBe(left.id);
  });

  it('never gives a delivery to a disinfection robot, nor a robot not Autonomous or low on battery', async () => {
    const uvd = await executionWorld(server, 3);
    await playWorldRobot(server, uvd, sims);
    const [a, b] = uvd.roomIds;
    if (!a || !b) throw new Error('world incomplete');
    const delivery = await queueDelivery(server, uvd.orgId, { pickupRoomId: a, dropoffRoomId: b });

    const world = await deliveryWorld(server, { robots: 2 });
    const [manual, low] = world.robots;
    const [c, d] = world.roomIds;
    if (!manual || !low || !c || !d) throw new Error('world incomplete');
    const manualSim = await playDeliveryRobot(server, world, manual, sims);
    manualSim.setOperatingMode('MANUAL');
    await waitUntil(async () => (server.context.fleet.link(manual.id)?.mode === 2 ? undefined : true), 5000, 'the robot in Manual mode');
    const lowSim = await playDeliveryRobot(server, world, low, sims, { battery: 10, timeFactor: 1 });
    const other = await queueDelivery(server, world.orgId, { pickupRoomId: c, dropoffRoomId: d });
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(await readDelivery(server, delivery.id)).toMatchObject({ status: DeliveryStatus.queued, robotId: null });
    expect(await readDelivery(server, other.id)).toMatchObject({ status: DeliveryStatus.queued, robotId: null });
    // Charged again, the robot takes it.
    lowSim.setBattery(90);
    await waitForDelivery(server, other.id, (row) => row.robotId === low.id, 'dispatched once charged');
  });

  it('refuses to start a disinfection job on a robot that became a delivery robot: 409 robot_kind, no order', async () => {
    const uvd = await executionWorld(server, 2);
    // Scheduled while it was a disinfection robot (the jobs API refuses a job for a delivery robot), then made one.
    const job = await createJobFor(server, uvd);
    await server.context.db.update(robots).set({ kind: 'delivery' }).where(eq(robots.id, uvd.robotId));
    const sim = await playWorldRobot(server, uvd, sims, { kind: 'delivery' });
    const refused = await server.request('POST', '/api/jobs/job/start', { token: uvd.operator.token, query: { job_id: job.job_id } });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ error: 'robot_kind' });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(sim.state?.orderId).toBe('');
  });
});
