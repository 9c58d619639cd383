/**
 * The delivery dispatcher (README.md, "Deliveries"): a queue per organization. A Queued delivery goes to the best
 * free delivery robot: kind `delivery`, online, Autonomous, battery at least `DELIVERY_MIN_BATTERY`, no FATAL error
 * and no blocked way, not carrying another open delivery, and not one that handed this delivery back; nearest to
 * the pickup on the floor graph (floor-graph.ts). Deliveries are served stat, then urgent, then routine, oldest
 * first. Exactly once across server processes: the queue's rows are locked with FOR UPDATE SKIP LOCKED and the
 * robot's row with SKIP LOCKED too, the robot is checked free again under its lock, and the delivery's change, its
 * custody step `dispatched` and the robot's order (in the outbox) commit together; the order is sent after commit.
 * A robot that was told to cancel its order is not free until it took the cancel and reports that order over (a
 * cancelOrder resent after a new order would cancel the new one). A delivery that cannot be given out (an error in
 * its transaction's savepoint) is logged and skipped; one organization's failure does not stop the others.
 * It runs when woken (a delivery Queued, a robot freed, its cancel taken (the outbox republishes the delivery), its
 * order reported over, a robot back online: the bus carries delivery_change from every process) and every
 * `DELIVERY_DISPATCH_POLL_MS`.
 */
import { and, asc, eq, inArray, notInArray, sql } from 'drizzle-orm';
import { z } from 'zod';
import { DeliveryStatus, RobotMode, UVD_PATH_BLOCKED_ERROR, type DeliveryPlace } from '@uvd/contracts';
import type { AppContext } from '../../context.ts';
import type { Executor, Tx } from '../../db/client.ts';
import { deliveries, deliveryCustody, floors, robotCommands, robots, rooms, type Pose } from '../../db/schema.ts';
import { recordCustody, updateDelivery, type DeliveryRow } from '../../deliveries/lifecycle.ts';
import { wakeable } from '../../lib/wakeable.ts';
import type { Fleet } from '../fleet.ts';
import { recordCommand } from '../outbox.ts';
import { FloorGraph, type GraphPlace } from './floor-graph.ts';
import { buildDeliveryOrder, type DeliveryStop } from './order.ts';

/** Statuses of a delivery a robot is carrying (or holding, while Blocked). */
export const CARRIED_STATUSES: readonly DeliveryStatus[] = [DeliveryStatus.inTransit, DeliveryStatus.paused, DeliveryStatus.waiting, DeliveryStatus.blocked];
const BATCH = 50;

type Context = Pick<AppContext, 'db' | 'bus' | 'fleet' | 'commands' | 'config'>;

export interface DeliveryDispatcher {
  /** Looks at the queue soon (a round never runs twice at once). */
  wake(): void;
  /** One round now: dispatches what it can; returns the deliveries dispatched. */
  tick(): Promise<string[]>;
  idle(): Promise<void>;
  close(): Promise<void>;
}

export type RobotCandidate = Pick<typeof robots.$inferSelect, 'id' | 'name' | 'mode' | 'battery' | 'errors' | 'floorId' | 'pose' | 'home'>;

/** Whether a robot in this mode, with this charge and these errors, may take a delivery. */
const fitToDispatch = (robot: { mode: number } & Pick<RobotCandidate, 'battery' | 'errors'>, minBattery: number): boolean =>
  robot.mode === RobotMode.autonomous &&
  robot.battery >= minBattery &&
  !robot.errors.some((error) => error.errorLevel === 'FATAL' || error.errorType === UVD_PATH_BLOCKED_ERROR);

/** Whether the robot may take a delivery now, from the gateway's view of it (the row while the gateway has none). */
export function isFreeToDispatch(fleet: Pick<Fleet, 'isOnline' | 'link'>, robot: RobotCandidate, minBattery: number): boolean {
  if (!fleet.isOnline(robot.id)) return false;
  const link = fleet.link(robot.id);
  return fitToDispatch({ mode: link?.mode ?? robot.mode, battery: link?.battery ?? robot.battery, errors: link?.errors ?? robot.errors }, minBattery);
}

/** Where the robot is: its live report, else its row, else its home on its floor. */
export function placeOf(fleet: Pick<Fleet, 'link'>, robot: Pick<RobotCandidate, 'id' | 'floorId' | 'pose' | 'home'>): { floorId: string | null; pose: Pose | null } {
  const link = fleet.link(robot.id);
  if (link?.pose && link.floorId) return { floorId: link.floorId, pose: link.pose };
  return { floorId: robot.floorId, pose: robot.pose ?? robot.home };
}

const graphPlace = (place: { floorId: string | null; pose: Pose | null }): GraphPlace | undefined =>
  place.floorId && place.pose ? { floorId: place.floorId, x: place.pose.x, y: place.pose.y } : undefined;

export const deliveryPlace = (place: { floorId: string | null; pose: Pose | null }, roomId: string | null = null): DeliveryPlace | null =>
  place.pose ? { floor_id: place.floorId, x: place.pose.x, y: place.pose.y, room_id: roomId } : null;

/** The organization's floor graph: its floors, with the rooms' entry points and the robots' homes on each. */
export async function loadFloorGraph(executor: Executor, orgId: string): Promise<FloorGraph> {
  // One after another: on a transaction's one connection, queries do not run side by side.
  const floorRows = await executor.select({ id: floors.id, buildingId: floors.buildingId, level: floors.level }).from(floors).where(eq(floors.orgId, orgId));
  const roomRows = await executor.select({ floorId: rooms.floorId, entryPoint: rooms.entryPoint }).from(rooms).where(eq(rooms.orgId, orgId));
  const robotRows = await executor.select({ floorId: robots.floorId, home: robots.home }).from(robots).where(eq(robots.orgId, orgId));
  const places = [
    ...roomRows.map((room) => ({ floorId: room.floorId, point: room.entryPoint })),
    ...robotRows.map((robot) => ({ floorId: robot.floorId, point: robot.home })),
  ];
  return new FloorGraph(
    floorRows.map((floor) => ({
      ...floor,
      places: places.flatMap((place) => (place.floorId === floor.id && place.point ? [place.point] : [])),
    })),
  );
}

/** The pickup and drop-off rooms of deliveries as the order names them. */
export async function deliveryStops(executor: Executor, roomIds: readonly string[]): Promise<Map<string, DeliveryStop>> {
  if (roomIds.length === 0) return new Map();
  const rows = await executor
    .select({ id: rooms.id, floorId: rooms.floorId, entryPoint: rooms.entryPoint })
    .from(rooms)
    .where(inArray(rooms.id, [...new Set(roomIds)]));
  return new Map(rows.map((row) => [row.id, { roomId: row.id, floorId: row.floorId, entryPoint: row.entryPoint }]));
}

const DeliveryId = z.uuid();

const PRIORITY_RANK = sql`CASE ${deliveries.priority} WHEN 'stat' THEN 0 WHEN 'urgent' THEN 1 ELSE 2 END`;

/** Robots carrying (or holding) an open delivery, among `robotIds`. */
async function carryingRobots(executor: Executor, robotIds: readonly string[]): Promise<Set<string>> {
  if (robotIds.length === 0) return new Set();
  const rows = await executor
    .select({ robotId: deliveries.robotId })
    .from(deliveries)
    .where(and(inArray(deliveries.robotId, [...robotIds]), inArray(deliveries.status, [...CARRIED_STATUSES])));
  return new Set(rows.flatMap((row) => (row.robotId ? [row.robotId] : [])));
}

/**
 * Gives `delivery` (locked, Queued) to `robot` (locked, free): In transit with its robot, the dispatch counted, the
 * custody step `dispatched`, and the robot's order recorded in the outbox, all in `tx`.
 */
async function assign(
  ctx: Context,
  tx: Tx,
  delivery: DeliveryRow,
  robot: RobotCandidate,
  pickup: DeliveryStop,
  dropoff: DeliveryStop,
): Promise<void> {
  const dispatch = delivery.dispatchAttempts + 1;
  const place = placeOf(ctx.fleet, robot);
  const order = buildDeliveryOrder({
    deliveryId: delivery.id,
    dispatch,
    orderUpdateId: 0,
    pickup,
    dropoff,
    // As a job's order: home is the robot's dock on the floor it is on.
    home: { floorId: robot.floorId ?? place.floorId, pose: robot.home },
    start: place,
  });
  await recordCommand(tx, { orgId: delivery.orgId, robotId: robot.id, jobId: null, deliveryId: delivery.id, kind: 'order', body: { order } });
  const now = new Date();
  await updateDelivery(ctx, tx, delivery, {
    status: DeliveryStatus.inTransit,
    robotId: robot.id,
    dispatchAttempts: dispatch,
    dispatchedAt: now,
    troubleSince: null,
    waitingFor: null,
    waitingSince: null,
    drawer: null,
    orderUpdateId: 0,
  });
  await recordCustody(tx, delivery, 'dispatched', { at: now, robot: { id: robot.id, name: robot.name }, place: deliveryPlace(place) });
}

/**
 * Robots among `robotIds` that were told to cancel an order and have not taken it yet (an open `stop` in the
 * outbox): the stop is resent until the robot takes it, and a cancelOrder taken after a new order would cancel that
 * one. The stop's acknowledgement republishes its delivery, which wakes the dispatcher.
 */
async function cancellingRobots(executor: Executor, robotIds: readonly string[]): Promise<Set<string>> {
  if (robotIds.length === 0) return new Set();
  const rows = await executor
    .selectDistinct({ robotId: robotCommands.robotId })
    .from(robotCommands)
    .where(and(inArray(robotCommands.robotId, [...robotIds]), eq(robotCommands.kind, 'stop'), inArray(robotCommands.state, ['pending', 'sent'])));
  return new Set(rows.map((row) => row.robotId));
}

/**
 * Robots among `candidates` still running an order of a delivery they no longer carry (cancelled or handed back: a
 * robot may report its cancelled order for a while after it took the cancel), or any other order; a robot whose
 * order is that of a Delivered delivery is on its way home and free. Their state reporting the order over wakes the
 * dispatcher (`startDispatcher`).
 */
async function finishingRobots(executor: Executor, fleet: Pick<Fleet, 'link'>, candidates: readonly Pick<RobotCandidate, 'id'>[]): Promise<Set<string>> {
  const running = new Map<string, string>();
  for (const robot of candidates) {
    const link = fleet.link(robot.id);
    if (link?.work?.order) running.set(robot.id, link.lastNode?.orderId ?? '');
  }
  const orderIds = [...new Set(running.values())].filter((orderId) => DeliveryId.safeParse(orderId).success);
  const delivered = new Set(
    orderIds.length === 0
      ? []
      : (
          await executor
            .select({ id: deliveries.id })
            .from(deliveries)
            .where(and(inArray(deliveries.id, orderIds), eq(deliveries.status, DeliveryStatus.delivered)))
        ).map((row) => row.id),
  );
  return new Set([...running].flatMap(([robotId, orderId]) => (delivered.has(orderId) ? [] : [robotId])));
}

/** Robots among `robotIds` that may not take a delivery whatever the gateway says: carrying one, or still cancelling one. */
async function busyRobots(executor: Executor, fleet: Pick<Fleet, 'link'>, robotIds: readonly string[]): Promise<Set<string>> {
  const carrying = await carryingRobots(executor, robotIds);
  const cancelling = await cancellingRobots(executor, robotIds);
  const finishing = await finishingRobots(executor, fleet, robotIds.filter((id) => !carrying.has(id)).map((id) => ({ id })));
  return new Set([...carrying, ...cancelling, ...finishing]);
}

/**
 * One organization's queue: returns the deliveries dispatched. The queue is read in batches of `BATCH` while free
 * robots remain, so deliveries none of the free robots may take (each handed back by them) never hold back the
 * ones after them. A free robot whose row another transaction holds is passed over for the rest of the round
 * (`onPassedOver`, awaited, asks for another round soon): were it tried again for the next delivery, a lock let go
 * in between would give it a routine delivery while a stat one waits.
 */
export async function dispatchOrganization(
  ctx: Context,
  orgId: string,
  onError: (error: unknown, message: string) => void,
  onPassedOver: () => void | Promise<void>,
): Promise<string[]> {
  return ctx.db.transaction(async (tx) => {
    const nextBatch = (seen: readonly string[]) =>
      tx
        .select()
        .from(deliveries)
        .where(and(eq(deliveries.orgId, orgId), eq(deliveries.status, DeliveryStatus.queued), seen.length > 0 ? notInArray(deliveries.id, [...seen]) : undefined))
        .orderBy(PRIORITY_RANK, asc(deliveries.createdAt), asc(deliveries.id))
        .limit(BATCH)
        .for('update', { skipLocked: true });
    let queue = await nextBatch([]);
    if (queue.length === 0) return [];
    const fleetRobots = await tx
      .select({
        id: robots.id,
        name: robots.name,
        mode: robots.mode,
        battery: robots.battery,
        errors: robots.errors,
        floorId: robots.floorId,
        pose: robots.pose,
        home: robots.home,
      })
      .from(robots)
      .where(and(eq(robots.orgId, orgId), eq(robots.kind, 'delivery')))
      .orderBy(asc(robots.name));
    const online = fleetRobots.filter((robot) => isFreeToDispatch(ctx.fleet, robot, ctx.config.deliveryMinBattery));
    const busy = await busyRobots(tx, ctx.fleet, online.map((robot) => robot.id));
    let free = online.filter((robot) => !busy.has(robot.id));
    if (free.length === 0) return [];
    const graph = await loadFloorGraph(tx, orgId);
    const seen: string[] = [];
    const dispatched: string[] = [];
    while (queue.length > 0 && free.length > 0) {
      seen.push(...queue.map((delivery) => delivery.id));
      const stops = await deliveryStops(tx, queue.flatMap((delivery) => [delivery.pickupRoomId, delivery.dropoffRoomId]));
      const handedBack = await tx
        .select({ deliveryId: deliveryCustody.deliveryId, robotId: deliveryCustody.robotId })
        .from(deliveryCustody)
        .where(and(inArray(deliveryCustody.deliveryId, queue.map((delivery) => delivery.id)), eq(deliveryCustody.step, 'requeued')));
      for (const delivery of queue) {
        if (free.length === 0) break;
        const pickup = stops.get(delivery.pickupRoomId);
        const dropoff = stops.get(delivery.dropoffRoomId);
        if (!pickup || !dropoff) continue;
        const target = graphPlace({ floorId: pickup.floorId, pose: pickup.entryPoint });
        const gaveBack = new Set(handedBack.flatMap((step) => (step.deliveryId === delivery.id && step.robotId ? [step.robotId] : [])));
        const ranked = free
          .filter((robot) => !gaveBack.has(robot.id))
          .map((robot) => {
            const from = graphPlace(placeOf(ctx.fleet, robot));
            return { robot, distance: from && target ? graph.distance(from, target) : Number.POSITIVE_INFINITY };
          })
          .sort((a, b) => a.distance - b.distance);
        for (const { robot } of ranked) {
          // Another process may be giving this robot a delivery right now: leave it to that one.
          const [locked] = await tx.select({ id: robots.id }).from(robots).where(eq(robots.id, robot.id)).for('update', { skipLocked: true });
          if (!locked) {
            // Or a write of its state holds the row for a moment: look again soon, not at the next poll. Not in this
            // round: the deliveries after this one come after it in the queue.
            free = free.filter((candidate) => candidate.id !== robot.id);
            await onPassedOver();
            continue;
          }
          // Under the lock, what another process committed since is seen (a delivery, a cancel recorded with the robot locked).
          if ((await busyRobots(tx, ctx.fleet, [robot.id])).size > 0) {
            free = free.filter((candidate) => candidate.id !== robot.id);
            continue;
          }
          try {
            await tx.transaction(async (savepoint) => assign(ctx, savepoint, delivery, robot, pickup, dropoff));
          } catch (error) {
            // This delivery only: the others of the queue still go out this round.
            onError(error, `delivery ${delivery.id} could not be dispatched`);
            break;
          }
          free = free.filter((candidate) => candidate.id !== robot.id);
          dispatched.push(delivery.id);
          break;
        }
      }
      queue = queue.length < BATCH || free.length === 0 ? [] : await nextBatch(seen);
    }
    return dispatched;
  });
}

const StatusPayload = z.object({ status: z.number() });

/** A round that passed over a free robot whose row was locked looks at the queue again after this long. */
const PASSED_OVER_RETRY_MS = 200;

export function startDispatcher(ctx: Context, onError: (error: unknown, message: string) => void): DeliveryDispatcher {
  let retry: NodeJS.Timeout | undefined;
  const passedOver = () => {
    retry ??= setTimeout(() => {
      retry = undefined;
      worker.wake();
    }, PASSED_OVER_RETRY_MS).unref();
  };
  const tick = async (): Promise<string[]> => {
    const orgs = await ctx.db.selectDistinct({ orgId: deliveries.orgId }).from(deliveries).where(eq(deliveries.status, DeliveryStatus.queued));
    const dispatched: string[] = [];
    for (const { orgId } of orgs) {
      // One organization's failure is logged and leaves the others' queues served.
      try {
        dispatched.push(...(await dispatchOrganization(ctx, orgId, onError, passedOver)));
      } catch (error) {
        onError(error, `the delivery queue of organization ${orgId} could not be dispatched`);
      }
    }
    // The orders were recorded with the dispatches: they go out now.
    if (dispatched.length > 0) ctx.commands.wake();
    return dispatched;
  };
  const worker = wakeable(
    async (self) => {
      do await tick();
      while (self.again() && !self.closed);
    },
    (error) => {
      onError(error, 'the delivery dispatcher failed');
    },
  );
  // A delivery Queued (requested, handed back) or one that freed its robot (Delivered, Cancelled, Blocked), in any process.
  const unsubscribe = ctx.bus.subscribe('deliveries', (event) => {
    if (event.type !== 'delivery_change') return;
    const status = StatusPayload.safeParse(event.payload).data?.status;
    if (status !== undefined && status !== DeliveryStatus.inTransit && status !== DeliveryStatus.waiting && status !== DeliveryStatus.paused) worker.wake();
  });
  // A robot whose state makes it free may take a delivery now: its order over (a cancelled one finished,
  // `finishingRobots`), Autonomous again, charged past the minimum, an error cleared.
  const fit = new Set<string>();
  const unsubscribeState = ctx.fleet.onStateEvent((event) => {
    const robotId = event.robot.robotId;
    if (event.work.order || !fitToDispatch(event.fields, ctx.config.deliveryMinBattery)) fit.delete(robotId);
    else if (!fit.has(robotId)) {
      fit.add(robotId);
      worker.wake();
    }
  });
  const unsubscribeConnection = ctx.fleet.onConnection((robot, online) => {
    if (online) worker.wake();
    // Back online, its first state tells afresh whether it is free.
    else fit.delete(robot.robotId);
  });
  const timer = setInterval(() => {
    worker.wake();
  }, ctx.config.deliveryDispatchPollMs);
  timer.unref();
  worker.wake();
  return {
    wake: () => {
      worker.wake();
    },
    tick,
    idle: () => worker.idle(),
    async close() {
      clearInterval(timer);
      clearTimeout(retry);
      unsubscribe();
      unsubscribeConnection();
      unsubscribeState();
      await worker.close();
    },
  };
}
