/**
 * Escalation of a delivery nobody comes for: one Waiting longer than `DELIVERY_ESCALATION_SECONDS` at a hand-off,
 * or past its `deliver_by`, is pushed to its recipient, after as long again to its sender, then to the admins (at
 * the pickup the sender loads it, so the ladder there is the sender, then the admins). Each rung is a custody step
 * `escalated` naming who was told, a `delivery_escalated` event and a push, recorded in one transaction.
 *
 * Every server process runs this in its notifications loop; a delivery is taken with SKIP LOCKED and its level
 * advanced with a conditional UPDATE, so several processes escalate each rung once. A new wait (the robot arrives
 * at the drop-off after waiting at the pickup) starts its ladder afresh.
 */
import { and, eq, inArray, isNotNull, lte, or, sql } from 'drizzle-orm';
import { DELIVERY_ESCALATED_EVENT, DeliveryStatus, LATE_DETAIL_SUFFIX, type DeliveryEscalated, type DeliveryEscalationTarget } from '@uvd/contracts';
import type { AppContext } from '../context.ts';
import type { Db } from '../db/client.ts';
import { deliveries } from '../db/schema.ts';
import { recordDeliveryPush } from '../notifications/delivery-pushes.ts';
import { recordCustody, type DeliveryRow } from './lifecycle.ts';

/** The level stored once the last rung of a ladder was reached (the longest ladder has three). */
const LADDER_DONE = 3;
const OPEN_STATUSES = [DeliveryStatus.queued, DeliveryStatus.inTransit, DeliveryStatus.paused, DeliveryStatus.waiting, DeliveryStatus.blocked];

/** Not yet at the end of its ladder, or at the end of an earlier wait's. */
const rungLeft = or(sql`${deliveries.escalationLevel} < ${LADDER_DONE}`, sql`${deliveries.escalatedAt} < ${deliveries.waitingSince}`);

/** Who is told, rung by rung. */
export function ladderOf(delivery: Pick<DeliveryRow, 'status' | 'waitingFor' | 'recipientUserId'>): DeliveryEscalationTarget[] {
  if (delivery.status === DeliveryStatus.waiting && delivery.waitingFor === 'loading') return ['sender', 'admins'];
  return delivery.recipientUserId ? ['recipient', 'sender', 'admins'] : ['sender', 'admins'];
}

interface Rung {
  level: number;
  target: DeliveryEscalationTarget;
  late: boolean;
  /** The level to store: the next rung's index, or LADDER_DONE after the last. */
  stored: number;
}

type EscalationFields = Pick<
  DeliveryRow,
  'status' | 'waitingFor' | 'recipientUserId' | 'waitingSince' | 'deliverBy' | 'escalatedAt' | 'escalationLevel'
>;

/** The next rung of `delivery`'s ladder and when it falls due, if a rung is left. */
function nextRung(delivery: EscalationFields, intervalMs: number): (Rung & { at: number }) | undefined {
  const waiting = delivery.status === DeliveryStatus.waiting && delivery.waitingSince !== null;
  const waitStart = waiting && delivery.waitingSince ? delivery.waitingSince.getTime() + intervalMs : Infinity;
  const lateStart = delivery.deliverBy ? delivery.deliverBy.getTime() : Infinity;
  const start = Math.min(waitStart, lateStart);
  if (start === Infinity) return undefined;
  // Rungs climbed before this wait began belong to an earlier wait.
  const newWait = waiting && delivery.waitingSince && delivery.escalatedAt && delivery.escalatedAt < delivery.waitingSince && waitStart <= lateStart;
  const level = newWait ? 0 : delivery.escalationLevel;
  const ladder = ladderOf(delivery);
  const target = ladder[level];
  if (!target) return undefined;
  return {
    at: start + level * intervalMs,
    level: level + 1,
    target,
    late: lateStart < waitStart,
    stored: level + 1 >= ladder.length ? LADDER_DONE : level + 1,
  };
}

/** The rung due now for `delivery`, if any. */
export function dueRung(delivery: EscalationFields, intervalMs: number, now: Date): Rung | undefined {
  const rung = nextRung(delivery, intervalMs);
  return rung && rung.at <= now.getTime() ? rung : undefined;
}

/** When the next rung of any open delivery falls due, if any (the notifications loop's alarm). */
export async function nextEscalation(db: Db, intervalMs: number): Promise<Date | undefined> {
  const open = await db
    .select({
      status: deliveries.status,
      waitingFor: deliveries.waitingFor,
      recipientUserId: deliveries.recipientUserId,
      waitingSince: deliveries.waitingSince,
      deliverBy: deliveries.deliverBy,
      escalatedAt: deliveries.escalatedAt,
      escalationLevel: deliveries.escalationLevel,
    })
    .from(deliveries)
    .where(
      and(
        inArray(deliveries.status, OPEN_STATUSES),
        or(and(eq(deliveries.status, DeliveryStatus.waiting), isNotNull(deliveries.waitingSince)), isNotNull(deliveries.deliverBy)),
        rungLeft,
      ),
    );
  const times = open.map((delivery) => nextRung(delivery, intervalMs)?.at).filter((at) => at !== undefined);
  return times.length > 0 ? new Date(Math.min(...times)) : undefined;
}

/** Escalates up to `limit` deliveries by one rung each; returns how many. */
export async function escalateDue(ctx: Pick<AppContext, 'bus'> & { db: Db }, intervalMs: number, now = new Date(), limit = 20): Promise<number> {
  return ctx.db.transaction(async (tx) => {
    const waitedSince = new Date(now.getTime() - intervalMs);
    const candidates = await tx
      .select()
      .from(deliveries)
      .where(
        and(
          inArray(deliveries.status, OPEN_STATUSES),
          or(
            and(eq(deliveries.status, DeliveryStatus.waiting), lte(deliveries.waitingSince, waitedSince)),
            and(isNotNull(deliveries.deliverBy), lte(deliveries.deliverBy, now)),
          ),
          rungLeft,
        ),
      )
      .orderBy(sql`${deliveries.escalatedAt} ASC NULLS FIRST`, deliveries.id)
      .limit(limit)
      .for('update', { skipLocked: true });
    let escalated = 0;
    for (const delivery of candidates) {
      const rung = dueRung(delivery, intervalMs, now);
      if (!rung) continue;
      const [advanced] = await tx
        .update(deliveries)
        .set({ escalationLevel: rung.stored, escalatedAt: now })
        .where(
          and(
            eq(deliveries.id, delivery.id),
            eq(deliveries.escalationLevel, delivery.escalationLevel),
            delivery.escalatedAt ? eq(deliveries.escalatedAt, delivery.escalatedAt) : sql`${deliveries.escalatedAt} IS NULL`,
          ),
        )
        .returning({ id: deliveries.id });
      if (!advanced) continue;
      await recordCustody(tx, delivery, 'escalated', { at: now, detail: rung.late ? `${rung.target}${LATE_DETAIL_SUFFIX}` : rung.target });
      await recordDeliveryPush(tx, delivery.orgId, {
        kind: 'delivery_escalation',
        deliveryId: delivery.id,
        robotId: delivery.robotId,
        audience: rung.target,
        dedupeKey: `delivery_escalation:${delivery.id}:${now.getTime()}:${rung.level}`,
        late: rung.late,
      });
      const payload: DeliveryEscalated = { delivery_id: delivery.id, level: rung.level, told: rung.target };
      await ctx.bus.publish({ orgId: delivery.orgId, stream: 'deliveries', key: delivery.id, type: DELIVERY_ESCALATED_EVENT, payload }, tx);
      escalated += 1;
    }
    return escalated;
  });
}
