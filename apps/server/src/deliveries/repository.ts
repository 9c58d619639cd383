/**
 * SQL of the deliveries backend. Every query filters on the caller's organization; a teleoperator sees the
 * deliveries whose robot, pickup room or drop-off room is in one of their groups, and those they requested or
 * receive (README.md); the restricted roles see all of their organization's.
 */
import { and, eq, inArray, or, sql, type SQL } from 'drizzle-orm';
import {
  DeliveryStatus,
  ErrorCode,
  START_TIME_IN_PAST,
  startTimeInPast,
  type Delivery,
  type DeliveryInput,
  type DeliveryListQuery,
  type DeliveryRecipient,
  type DeliveryRecipientQuery,
} from '@uvd/contracts';
import type { z } from 'zod';
import type { Executor, Tx } from '../db/client.ts';
import { deliveries, deliveryItems, rooms, users } from '../db/schema.ts';
import type { Principal } from '../identity/principal.ts';
import { badRequest, HttpError, notFound } from '../lib/http-error.ts';
import { robotVisible, roomVisible, seesEverything } from '../lib/visibility.ts';
import { cappedCount, dateConditions, filterTimeZone } from '../jobs/list-filter.ts';
import { actorOf, toDeliveries, type DeliveryRow } from './lifecycle.ts';

type ParsedInput = z.output<typeof DeliveryInput>;
type ListFilter = z.output<typeof DeliveryListQuery>;
type RecipientFilter = z.output<typeof DeliveryRecipientQuery>;

/** The deliveries a teleoperator sees; undefined (the organization filter alone) for the restricted roles. */
export function deliveryVisible(executor: Executor, principal: Principal): SQL | undefined {
  if (seesEverything(principal)) return undefined;
  return or(
    robotVisible(executor, principal, deliveries.robotId),
    roomVisible(executor, principal, deliveries.pickupRoomId),
    roomVisible(executor, principal, deliveries.dropoffRoomId),
    eq(deliveries.requestedById, principal.sub),
    eq(deliveries.recipientUserId, principal.sub),
  );
}

/** The delivery `deliveryId` if the caller sees it; `lock` takes a row lock for a change that follows. */
export async function findDelivery(executor: Executor, principal: Principal, deliveryId: string, lock = false): Promise<DeliveryRow | undefined> {
  const query = executor
    .select()
    .from(deliveries)
    .where(and(eq(deliveries.id, deliveryId), eq(deliveries.orgId, principal.orgId), deliveryVisible(executor, principal)));
  const [row] = lock ? await query.for('update') : await query;
  return row;
}

/** The delivery the caller sees, else 404 (another organization's or an invisible one alike). */
export async function requireDelivery(executor: Executor, principal: Principal, deliveryId: string, lock = false): Promise<DeliveryRow> {
  const row = await findDelivery(executor, principal, deliveryId, lock);
  if (!row) throw notFound('Delivery');
  return row;
}

const OPEN = sql`${deliveries.status} NOT IN (${DeliveryStatus.delivered}, ${DeliveryStatus.cancelled})`;
/**
 * Open first (stat, urgent, routine; then oldest first), then finished newest first. One expression per key, so
 * the page query and the reading query order alike.
 */
const LIST_ORDER = sql`(CASE WHEN ${OPEN} THEN 0 ELSE 1 END),
  (CASE WHEN ${OPEN} THEN (CASE ${deliveries.priority} WHEN 'stat' THEN 0 WHEN 'urgent' THEN 1 ELSE 2 END) ELSE 0 END),
  (CASE WHEN ${OPEN} THEN extract(epoch FROM ${deliveries.createdAt}) ELSE -extract(epoch FROM ${deliveries.createdAt}) END),
  ${deliveries.id}`;

/** One page of the deliveries the caller sees, and the count of every match (capped as the jobs list's). */
export async function listDeliveries(executor: Executor, principal: Principal, filter: ListFilter): Promise<{ count: number; deliveries: Delivery[] }> {
  const timeZone = await filterTimeZone(executor, principal, filter);
  const where = and(
    eq(deliveries.orgId, principal.orgId),
    deliveryVisible(executor, principal),
    filter.status.length > 0 ? inArray(deliveries.status, filter.status) : undefined,
    filter.robot_id.length > 0 ? inArray(deliveries.robotId, filter.robot_id) : undefined,
    ...dateConditions(deliveries.createdAt, filter.from_date, filter.to_date, timeZone),
  );
  const [rows, count] = await Promise.all([
    executor.select().from(deliveries).where(where).orderBy(LIST_ORDER).limit(filter.limit).offset(filter.offset),
    cappedCount(executor, sql`SELECT 1 FROM ${deliveries} WHERE ${where ?? sql`true`}`),
  ]);
  return { count, deliveries: await toDeliveries(executor, rows) };
}

/** A user's name as a delivery shows it: the full name, or the username when the user has none. */
const userDisplayName = sql<string>`coalesce(nullif(trim(${users.firstName} || ' ' || ${users.lastName}), ''), ${users.username})`;

/**
 * One page of the users a delivery may be addressed to: the enabled users of the caller's organization (any
 * role may list them, so a ward nurse can name a recipient who gets the PIN by push), by name. `q` matches the
 * name or the username, case-insensitive, as a plain substring (no pattern characters).
 */
export async function listRecipients(executor: Executor, principal: Principal, filter: RecipientFilter): Promise<{ count: number; recipients: DeliveryRecipient[] }> {
  const q = filter.q?.toLowerCase();
  const where = and(
    eq(users.orgId, principal.orgId),
    eq(users.enabled, true),
    q ? sql`(strpos(lower(${userDisplayName}), ${q}) > 0 OR strpos(lower(${users.username}), ${q}) > 0)` : undefined,
  );
  const [recipients, count] = await Promise.all([
    executor
      .select({ user_id: users.id, name: userDisplayName, username: users.username })
      .from(users)
      .where(where)
      .orderBy(sql`lower(${userDisplayName})`, users.username, users.id)
      .limit(filter.limit)
      .offset(filter.offset),
    cappedCount(executor, sql`SELECT 1 FROM ${users} WHERE ${where ?? sql`true`}`),
  ]);
  return { count, recipients };
}

/**
 * Checks a delivery request and stores it Queued with its items; throws a 4xx naming the field otherwise. A room
 * of another organization, or one a teleoperator does not see, is 404 as a missing one.
 */
export async function insertDelivery(tx: Tx, principal: Principal, input: ParsedInput, pinHash: string): Promise<DeliveryRow> {
  const found = await tx
    .select({ id: rooms.id })
    .from(rooms)
    .where(
      and(
        inArray(rooms.id, [input.pickup_room_id, input.dropoff_room_id]),
        eq(rooms.orgId, principal.orgId),
        seesEverything(principal) ? undefined : roomVisible(tx, principal, rooms.id),
      ),
    );
  const known = new Set(found.map((room) => room.id));
  for (const field of ['pickup_room_id', 'dropoff_room_id'] as const) {
    // The id is not echoed: a reply must not confirm what another organization holds.
    if (!known.has(input[field])) throw new HttpError(404, ErrorCode.notFound, `Field "${field}": the room was not found.`, { field });
  }
  if (input.pickup_room_id === input.dropoff_room_id)
    throw badRequest('Field "dropoff_room_id": the drop-off room must differ from the pickup room.', { field: 'dropoff_room_id' });
  if (input.deliver_by !== undefined && startTimeInPast(input.deliver_by))
    throw badRequest(`Field "deliver_by": ${START_TIME_IN_PAST} (${input.deliver_by}).`, { field: 'deliver_by' });
  let recipientName = input.recipient_name ?? null;
  if (input.recipient_user_id !== undefined) {
    const [recipient] = await tx
      .select({ firstName: users.firstName, lastName: users.lastName, username: users.username })
      .from(users)
      .where(and(eq(users.id, input.recipient_user_id), eq(users.orgId, principal.orgId), eq(users.enabled, true)));
    if (!recipient)
      throw badRequest('Field "recipient_user_id": no such user in your organization.', { field: 'recipient_user_id' });
    recipientName ??= `${recipient.firstName} ${recipient.lastName}`.trim() || recipient.username;
  }
  const requester = actorOf(principal).name;
  const [row] = await tx
    .insert(deliveries)
    .values({
      orgId: principal.orgId,
      priority: input.priority,
      pickupRoomId: input.pickup_room_id,
      dropoffRoomId: input.dropoff_room_id,
      requestedById: principal.sub,
      requestedByName: requester,
      recipientUserId: input.recipient_user_id ?? null,
      recipientName,
      deliverBy: input.deliver_by === undefined ? null : new Date(input.deliver_by),
      notes: input.notes ?? '',
      pinHash,
    })
    .returning();
  if (!row) throw new Error('delivery not inserted');
  await tx.insert(deliveryItems).values(input.items.map((item, position) => ({ deliveryId: row.id, position, ...item })));
  return row;
}
