/**
 * A delivery's state in the database, shared by the deliveries API (routes.ts) and the robot link (dispatch and the
 * robot's state, robot-link/deliveries/): lock a delivery, change it, append to its chain of custody, and publish
 * the `delivery_change` the live stream carries, all in the caller's transaction.
 */
import { and, asc, eq, inArray } from 'drizzle-orm';
import {
  DeliveryStatus,
  FINAL_DELIVERY_STATUSES,
  HANDOFF_PIN_ATTEMPTS,
  type CustodyStep,
  type CustodyStepKind,
  type Delivery,
  type DeliveryDetail,
  type DeliveryPlace,
  type DeliveryRoom,
} from '@uvd/contracts';
import type { AppContext } from '../context.ts';
import type { Executor, Tx } from '../db/client.ts';
import type { Principal } from '../identity/principal.ts';
import { deliveries, deliveryCustody, deliveryItems, robotCommands, robots, rooms } from '../db/schema.ts';

export type DeliveryRow = typeof deliveries.$inferSelect;
export type CustodyRow = typeof deliveryCustody.$inferSelect;

/** Who did something to a delivery: a signed-in user, or nobody (the robot, the dispatcher). */
export interface Actor {
  userId: string | null;
  name: string;
}

/** The signed-in caller as an actor: their name as people read it, else their username. */
export const actorOf = (principal: Principal): Actor => ({
  userId: principal.sub,
  name: `${principal.givenName} ${principal.familyName}`.trim() || principal.username,
});

export interface CustodyInput {
  /** The robot's time for what the robot reported; the server's now otherwise. */
  at?: Date;
  user?: Actor | null;
  robot?: { id: string; name: string } | null;
  place?: DeliveryPlace | null;
  detail?: string | null;
}

export const isFinalStatus = (status: DeliveryStatus): boolean => FINAL_DELIVERY_STATUSES.includes(status);

/** The delivery, locked for the change that follows. */
export async function lockDelivery(executor: Executor, orgId: string, deliveryId: string): Promise<DeliveryRow | undefined> {
  const [row] = await executor
    .select()
    .from(deliveries)
    .where(and(eq(deliveries.orgId, orgId), eq(deliveries.id, deliveryId)))
    .for('update');
  return row;
}

/** Appends one step to the delivery's chain of custody (the database refuses it once the delivery is Delivered). */
export async function recordCustody(
  tx: Tx,
  delivery: Pick<DeliveryRow, 'id' | 'orgId'>,
  step: CustodyStepKind,
  input: CustodyInput = {},
): Promise<void> {
  await tx.insert(deliveryCustody).values({
    orgId: delivery.orgId,
    deliveryId: delivery.id,
    step,
    at: input.at ?? new Date(),
    userId: input.user?.userId ?? null,
    userName: input.user?.name ?? null,
    robotId: input.robot?.id ?? null,
    robotName: input.robot?.name ?? null,
    place: input.place ?? null,
    detail: input.detail ?? null,
  });
}

/** Writes `changes` to the locked delivery and publishes its `delivery_change`; returns the row as it is now. */
export async function updateDelivery(
  ctx: Pick<AppContext, 'bus'>,
  tx: Tx,
  delivery: DeliveryRow,
  changes: Partial<Omit<DeliveryRow, 'id' | 'orgId' | 'createdAt'>>,
): Promise<DeliveryRow> {
  const [row] = await tx
    .update(deliveries)
    .set({ ...changes, updatedAt: new Date() })
    .where(eq(deliveries.id, delivery.id))
    .returning();
  const updated = row ?? delivery;
  await publishDeliveryChange(ctx, tx, updated);
  return updated;
}

/** `delivery_change` with the delivery as the list shows it (the client replaces it by delivery_id). */
export async function publishDeliveryChange(ctx: Pick<AppContext, 'bus'>, tx: Tx, delivery: DeliveryRow): Promise<void> {
  const [payload] = await toDeliveries(tx, [delivery]);
  if (!payload) return;
  await ctx.bus.publish({ orgId: delivery.orgId, stream: 'deliveries', key: delivery.id, type: 'delivery_change', payload }, tx);
}

const PENDING_KINDS: Readonly<Record<string, Delivery['pending_command']>> = { pause: 'pause', resume: 'resume', stop: 'cancel' };

/** Deliveries as the API shows them, in the order given. */
export async function toDeliveries(executor: Executor, rows: readonly DeliveryRow[]): Promise<Delivery[]> {
  if (rows.length === 0) return [];
  const ids = rows.map((row) => row.id);
  const roomIds = [...new Set(rows.flatMap((row) => [row.pickupRoomId, row.dropoffRoomId]))];
  const robotIds = [...new Set(rows.flatMap((row) => (row.robotId ? [row.robotId] : [])))];
  // One query after another: inside a transaction they share one connection, where queries cannot overlap.
  const roomRows = await executor
    .select({ id: rooms.id, name: rooms.name, floorId: rooms.floorId, buildingId: rooms.buildingId })
    .from(rooms)
    .where(inArray(rooms.id, roomIds));
  const robotRows = robotIds.length ? await executor.select({ id: robots.id, name: robots.name }).from(robots).where(inArray(robots.id, robotIds)) : [];
  const itemRows = await executor.select().from(deliveryItems).where(inArray(deliveryItems.deliveryId, ids)).orderBy(asc(deliveryItems.position));
  const commandRows = await executor
    .select({ deliveryId: robotCommands.deliveryId, kind: robotCommands.kind, seq: robotCommands.seq })
    .from(robotCommands)
    .where(and(inArray(robotCommands.deliveryId, ids), inArray(robotCommands.state, ['pending', 'sent'])))
    .orderBy(asc(robotCommands.seq));
  const roomOf = new Map(
    roomRows.map((room): [string, DeliveryRoom] => [room.id, { room_id: room.id, name: room.name, floor_id: room.floorId, building_id: room.buildingId }]),
  );
  const robotName = new Map(robotRows.map((robot) => [robot.id, robot.name]));
  const pending = new Map<string, Delivery['pending_command']>();
  for (const command of commandRows) {
    const kind = PENDING_KINDS[command.kind];
    if (command.deliveryId && kind) pending.set(command.deliveryId, kind);
  }
  const now = Date.now();
  const missingRoom = (id: string): DeliveryRoom => ({ room_id: id, name: '', floor_id: id, building_id: id });
  return rows.map((row) => ({
    delivery_id: row.id,
    status: row.status,
    priority: row.priority,
    pickup: roomOf.get(row.pickupRoomId) ?? missingRoom(row.pickupRoomId),
    dropoff: roomOf.get(row.dropoffRoomId) ?? missingRoom(row.dropoffRoomId),
    items: itemRows
      .filter((item) => item.deliveryId === row.id)
      .map((item) => ({ description: item.description, category: item.category, quantity: item.quantity })),
    robot_id: row.robotId,
    robot_name: row.robotId ? (robotName.get(row.robotId) ?? null) : null,
    requested_by: { user_id: row.requestedById, name: row.requestedByName },
    recipient_user_id: row.recipientUserId,
    recipient_name: row.recipientName,
    deliver_by: row.deliverBy?.toISOString() ?? null,
    notes: row.notes,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
    waiting_for: row.status === DeliveryStatus.waiting ? row.waitingFor : null,
    waiting_since: row.status === DeliveryStatus.waiting ? (row.waitingSince?.toISOString() ?? null) : null,
    reason: row.reason,
    dispatch_attempts: row.dispatchAttempts,
    handoff_attempts_left: Math.max(0, HANDOFF_PIN_ATTEMPTS - row.pinFailures),
    handoff_locked: row.handoffLockedAt !== null,
    drawer: row.robotId ? row.drawer : null,
    pending_command: pending.get(row.id) ?? null,
    delivered_at: row.deliveredAt?.toISOString() ?? null,
    late: row.deliverBy !== null && row.status !== DeliveryStatus.delivered && !isFinalStatus(row.status) && row.deliverBy.getTime() < now,
  }));
}

export const toCustodyStep = (row: CustodyRow): CustodyStep => ({
  step: row.step,
  at: row.at.toISOString(),
  recorded_at: row.recordedAt.toISOString(),
  user_id: row.userId,
  user_name: row.userName,
  robot_id: row.robotId,
  robot_name: row.robotName,
  place: row.place,
  detail: row.detail,
});

/** One delivery with its chain of custody (oldest step first) and its route: pickup, then drop-off. */
export async function toDeliveryDetail(executor: Executor, row: DeliveryRow): Promise<DeliveryDetail> {
  const [delivery] = await toDeliveries(executor, [row]);
  const custody = await executor.select().from(deliveryCustody).where(eq(deliveryCustody.deliveryId, row.id)).orderBy(asc(deliveryCustody.id));
  const stops = await executor
    .select({ id: rooms.id, floorId: rooms.floorId, entryPoint: rooms.entryPoint })
    .from(rooms)
    .where(inArray(rooms.id, [row.pickupRoomId, row.dropoffRoomId]));
  if (!delivery) throw new Error(`delivery ${row.id} could not be read`);
  const route = [row.pickupRoomId, row.dropoffRoomId].flatMap((roomId): DeliveryPlace[] => {
    const room = stops.find((stop) => stop.id === roomId);
    return room?.entryPoint ? [{ floor_id: room.floorId, x: room.entryPoint.x, y: room.entryPoint.y, room_id: room.id }] : [];
  });
  return { ...delivery, custody: custody.map(toCustodyStep), route };
}
