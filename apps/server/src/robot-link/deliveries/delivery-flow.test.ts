/**
 * Deliveries carried by simulated delivery robots over real MQTT (the embedded broker), from the queue to Delivered:
 * dispatch, the order, Waiting at the pickup and the drop-off, loading, the hand-off PIN at the robot and in the
 * console, pause and resume, cancel, a blocked way, and hand-backs. The API's routes are another module's: these
 * tests do what they do through the same functions (confirmLoadingOnRobot, checkHandoffPin, cancelOnRobot).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SimRobot } from '@uvd/robot-sim';
import { DeliveryStatus } from '@uvd/contracts';
import { checkHandoffPin } from '../../deliveries/handoff.ts';
import { lockDelivery, toDeliveries, updateDelivery, type CustodyRow } from '../../deliveries/lifecycle.ts';
import {
  custodyOf,
  deliveryWorld,
  playDeliveryRobot,
  queueDelivery,
  readDelivery,
  waitForDelivery,
  type DeliveryWorld,
} from '../../testing/delivery-fixtures.ts';
import { waitUntil } from '../../testing/execution-fixtures.ts';
import { startTestServer, type TestServer } from '../../testing/harness.ts';
import { cancelOnRobot, confirmLoadingOnRobot, pauseOrResumeOnRobot } from './commands.ts';

const HANDBACK_MS = 1500;

let server: TestServer;
const sims: SimRobot[] = [];

beforeAll(async () => {
  server = await startTestServer({ deliveryDispatchPollMs: 100, deliveryHandbackMs: HANDBACK_MS, deliveryMaxDispatches: 3 });
});
// The tests run side by side, so a test's robots are stopped with the file's, not after the test (another test's
// would go with them).
afterAll(async () => {
  await Promise.all(sims.map((sim) => sim.stop()));
  await server.close();
});

/** Runs `change` on the locked delivery in a transaction, then lets the outbox send what it recorded. */
async function withDelivery(world: DeliveryWorld, deliveryId: string, change: Parameters<typeof lockAndRun>[2]): Promise<void> {
  await lockAndRun(world, deliveryId, change);
  server.context.commands.wake();
}
async function lockAndRun(
  world: DeliveryWorld,
  deliveryId: string,
  change: (tx: Parameters<Parameters<TestServer['context']['db']['transaction']>[0]>[0], row: NonNullable<Awaited<ReturnType<typeof lockDelivery>>>) => Promise<unknown>,
): Promise<void> {
  await server.context.db.transaction(async (tx) => {
    const row = await lockDelivery(tx, world.orgId, deliveryId);
    if (!row) throw new Error('delivery missing');
    await change(tx, row);
  });
}

const steps = (custody: readonly CustodyRow[]) => custody.map((step) => step.step);
const isSubsequence = (sub: readonly string[], all: readonly string[]) => {
  let i = 0;
  for (const item of all) if (item === sub[i]) i += 1;
  return i === sub.length;
};
const actionStatus = (sim: SimRobot, type: string) => sim.state?.actionStates.find((action) => action.actionType === type)?.actionStatus;

// Side by side (concurrent): each test has an organization and robots of its own, and mostly waits for them.
describe('a delivery carried by a simulated delivery robot', { concurrent: true }, () => {
  it('goes from the queue to Delivered: dispatched, Waiting for loading, loaded, Waiting for the recipient, a PIN at the robot, Delivered', async () => {
    const world = await deliveryWorld(server, { robots: 1 });
    const [robot] = world.robots;
    const [pickup, , dropoff] = world.roomIds;
    if (!robot || !pickup || !dropoff) throw new Error('world incomplete');
    const sim = await playDeliveryRobot(server, world, robot, sims);
    const started = Date.now();
    const delivery = await queueDelivery(server, world.orgId, { pickupRoomId: pickup, dropoffRoomId: dropoff, pin: '4821' });

    const dispatched = await waitForDelivery(server, delivery.id, (row) => row.robotId === robot.id, 'the delivery dispatched');
    expect(dispatched).toMatchObject({ dispatchAttempts: 1 });
    expect(dispatched.dispatchedAt).not.toBeNull();
    // At the pickup the robot opens its drawer and waits for the loading.
    const loading = await waitForDelivery(server, delivery.id, (row) => row.status === DeliveryStatus.waiting, 'Waiting at the pickup');
    expect(loading).toMatchObject({ waitingFor: 'loading', drawer: 'open' });
    expect(sim.drawer).toBe('open');
    expect(actionStatus(sim, 'pick')).toBe('RUNNING');

    // The sender confirms the loading in the console: the robot closes the drawer and departs.
    await withDelivery(world, delivery.id, (tx, row) => confirmLoadingOnRobot(server.context, tx, row));
    const atDropoff = await waitForDelivery(
      server,
      delivery.id,
      (row) => row.status === DeliveryStatus.waiting && row.waitingFor === 'recipient',
      'Waiting at the drop-off',
    );
    expect(atDropoff.loadedAt).not.toBeNull();
    expect(atDropoff.drawer).toBe('closed');

    // A wrong PIN at the robot: refused, with the attempts left on the robot's screen; the drawer stays locked.
    expect(sim.enterPin('1111')).not.toBeNull();
    await waitUntil(async () => (sim.pinEntries.at(-1)?.answer ? true : undefined), 10_000, 'the wrong PIN answered');
    expect(sim.pinEntries.at(-1)?.answer).toEqual({ accepted: false, attemptsLeft: 2, locked: false });
    expect((await readDelivery(server, delivery.id)).pinFailures).toBe(1);
    expect(sim.drawer).toBe('closed');

    expect(sim.enterPin('4821')).not.toBeNull();
    const delivered = await waitForDelivery(server, delivery.id, (row) => row.status === DeliveryStatus.delivered, 'Delivered');
    expect(sim.pinEntries.at(-1)?.answer).toEqual({ accepted: true });
    expect(delivered.deliveredAt).not.toBeNull();
    expect(delivered.handoffVerifiedAt).not.toBeNull();

    const custody = await custodyOf(server, delivery.id);
    expect(
      isSubsequence(['requested', 'dispatched', 'arrived', 'drawer_closed', 'loaded', 'departed', 'arrived', 'handoff_failed', 'received', 'drawer_opened', 'drawer_closed', 'delivered'], steps(custody)),
      steps(custody).join(', '),
    ).toBe(true);
    expect(steps(custody).at(-1)).toBe('delivered');
    const arrivals = custody.filter((step) => step.step === 'arrived');
    expect(arrivals.map((step) => [step.detail, step.place?.room_id])).toEqual([
      ['pickup', pickup],
      ['dropoff', dropoff],
    ]);
    // Robot steps carry the robot, its place on the floor and its time: in order, within the test.
    const robotSteps = custody.filter((step) => ['arrived', 'departed', 'delivered'].includes(step.step));
    for (const step of robotSteps) {
      expect(step.robotId).toBe(robot.id);
      expect(step.place?.floor_id).toBe(world.site.floors[0]?.id);
      expect(step.at.getTime()).toBeGreaterThanOrEqual(started - 1000);
    }
    const times = robotSteps.map((step) => step.at.getTime());
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(custody.find((step) => step.step === 'loaded')?.detail).toBe('robot');
    expect(custody.find((step) => step.step === 'received')?.detail).toBe('robot');
    // The robot goes home afterwards, and takes the next delivery.
    await sim.waitForState((state) => state.lastNodeId === 'home', 10_000);
  });

  it('pauses and resumes while Waiting, takes the loading from the button at the robot and the PIN from the console', async () => {
    const world = await deliveryWorld(server, { robots: 1 });
    const [robot] = world.robots;
    const [pickup, dropoff] = world.roomIds;
    if (!robot || !pickup || !dropoff) throw new Error('world incomplete');
    const sim = await playDeliveryRobot(server, world, robot, sims);
    const delivery = await queueDelivery(server, world.orgId, { pickupRoomId: pickup, dropoffRoomId: dropoff, pin: '0042' });
    await waitForDelivery(server, delivery.id, (row) => row.status === DeliveryStatus.waiting, 'Waiting at the pickup');

    await withDelivery(world, delivery.id, (tx, row) => pauseOrResumeOnRobot(server.context, tx, row, 'pause'));
    // Until the robot reports it, the pause shows as pending, never as Paused.
    const pending = await toDeliveries(server.context.db, [await readDelivery(server, delivery.id)]);
    expect(pending[0]?.status).toBe(DeliveryStatus.waiting);
    await waitForDelivery(server, delivery.id, (row) => row.status === DeliveryStatus.paused, 'Paused');
    await withDelivery(world, delivery.id, (tx, row) => pauseOrResumeOnRobot(server.context, tx, row, 'resume'));
    await waitForDelivery(server, delivery.id, (row) => row.status === DeliveryStatus.waiting, 'Waiting again');

    expect(sim.confirmLoading()).toBe(true);
    await waitForDelivery(server, delivery.id, (row) => row.status === DeliveryStatus.waiting && row.waitingFor === 'recipient', 'Waiting at the drop-off');
    // The recipient enters the PIN in the console.
    await withDelivery(world, delivery.id, async (tx, row) => {
      const result = await checkHandoffPin(server.context, tx, row, '0042', { actor: { userId: world.admin.id, name: 'Recipient' }, source: 'console' });
      expect(result.ok).toBe(true);
    });
    await waitForDelivery(server, delivery.id, (row) => row.status === DeliveryStatus.delivered, 'Delivered');
    const custody = steps(await custodyOf(server, delivery.id));
    expect(isSubsequence(['arrived', 'paused', 'resumed', 'loaded', 'departed', 'arrived', 'received', 'delivered'], custody), custody.join(', ')).toBe(true);
    const received = (await custodyOf(server, delivery.id)).find((step) => step.step === 'received');
    expect(received).toMatchObject({ detail: 'console', userId: world.admin.id });
  });

  it('cancelled in transit: the robot cancels its order', async () => {
    const world = await deliveryWorld(server, { robots: 1 });
    const [robot] = world.robots;
    const [, , pickup] = world.roomIds;
    const dropoff = world.roomIds[0];
    if (!robot || !pickup || !dropoff) throw new Error('world incomplete');
    // Slow: the way to the pickup takes long enough to cancel on it.
    const sim = await playDeliveryRobot(server, world, robot, sims, { timeFactor: 1 });
    const delivery = await queueDelivery(server, world.orgId, { pickupRoomId: pickup, dropoffRoomId: dropoff });
    await sim.waitForState((state) => state.orderId === delivery.id && state.driving, 10_000);
    expect((await readDelivery(server, delivery.id)).status).toBe(DeliveryStatus.inTransit);
    await withDelivery(world, delivery.id, async (tx, row) => {
      await cancelOnRobot(server.context, tx, row);
      await updateDelivery(server.context, tx, row, { status: DeliveryStatus.cancelled });
    });
    const cancelled = await sim.waitForState((state) => state.orderId === delivery.id && state.nodeStates.length === 0 && !state.driving, 10_000);
    expect(cancelled.actionStates.find((action) => action.actionType === 'pick')).toMatchObject({ actionStatus: 'FAILED' });
    // The cancel was acknowledged: nothing is pending any more.
    await waitUntil(async () => {
      const [shown] = await toDeliveries(server.context.db, [await readDelivery(server, delivery.id)]);
      return shown?.pending_command === null ? true : undefined;
    }, 10_000, 'the cancel acknowledged');
  });

  it('is Blocked while the robot reports a blocked way, and In transit again when it clears', async () => {
    const world = await deliveryWorld(server, { robots: 1 });
    const [robot] = world.robots;
    const [, , pickup] = world.roomIds;
    const dropoff = world.roomIds[0];
    if (!robot || !pickup || !dropoff) throw new Error('world incomplete');
    const sim = await playDeliveryRobot(server, world, robot, sims, { timeFactor: 1 });
    const delivery = await queueDelivery(server, world.orgId, { pickupRoomId: pickup, dropoffRoomId: dropoff });
    await sim.waitForState((state) => state.orderId === delivery.id && state.driving, 10_000);
    sim.blockPath(800);
    const blocked = await waitForDelivery(server, delivery.id, (row) => row.status === DeliveryStatus.blocked, 'Blocked');
    expect(blocked).toMatchObject({ reason: 'path_blocked', robotId: robot.id });
    expect(blocked.troubleSince).not.toBeNull();
    const back = await waitForDelivery(server, delivery.id, (row) => row.status === DeliveryStatus.inTransit, 'In transit again');
    expect(back.troubleSince).toBeNull();
    expect(steps(await custodyOf(server, delivery.id))).toEqual(['requested', 'dispatched', 'blocked', 'unblocked']);
  });

  it('hands a delivery not yet loaded back to the queue when its robot stays blocked, and another robot takes it', async () => {
    const world = await deliveryWorld(server, { robots: 2 });
    const [near, far] = world.robots;
    const [, pickup] = world.roomIds;
    const dropoff = world.roomIds[0];
    if (!near || !far || !pickup || !dropoff) throw new Error('world incomplete');
    const nearSim = await playDeliveryRobot(server, world, near, sims, { timeFactor: 1 });
    const delivery = await queueDelivery(server, world.orgId, { pickupRoomId: pickup, dropoffRoomId: dropoff });
    await nearSim.waitForState((state) => state.orderId === delivery.id && state.driving, 10_000);
    nearSim.blockPath(60_000);
    await waitForDelivery(server, delivery.id, (row) => row.status === DeliveryStatus.blocked, 'Blocked');
    await playDeliveryRobot(server, world, far, sims);
    const taken = await waitForDelivery(server, delivery.id, (row) => row.robotId === far.id, 'taken by the other robot', HANDBACK_MS + 10_000);
    expect(taken).toMatchObject({ dispatchAttempts: 2, reason: 'path_blocked' });
    const requeued = (await custodyOf(server, delivery.id)).find((step) => step.step === 'requeued');
    expect(requeued).toMatchObject({ robotId: near.id, detail: 'path_blocked' });
    // The blocked robot was told to cancel the order it handed back.
    await nearSim.waitForState((state) => state.orderId === delivery.id && state.nodeStates.length === 0, 10_000);
    // The new robot's order has new action ids: it carries the delivery to the end.
    await waitForDelivery(server, delivery.id, (row) => row.status === DeliveryStatus.waiting, 'Waiting at the pickup with the new robot');
  });

  it('keeps a loaded delivery with its blocked robot, Blocked, however long', async () => {
    const world = await deliveryWorld(server, { robots: 2 });
    const [robot, other] = world.robots;
    const [pickup, , dropoff] = world.roomIds;
    if (!robot || !other || !pickup || !dropoff) throw new Error('world incomplete');
    const sim = await playDeliveryRobot(server, world, robot, sims, { timeFactor: 2 });
    await playDeliveryRobot(server, world, other, sims);
    const delivery = await queueDelivery(server, world.orgId, { pickupRoomId: pickup, dropoffRoomId: dropoff });
    await waitForDelivery(server, delivery.id, (row) => row.status === DeliveryStatus.waiting && row.robotId === robot.id, 'Waiting at the pickup');
    sim.confirmLoading();
    await sim.waitForState((state) => state.driving && state.actionStates.some((action) => action.actionType === 'pick' && action.actionStatus === 'FINISHED'), 10_000);
    sim.blockPath(60_000);
    await waitForDelivery(server, delivery.id, (row) => row.status === DeliveryStatus.blocked, 'Blocked');
    await new Promise((resolve) => setTimeout(resolve, HANDBACK_MS * 2));
    const still = await readDelivery(server, delivery.id);
    expect(still).toMatchObject({ status: DeliveryStatus.blocked, robotId: robot.id, dispatchAttempts: 1 });
    expect(steps(await custodyOf(server, delivery.id))).not.toContain('requeued');
  });

  it('hands the delivery of a robot that went away back to the queue', async () => {
    const world = await deliveryWorld(server, { robots: 2 });
    const [gone, stays] = world.robots;
    const [pickup, dropoff] = world.roomIds;
    if (!gone || !stays || !pickup || !dropoff) throw new Error('world incomplete');
    const goneSim = await playDeliveryRobot(server, world, gone, sims, { timeFactor: 1 });
    const delivery = await queueDelivery(server, world.orgId, { pickupRoomId: pickup, dropoffRoomId: dropoff });
    await goneSim.waitForState((state) => state.orderId === delivery.id, 10_000);
    await goneSim.kill();
    await playDeliveryRobot(server, world, stays, sims);
    const taken = await waitForDelivery(server, delivery.id, (row) => row.robotId === stays.id, 'taken by the robot still there', HANDBACK_MS + 10_000);
    expect(taken).toMatchObject({ reason: 'robot_offline', dispatchAttempts: 2 });
  });

  it('blocks a delivery instead of handing it back once DELIVERY_MAX_DISPATCHES robots had it, and frees the robot', async () => {
    const world = await deliveryWorld(server, { robots: 1 });
    const [robot] = world.robots;
    const [, , pickup] = world.roomIds;
    const dropoff = world.roomIds[0];
    if (!robot || !pickup || !dropoff) throw new Error('world incomplete');
    const sim = await playDeliveryRobot(server, world, robot, sims, { timeFactor: 1 });
    const delivery = await queueDelivery(server, world.orgId, { pickupRoomId: pickup, dropoffRoomId: dropoff });
    await sim.waitForState((state) => state.orderId === delivery.id && state.driving, 10_000);
    // As if two robots had handed it back before this one.
    await lockAndRun(world, delivery.id, (tx, row) => updateDelivery(server.context, tx, row, { dispatchAttempts: 3 }));
    sim.blockPath(60_000);
    const blocked = await waitForDelivery(server, delivery.id, (row) => row.reason === 'handback_limit', 'Blocked at the limit', HANDBACK_MS + 10_000);
    expect(blocked).toMatchObject({ status: DeliveryStatus.blocked, robotId: null });
    expect(steps(await custodyOf(server, delivery.id))).not.toContain('requeued');
    await sim.waitForState((state) => state.orderId === delivery.id && state.nodeStates.length === 0, 10_000);
  });
});
