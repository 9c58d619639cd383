/**
 * Sending: claims due deliveries (FOR UPDATE SKIP LOCKED, with a lease), signs and posts each, and records the
 * outcome. A 2xx is delivered; anything else (no answer, 429, 5xx, any other status) is tried again after a
 * jittered, doubling wait (lib/retry.ts) until WEBHOOK_GIVE_UP_SECONDS after the event, the last at that time. A delivery whose process died mid-send is
 * taken again when its lease runs out: at least once, with the same `webhook-id`, so a receiver can drop a copy.
 */
import { and, asc, eq, inArray, lt, lte, or, sql } from 'drizzle-orm';
import { WebhookPayload } from '@uvd/contracts';
import type { Db } from '../db/client.ts';
import { webhookDeliveries, webhooks } from '../db/schema.ts';
import { nextOutboxDue } from '../lib/outbox-due.ts';
import { sendWebhook, type SendRequest, type SendResult } from './sender.ts';
import { nextAttemptAt } from '../lib/retry.ts';
import { signatureHeaders } from './signing.ts';

type DeliveryRow = typeof webhookDeliveries.$inferSelect;

export interface DeliveryOptions {
  /** Hosts exempt from the https-to-a-public-address rule (WEBHOOK_HOSTS). */
  allowedHosts: readonly string[];
  /** A delivery not accepted this long after its event is given up. */
  giveUpMs: number;
  /** The first retry waits about this long; each next one twice as long, up to MAX_RETRY_WAIT_MS. */
  retryBaseMs: number;
  /** A receiver slower than this counts as unreachable. */
  sendTimeoutMs: number;
  /** How long a claim holds: a send unfinished by then is presumed dead with its process. Longer than the timeout. */
  leaseMs: number;
  /** The POST itself (tests may wrap it). */
  send?: (request: SendRequest) => Promise<SendResult>;
  /** Told of each outcome (logging). */
  onOutcome?: (delivery: DeliveryRow, outcome: Outcome) => void;
}

export type Outcome =
  | { kind: 'sent'; status: number }
  | { kind: 'retry'; status: number | null; reason: string; retryAfterMs?: number | undefined }
  | { kind: 'failed'; status: number | null; reason: string };

const MAX_RETRY_WAIT_MS = 3600_000;
const CLAIM_BATCH = 64;

/** Pending deliveries of enabled webhooks, and test events whatever the webhook's state. */
const sendable = (db: Db) =>
  or(
    eq(webhookDeliveries.test, true),
    inArray(webhookDeliveries.webhookId, db.select({ id: webhooks.id }).from(webhooks).where(eq(webhooks.enabled, true))),
  );

async function claim(db: Db, leaseMs: number): Promise<DeliveryRow[]> {
  const due = db
    .select({ id: webhookDeliveries.id })
    .from(webhookDeliveries)
    .where(
      and(
        or(
          and(eq(webhookDeliveries.status, 'pending'), lte(webhookDeliveries.nextAttemptAt, sql`now()`)),
          and(eq(webhookDeliveries.status, 'sending'), lt(webhookDeliveries.leaseUntil, sql`now()`)),
        ),
        sendable(db),
      ),
    )
    .orderBy(asc(webhookDeliveries.nextAttemptAt))
    .limit(CLAIM_BATCH)
    .for('update', { skipLocked: true });
  return db
    .update(webhookDeliveries)
    .set({
      status: 'sending',
      attempts: sql`${webhookDeliveries.attempts} + 1`,
      lastAttemptAt: sql`now()`,
      leaseUntil: sql`now() + make_interval(secs => ${leaseMs / 1000})`,
    })
    .where(inArray(webhookDeliveries.id, due))
    .returning();
}

function outcomeOf(result: SendResult): Outcome {
  switch (result.kind) {
    case 'answered':
      if (result.status >= 200 && result.status < 300) return { kind: 'sent', status: result.status };
      return { kind: 'retry', status: result.status, reason: `answered ${result.status}`, retryAfterMs: result.retryAfterMs };
    case 'unreachable':
      return { kind: 'retry', status: null, reason: result.reason };
    case 'refused':
      return { kind: 'failed', status: null, reason: result.reason };
  }
}

async function record(db: Db, delivery: DeliveryRow, outcome: Outcome, options: DeliveryOptions): Promise<void> {
  const now = Date.now();
  // Only the claim this process holds: a delivery taken over by another process after a lapsed lease is theirs.
  const where = and(eq(webhookDeliveries.id, delivery.id), eq(webhookDeliveries.status, 'sending'), eq(webhookDeliveries.attempts, delivery.attempts));
  switch (outcome.kind) {
    case 'sent':
      await db
        .update(webhookDeliveries)
        .set({ status: 'sent', sentAt: new Date(now), leaseUntil: null, lastHttpStatus: outcome.status, lastError: null })
        .where(where);
      return;
    case 'failed':
      await db
        .update(webhookDeliveries)
        .set({ status: 'failed', leaseUntil: null, lastHttpStatus: outcome.status, lastError: outcome.reason })
        .where(where);
      return;
    case 'retry': {
      // A receiver's Retry-After is honoured when it asks for more than the backoff, up to the longest wait.
      const next = nextAttemptAt(
        { baseMs: options.retryBaseMs, maxWaitMs: MAX_RETRY_WAIT_MS, giveUpMs: options.giveUpMs },
        delivery,
        now,
        outcome.retryAfterMs,
      );
      const givenUp = next === null;
      await db
        .update(webhookDeliveries)
        .set({
          status: givenUp ? 'failed' : 'pending',
          nextAttemptAt: next ?? new Date(now),
          leaseUntil: null,
          lastHttpStatus: outcome.status,
          lastError: givenUp ? `given up after ${delivery.attempts} attempts: ${outcome.reason}` : outcome.reason,
        })
        .where(where);
      return;
    }
  }
}

async function sendOne(db: Db, delivery: DeliveryRow, options: DeliveryOptions): Promise<Outcome> {
  const [webhook] = await db.select({ url: webhooks.url, secret: webhooks.secret }).from(webhooks).where(eq(webhooks.id, delivery.webhookId));
  // Deleted meanwhile: its row goes with it (cascade); nothing to record.
  if (!webhook) return { kind: 'failed', status: null, reason: 'the webhook was deleted' };
  const payload = WebhookPayload.safeParse(delivery.payload);
  if (!payload.success) return { kind: 'failed', status: null, reason: 'stored payload does not match the contract' };
  const body = JSON.stringify(payload.data);
  const send = options.send ?? sendWebhook;
  return outcomeOf(
    await send({
      url: webhook.url,
      body,
      headers: signatureHeaders(webhook.secret, delivery.id, body),
      allowedHosts: options.allowedHosts,
      timeoutMs: options.sendTimeoutMs,
    }),
  );
}

/**
 * Deliveries still pending past the give-up time (their webhook was disabled meanwhile) are given up. A lease's
 * length later than the deadline, so that the last attempt, due at the deadline itself, is claimed first.
 */
async function giveUpStale(db: Db, giveUpMs: number, leaseMs: number): Promise<void> {
  await db
    .update(webhookDeliveries)
    .set({ status: 'failed', lastError: 'given up: not delivered in time' })
    .where(
      and(
        eq(webhookDeliveries.status, 'pending'),
        lt(webhookDeliveries.createdAt, sql`now() - make_interval(secs => ${(giveUpMs + leaseMs) / 1000})`),
      ),
    );
}

/** Sends one claimed batch; returns how many deliveries it took (0: none due). */
export async function deliverDue(db: Db, options: DeliveryOptions): Promise<number> {
  await giveUpStale(db, options.giveUpMs, options.leaseMs);
  const claimed = await claim(db, options.leaseMs);
  await Promise.all(
    claimed.map(async (delivery) => {
      const outcome = await sendOne(db, delivery, options).catch((error: unknown): Outcome => ({
        kind: 'retry',
        status: null,
        reason: error instanceof Error ? error.message : 'send failed',
      }));
      await record(db, delivery, outcome, options);
      options.onOutcome?.(delivery, outcome);
    }),
  );
  return claimed.length;
}

/** When the next delivery of an enabled webhook (or a test event) falls due (a retry, or a lease running out), if any. */
export const nextDelivery = (db: Db): Promise<Date | undefined> => nextOutboxDue(db, webhookDeliveries, webhookDeliveries, sendable(db));
