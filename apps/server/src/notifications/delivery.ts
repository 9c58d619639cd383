/**
 * Sending: claims due deliveries (SKIP LOCKED, with a lease), sends each through its push service, and records
 * the outcome. A claimed delivery whose process died mid-send is taken again when its lease runs out, so nothing
 * is lost across a crash; the push carries a collapse key (Web Push Topic, FCM collapse key) and a notification
 * tag, so the rare second copy of an uncertain send replaces the first instead of showing twice.
 */
import { and, asc, eq, inArray, lt, lte, or, sql } from 'drizzle-orm';
import { parseDeviceToken, PushMessage } from '@uvd/contracts';
import type { Db } from '../db/client.ts';
import { deviceSubscriptions, pushDeliveries } from '../db/schema.ts';
import { nextOutboxDue } from '../lib/outbox-due.ts';
import { nextAttemptAt } from '../lib/retry.ts';
import type { PushSender, SendOptions, SendOutcome } from './sender.ts';

type DeliveryRow = typeof pushDeliveries.$inferSelect;

export interface DeliveryOptions {
  /** Web Push and FCM senders; a kind without a sender (FCM unconfigured) fails its deliveries at once. */
  senders: Partial<Record<PushSender['kind'], PushSender>>;
  /** A push still undelivered this long after it was made is given up. */
  giveUpMs: number;
  /** The first retry waits this long; each next one twice as long, up to MAX_RETRY_WAIT_MS. */
  retryBaseMs: number;
  /**
   * How long a claim holds: a send still unfinished then is presumed dead with its process, and another process
   * (or this one after a restart) takes the delivery again. Longer than a sender's timeout.
   */
  leaseMs: number;
  /** Told of each outcome (logging, benchmarks). */
  onOutcome?: (delivery: DeliveryRow, outcome: SendOutcome) => void;
}

const MAX_RETRY_WAIT_MS = 5 * 60_000;
/** Sends at once per process: an event's devices go out together (bench:push: 100 devices in one batch). */
const CLAIM_BATCH = 128;

const urgent = new Set(['prompt', 'prompt_escalation', 'job_failed']);

/** Claims up to CLAIM_BATCH due deliveries for this process. */
async function claim(db: Db, leaseMs: number): Promise<DeliveryRow[]> {
  const due = db
    .select({ id: pushDeliveries.id })
    .from(pushDeliveries)
    .where(
      or(
        and(eq(pushDeliveries.status, 'pending'), lte(pushDeliveries.nextAttemptAt, sql`now()`)),
        and(eq(pushDeliveries.status, 'sending'), lt(pushDeliveries.leaseUntil, sql`now()`)),
      ),
    )
    .orderBy(asc(pushDeliveries.nextAttemptAt))
    .limit(CLAIM_BATCH)
    .for('update', { skipLocked: true });
  return db
    .update(pushDeliveries)
    .set({
      status: 'sending',
      attempts: sql`${pushDeliveries.attempts} + 1`,
      leaseUntil: sql`now() + make_interval(secs => ${leaseMs / 1000})`,
    })
    .where(inArray(pushDeliveries.id, due))
    .returning();
}

async function record(db: Db, delivery: DeliveryRow, outcome: SendOutcome, options: DeliveryOptions): Promise<void> {
  const now = Date.now();
  const where = eq(pushDeliveries.id, delivery.id);
  switch (outcome.kind) {
    case 'sent':
      await db.update(pushDeliveries).set({ status: 'sent', sentAt: new Date(now), leaseUntil: null, lastError: null }).where(where);
      return;
    case 'gone':
      await db.transaction(async (tx) => {
        await tx.update(pushDeliveries).set({ status: 'gone', leaseUntil: null, lastError: outcome.reason }).where(where);
        // The push service forgot this device: so do we (every topic, every user).
        await tx.delete(deviceSubscriptions).where(eq(deviceSubscriptions.token, delivery.token));
      });
      return;
    case 'failed':
      await db.update(pushDeliveries).set({ status: 'failed', leaseUntil: null, lastError: outcome.reason }).where(where);
      return;
    case 'retry': {
      const next = nextAttemptAt({ baseMs: options.retryBaseMs, maxWaitMs: MAX_RETRY_WAIT_MS, giveUpMs: options.giveUpMs }, delivery, now);
      await db
        .update(pushDeliveries)
        .set({ status: next ? 'pending' : 'failed', nextAttemptAt: next ?? new Date(now), leaseUntil: null, lastError: outcome.reason })
        .where(where);
      return;
    }
  }
}

async function sendOne(delivery: DeliveryRow, options: DeliveryOptions): Promise<SendOutcome> {
  const message = PushMessage.safeParse(delivery.message);
  if (!message.success) return { kind: 'failed', reason: 'stored message does not match the contract' };
  const token = parseDeviceToken(delivery.token);
  if ('error' in token) return { kind: 'gone', status: 0, reason: token.error };
  const sender = options.senders[token.kind];
  if (!sender) return { kind: 'failed', reason: `${token.kind} pushes are not configured` };
  const ageSeconds = (Date.now() - delivery.createdAt.getTime()) / 1000;
  const sendOptions: SendOptions = {
    // The push service keeps it no longer than we would retry it.
    ttlSeconds: Math.max(60, Math.round(options.giveUpMs / 1000 - ageSeconds)),
    urgency: urgent.has(message.data.kind) ? 'high' : 'normal',
    collapseKey: message.data.push_id.replaceAll('-', ''),
  };
  try {
    return await sender.send(delivery.token, message.data, sendOptions);
  } catch (error) {
    return { kind: 'retry', reason: error instanceof Error ? error.message : 'send failed' };
  }
}

/** Sends one claimed batch; returns how many deliveries it took (0: none due). */
export async function deliverDue(db: Db, options: DeliveryOptions): Promise<number> {
  const claimed = await claim(db, options.leaseMs);
  await Promise.all(
    claimed.map(async (delivery) => {
      const outcome = await sendOne(delivery, options);
      await record(db, delivery, outcome, options);
      options.onOutcome?.(delivery, outcome);
    }),
  );
  return claimed.length;
}

/** When the next delivery falls due (a retry, or a lease running out), if any. */
export const nextDelivery = (db: Db): Promise<Date | undefined> => nextOutboxDue(db, pushDeliveries, pushDeliveries);
