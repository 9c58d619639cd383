/**
 * The dispatcher serves every Queued delivery while a free robot exists, woken by what frees the robot, never left
 * to its poll (DELIVERY_DISPATCH_POLL_MS is an hour here, so only the wakes can dispatch): a robot freed by a cancel
 * gets the next delivery once it took the cancel and ended the cancelled order (never before: a cancelOrder taken
 * after a new order would cancel that one); a robot that turns Autonomous or charges past the minimum gets it as it
 * does; deliveries a free robot may not take (it handed them back) do not hold
 * back the ones queued after them; a delivery whose order never reached its robot goes back to the queue.
 * Robots are raw MQTT clients (connectDeliveryRobot) so the test decides when a robot takes what it is sent.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DeliveryStatus, VdaInstantAction, type ActionState, type OrderMessage } from '@uvd/contracts';
import { eq } from 'drizzle-orm';
import { robots } from '../../db/schema.ts';
import { recordCustody } from '../../deliveries/lifecycle.ts';
import { connectDeliveryRobot, custodyOf, deliveryWorld, queueDelivery, readDelivery, waitForDelivery } from '../../testing/delivery-fixtures.ts';
import { waitUntil } from '../../testing/execution-fixtures.ts';
import type { TestRobot } from '../../testing/fleet-fixtures.ts';
import { startTestServer, type TestServer } from '../../testing/harness.ts';

const HOUR_MS = 3_600_000;
const robotsToClose: TestRobot[] = [];

afterEach(async () => {
  await Promise.all(robotsToClose.splice(0).map((robot) => robot.close()));
});

const orderOf = async (robot: TestRobot, deliveryId: string, what: string): Promise<OrderMessage> =>
  waitUntil(async () => robot.orders.find((order) => order.orderId === deliveryId), 15_000, what);

/** The robot reports the order as taken: its orderId, its nodes, its actions waiting. */
const takeOrder = (robot: TestRobot, order: OrderMessage) =>
  robot.publishState({
    orderId: order.orderId,
    orderUpdateId: order.orderUpdateId,
    nodeStates: order.nodes.map((node) => ({ nodeId: node.nodeId, sequenceId: node.sequenceId, released: node.released })),
    actionStates: order.nodes.flatMap((node) => node.actions.map((action): ActionState => ({ actionId: action.actionId, actionType: action.actionType, actionStatus: 'WAITING' }))),
  });

const settle = () => new Promise((resolve) => setTimeout(resolve, 600));

describe('the delivery dispatcher, woken (no poll)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ deliveryDispatchPollMs: HOUR_MS });
  });
  afterAll(async () => {
    await server.close();
  });

  it('gives a robot freed by a cancel the next Queued delivery once it took the cancel and ended that order, not before', async () => {
    const world = await deliveryWorld(server, { robots: 1 });
    const [row] = world.robots;
    const [a, b] = world.roomIds;
    if (!row || !a || !b) throw new Error('world incomplete');
    const robot = await connectDeliveryRobot(server, world, robotsToClose, row);
    const first = await queueDelivery(server, world.orgId, { pickupRoomId: a, dropoffRoomId: b });
    const order = await orderOf(robot, first.id, 'the first order at the robot');
    await takeOrder(robot, order);
    const next = await queueDelivery(server, world.orgId, { pickupRoomId: b, dropoffRoomId: a });

    const cancelled = await server.request('POST', `/api/deliveries/${first.id}/cancel`, { token: world.admin.token });
    expect(cancelled.status).toBe(200);
    await robot.waitForInstantAction(VdaInstantAction.cancel, 5000);
    // The stop: cancelOrder and stopPause, in one message.
    const stop = [...robot.instantActions];
    // Not taken yet: the robot could still take it after a new order, and cancel that one.
    await settle();
    expect(await readDelivery(server, next.id)).toMatchObject({ status: DeliveryStatus.queued, robotId: null });

    // Taken, but the robot still stops its cancelled order (its nodes reported).
    const stopping = stop.map((action): ActionState => ({ actionId: action.actionId, actionType: action.actionType, actionStatus: 'RUNNING' }));
    await robot.publishState({ actionStates: [...robot.state.actionStates, ...stopping] });
    await settle();
    expect(await readDelivery(server, next.id)).toMatchObject({ status: DeliveryStatus.queued, robotId: null });
    expect(robot.orders.map((sent) => sent.orderId)).toEqual([first.id]);

    // Its order over: the next delivery goes to it at once, by the wake of its state.
    await robot.publishState({
      nodeStates: [],
      edgeStates: [],
      actionStates: robot.state.actionStates.map((action) => ({
        ...action,
        actionStatus: stop.some((sent) => sent.actionId === action.actionId) ? 'FINISHED' : 'FAILED',
      })),
    });
    expect((await waitForDelivery(server, next.id, (delivery) => delivery.robotId === row.id, 'the next delivery dispatched')).status).toBe(DeliveryStatus.inTransit);
    await orderOf(robot, next.id, 'the next order at the robot');
  });

  /** A delivery Queued while the world's one robot is online but in Manual mode (not free). */
  async function queuedForManualRobot() {
    const world = await deliveryWorld(server, { robots: 1 });
    const [row] = world.robots;
    const [a, b] = world.roomIds;
    if (!row || !a || !b) throw new Error('world incomplete');
    const robot = await connectDeliveryRobot(server, world, robotsToClose, row);
    await robot.publishState({ operatingMode: 'MANUAL' });
    await waitUntil(async () => (server.context.fleet.link(row.id)?.mode === 2 ? undefined : true), 5000, 'the robot out of Autonomous mode');
    const delivery = await queueDelivery(server, world.orgId, { pickupRoomId: a, dropoffRoomId: b });
    return { row, robot, delivery };
  }

  it('gives a Queued delivery to a robot as it turns Autonomous or charges past the minimum, not at the next poll', async () => {
    // Online but not free: in Manual mode, then Autonomous with too little battery.
    const { row, robot, delivery } = await queuedForManualRobot();
    await settle();
    expect(await readDelivery(server, delivery.id)).toMatchObject({ status: DeliveryStatus.queued, robotId: null });
    await robot.publishState({ operatingMode: 'AUTOMATIC', batteryState: { batteryCharge: server.context.config.deliveryMinBattery - 5, charging: true } });
    await settle();
    expect(await readDelivery(server, delivery.id)).toMatchObject({ status: DeliveryStatus.queued, robotId: null });

    // Charged: the state that makes it free wakes the dispatcher (the poll is an hour away).
    await robot.publishState({ batteryState: { batteryCharge: 90, charging: false } });
    expect((await waitForDelivery(server, delivery.id, (found) => found.robotId === row.id, 'the delivery dispatched')).status).toBe(DeliveryStatus.inTransit);
    await orderOf(robot, delivery.id, 'the order at the robot');
  });

  it('gives a Queued delivery to a robot whose row was locked as it turned free (a write of its state), once the lock is gone', async () => {
    const { row, robot, delivery } = await queuedForManualRobot();
    // The state that frees the robot wakes the dispatcher while another transaction holds the robot's row, as the
    // gateway's write of a state does: the dispatcher passes over a robot it cannot lock (another process may be
    // giving it a delivery), and on PostgreSQL it did so here and left the delivery to the poll, an hour away.
    await server.context.db.transaction(async (tx) => {
      await tx.select({ id: robots.id }).from(robots).where(eq(robots.id, row.id)).for('update');
      await robot.publishState({ operatingMode: 'AUTOMATIC' });
      await waitUntil(async () => (server.context.fleet.link(row.id)?.mode === 2 ? true : undefined), 5000, 'the robot Autonomous');
      await settle();
    });
    expect((await waitForDelivery(server, delivery.id, (found) => found.robotId === row.id, 'the delivery dispatched')).status).toBe(DeliveryStatus.inTransit);
    await orderOf(robot, delivery.id, 'the order at the robot');
  });

  it('gives a free robot the delivery queued after more deliveries than one batch that it handed back', async () => {
    const world = await deliveryWorld(server, { robots: 1 });
    const [row] = world.robots;
    const [a, b] = world.roomIds;
    if (!row || !a || !b) throw new Error('world incomplete');
    // 60 deliveries this robot handed back (it will not get them again), older than the one it may take.
    const handedBack = [];
    for (let index = 0; index < 60; index++) {
      const delivery = await queueDelivery(server, world.orgId, { pickupRoomId: a, dropoffRoomId: b, priority: 'stat', createdAt: new Date(Date.now() - 3_600_000 + index) });
      await server.context.db.transaction(async (tx) => recordCustody(tx, delivery, 'requeued', { robot: { id: row.id, name: 'handed back' }, detail: 'path_blocked' }));
      handedBack.push(delivery);
    }
    const robot = await connectDeliveryRobot(server, world, robotsToClose, row);
    const takeable = await queueDelivery(server, world.orgId, { pickupRoomId: b, dropoffRoomId: a });
    await orderOf(robot, takeable.id, 'the takeable delivery at the robot');
    expect(await readDelivery(server, takeable.id)).toMatchObject({ status: DeliveryStatus.inTransit, robotId: row.id });
    for (const delivery of handedBack) expect((await readDelivery(server, delivery.id)).status).toBe(DeliveryStatus.queued);
  });
});

describe('a delivery whose order never reached its robot', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ deliveryDispatchPollMs: HOUR_MS, commandGiveUpMs: 500, commandResendMs: 200, deliveryHandbackMs: 400 });
  });
  afterAll(async () => {
    await server.close();
  });

  it('goes back to the queue (order_undelivered) and to another robot', async () => {
    const world = await deliveryWorld(server, { robots: 2 });
    const [deaf, other] = world.robots;
    const [a, b] = world.roomIds;
    if (!deaf || !other || !a || !b) throw new Error('world incomplete');
    // Online and Autonomous, but it never takes what it is sent (its states never name the order).
    await connectDeliveryRobot(server, world, robotsToClose, deaf);
    const delivery = await queueDelivery(server, world.orgId, { pickupRoomId: a, dropoffRoomId: b });
    await waitForDelivery(server, delivery.id, (row) => row.robotId === deaf.id, 'dispatched to the robot that never takes it');
    await waitUntil(
      async () => ((await custodyOf(server, delivery.id)).some((step) => step.step === 'requeued') ? true : undefined),
      15_000,
      'the delivery handed back',
    );

    // The other robot comes online after: its connection message first, its mode with its first state.
    const robot = await connectDeliveryRobot(server, world, robotsToClose, other);
    const order = await orderOf(robot, delivery.id, 'the order at the other robot');
    await takeOrder(robot, order);
    expect(await readDelivery(server, delivery.id)).toMatchObject({ status: DeliveryStatus.inTransit, robotId: other.id, dispatchAttempts: 2 });
    const steps = (await custodyOf(server, delivery.id)).map((step) => [step.step, step.detail]);
    expect(steps).toContainEqual(['requeued', 'order_undelivered']);
  });
});
