/**
 * A delivery's pushes, through the same durable pipeline as the jobs' (outbox → fan-out → sending). They go to
 * people, not to whoever sees a robot: the recipient gets the PIN when the delivery is requested; a locked hand-off
 * and a Blocked delivery reach the sender and the organization's admins; Delivered reaches the sender; an
 * escalation (deliveries/escalation.ts) the recipient, then the sender, then the admins. Each push opens
 * /deliveries/{id}.
 *
 * The PIN of a requested delivery is in its push event and the recipient's push until they are sent and pruned
 * (the push outbox must hold what it sends); the delivery itself keeps only its hash.
 */
import { asc, eq, inArray, or, sql } from 'drizzle-orm';
import { DeliveryStatus, type PushEventKind, type PushMessage } from '@uvd/contracts';
import type { Executor, Tx } from '../db/client.ts';
import { deliveries, deliveryItems, pushEvents, robots, rooms, users, type DeliveryPushAudience } from '../db/schema.ts';
import { devicesOf, restrictedRole, type Recipient } from './devices.ts';
import { clockTime, languageOf, type Language } from './messages.ts';
import { noFacts, PUSH_CHANNEL, type PushEventFacts } from './outbox.ts';

export type DeliveryPushKind = Extract<PushEventKind, `delivery_${string}`>;

type PushEventRow = typeof pushEvents.$inferSelect;

export const isDeliveryPushKind = (kind: PushEventKind): kind is DeliveryPushKind => kind.startsWith('delivery_');

export interface DeliveryPush {
  kind: DeliveryPushKind;
  deliveryId: string;
  robotId: string | null;
  audience: DeliveryPushAudience;
  /** Makes the push once however often its cause is recorded. */
  dedupeKey: string;
  pin?: string | null;
  late?: boolean;
  /** When to fan it out (now by default). */
  dueAt?: Date;
}

/** Records a delivery's push in the caller's transaction (the outbox): sent once after it commits. */
export async function recordDeliveryPush(executor: Executor, orgId: string, push: DeliveryPush): Promise<void> {
  const now = new Date();
  const facts: PushEventFacts = { ...noFacts, pin: push.pin ?? null, late: push.late ?? false, occurredAt: now.toISOString() };
  await executor
    .insert(pushEvents)
    .values({
      orgId,
      kind: push.kind,
      dedupeKey: push.dedupeKey,
      robotId: push.robotId,
      jobId: null,
      actionId: null,
      deliveryId: push.deliveryId,
      audience: push.audience,
      facts,
      dueAt: push.dueAt ?? now,
    })
    .onConflictDoNothing({ target: [pushEvents.orgId, pushEvents.dedupeKey] });
  await executor.execute(sql`SELECT pg_notify(${PUSH_CHANNEL}, '')`);
}

interface DeliveryTexts {
  requested: (items: string, route: string, pin: string) => [string, string];
  handoffLocked: (route: string) => [string, string];
  blocked: (route: string, robot: string | null) => [string, string];
  delivered: (route: string, time: string) => [string, string];
  waiting: (route: string, minutes: number) => [string, string];
  late: (route: string, time: string) => [string, string];
}

const en: DeliveryTexts = {
  requested: (items, route, pin) => ['A delivery for you', `${items}, ${route}. Your hand-off PIN: ${pin}.`],
  handoffLocked: (route) => ['Hand-off locked', `Three wrong PINs were entered for the delivery ${route}. Please act.`],
  blocked: (route, robot) => ['Delivery blocked', `The delivery ${route} cannot go on${robot ? ` (${robot})` : ''}. Please act.`],
  delivered: (route, time) => ['Delivered', `The delivery ${route} was received at ${time}.`],
  waiting: (route, minutes) => ['Delivery waiting', `The delivery ${route} has waited ${minutes} min for its hand-off.`],
  late: (route, time) => ['Delivery late', `The delivery ${route} was due at ${time}.`],
};

const fi: DeliveryTexts = {
  requested: (items, route, pin) => ['Sinulle on lähetys', `${items}, ${route}. Luovutuksen PIN-koodi: ${pin}.`],
  handoffLocked: (route) => ['Luovutus lukittu', `Lähetykseen ${route} syötettiin kolme väärää PIN-koodia. Toimi, ole hyvä.`],
  blocked: (route, robot) => ['Lähetys pysähtyi', `Lähetys ${route} ei pääse jatkamaan${robot ? ` (${robot})` : ''}. Toimi, ole hyvä.`],
  delivered: (route, time) => ['Toimitettu', `Lähetys ${route} vastaanotettiin klo ${time}.`],
  waiting: (route, minutes) => ['Lähetys odottaa', `Lähetys ${route} on odottanut luovutusta ${minutes} min.`],
  late: (route, time) => ['Lähetys myöhässä', `Lähetyksen ${route} piti olla perillä klo ${time}.`],
};

const se: DeliveryTexts = {
  requested: (items, route, pin) => ['En leverans till dig', `${items}, ${route}. Din PIN-kod för överlämningen: ${pin}.`],
  handoffLocked: (route) => ['Överlämningen är låst', `Tre felaktiga PIN-koder angavs för leveransen ${route}. Vänligen åtgärda.`],
  blocked: (route, robot) => ['Leveransen har stannat', `Leveransen ${route} kan inte fortsätta${robot ? ` (${robot})` : ''}. Vänligen åtgärda.`],
  delivered: (route, time) => ['Levererad', `Leveransen ${route} togs emot kl. ${time}.`],
  waiting: (route, minutes) => ['Leveransen väntar', `Leveransen ${route} har väntat ${minutes} min på överlämningen.`],
  late: (route, time) => ['Leveransen är sen', `Leveransen ${route} skulle ha varit framme kl. ${time}.`],
};

const catalogue: Record<Language, DeliveryTexts> = { en, fi, se };

/** What a delivery's push says, read when it is fanned out. */
export interface DeliverySubject {
  status: DeliveryStatus;
  pickup: string;
  dropoff: string;
  robotName: string | null;
  items: string;
  deliverBy: Date | null;
  waitingSince: Date | null;
  deliveredAt: Date | null;
}

export async function deliverySubjectOf(tx: Tx, deliveryId: string): Promise<DeliverySubject | undefined> {
  const [row] = await tx
    .select({
      status: deliveries.status,
      pickupRoomId: deliveries.pickupRoomId,
      dropoffRoomId: deliveries.dropoffRoomId,
      robotName: robots.name,
      deliverBy: deliveries.deliverBy,
      waitingSince: deliveries.waitingSince,
      deliveredAt: deliveries.deliveredAt,
    })
    .from(deliveries)
    .leftJoin(robots, eq(robots.id, deliveries.robotId))
    .where(eq(deliveries.id, deliveryId));
  if (!row) return undefined;
  const roomRows = await tx.select({ id: rooms.id, name: rooms.name }).from(rooms).where(inArray(rooms.id, [row.pickupRoomId, row.dropoffRoomId]));
  const itemRows = await tx.select().from(deliveryItems).where(eq(deliveryItems.deliveryId, deliveryId)).orderBy(asc(deliveryItems.position));
  const nameOf = (id: string) => roomRows.find((room) => room.id === id)?.name ?? '';
  return {
    status: row.status,
    pickup: nameOf(row.pickupRoomId),
    dropoff: nameOf(row.dropoffRoomId),
    robotName: row.robotName,
    items: itemRows.map((item) => `${item.quantity} × ${item.description}`).join(', '),
    deliverBy: row.deliverBy,
    waitingSince: row.waitingSince,
    deliveredAt: row.deliveredAt,
  };
}

/** A push about a delivery that has ended since is not sent, but for the end itself. */
export const deliveryPushStale = (kind: DeliveryPushKind, subject: DeliverySubject): boolean =>
  (kind === 'delivery_requested' || kind === 'delivery_escalation' || kind === 'delivery_handoff_locked') &&
  (subject.status === DeliveryStatus.delivered || subject.status === DeliveryStatus.cancelled);

/** The devices of the push's audience: the delivery's recipient or sender, or the organization's admins. */
export async function deliveryRecipientsOf(tx: Tx, event: PushEventRow): Promise<Recipient[]> {
  if (!event.deliveryId) return [];
  const [delivery] = await tx
    .select({ requestedById: deliveries.requestedById, recipientUserId: deliveries.recipientUserId })
    .from(deliveries)
    .where(eq(deliveries.id, event.deliveryId));
  if (!delivery) return [];
  const audience = event.audience ?? 'sender';
  const people = [
    ...(audience === 'recipient' ? [delivery.recipientUserId] : []),
    ...(audience === 'sender' || audience === 'sender_and_admins' ? [delivery.requestedById] : []),
  ].filter((id): id is string => id !== null);
  const admins = audience === 'admins' || audience === 'sender_and_admins';
  const who = or(people.length > 0 ? inArray(users.id, people) : undefined, admins ? restrictedRole : undefined);
  if (!who) return [];
  return devicesOf(tx, event.orgId, who);
}

/** The push of a delivery's event for one recipient, in their language and timezone. */
export function deliveryMessageFor(
  event: PushEventRow & { deliveryId: string },
  kind: DeliveryPushKind,
  facts: PushEventFacts,
  subject: DeliverySubject,
  recipient: Recipient,
  icon: string,
): PushMessage {
  const language = languageOf(recipient.language);
  const texts = catalogue[language];
  const time = (at: Date | null) => clockTime(at ?? new Date(facts.occurredAt), language, recipient.timezone);
  const route = `${subject.pickup} → ${subject.dropoff}`;
  const minutes = subject.waitingSince ? Math.max(1, Math.round((Date.parse(facts.occurredAt) - subject.waitingSince.getTime()) / 60_000)) : 1;
  const [title, body] = ((): [string, string] => {
    switch (kind) {
      case 'delivery_requested':
        return texts.requested(subject.items, route, facts.pin ?? '');
      case 'delivery_handoff_locked':
        return texts.handoffLocked(route);
      case 'delivery_blocked':
        return texts.blocked(route, subject.robotName);
      case 'delivery_delivered':
        return texts.delivered(route, time(subject.deliveredAt));
      case 'delivery_escalation':
        return facts.late ? texts.late(route, time(subject.deliverBy)) : texts.waiting(route, minutes);
    }
  })();
  return {
    title,
    body,
    icon,
    type: 'delivery',
    related_id: event.deliveryId,
    kind,
    push_id: event.id,
    url: `/deliveries/${event.deliveryId}`,
    realm: event.orgId,
    sent_at: new Date().toISOString(),
  };
}
