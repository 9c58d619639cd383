/**
 * The webhook outbox: an event that a webhook subscribed to becomes one `webhook_deliveries` row per enabled
 * webhook of its organization, in the very transaction that records the event (the bus's record hook, as the
 * push outbox does), so a delivery exists exactly when its event commits and survives any crash after that.
 *
 * Which bus events decide them (robot-link/lifecycle.ts finishJob writes the log, then publishes one of them in
 * the same transaction; deliveries/lifecycle.ts publishes every change of a delivery):
 * - `job_finished` / `job_failed` (jobs stream): the job's log was written → `log.created`;
 * - `job_failed` also → `job.failed`;
 * - `delivery_change` (deliveries stream) with status Delivered → `delivery.delivered`.
 */
import { and, arrayContains, eq, getTableColumns, sql } from 'drizzle-orm';
import { z } from 'zod';
import { Delivery, DeliveryStatus, LogEntry, type WebhookEventType, type WebhookPayload } from '@uvd/contracts';
import type { Executor } from '../db/client.ts';
import { logs, webhookDeliveries, webhooks } from '../db/schema.ts';
import type { LiveEvent, RecordHook } from '../live/bus.ts';
import { toLogEntry } from '../logs/repository.ts';

/** Workers LISTEN here: a NOTIFY at commit wakes them at once instead of at their next poll. */
export const WEBHOOK_CHANNEL = 'uvd_webhook';

const JobEnded = z.object({ job_id: z.uuid() });

interface Candidate {
  type: WebhookEventType;
  /** Once per event and webhook. */
  dedupeKey: string;
  /** The payload's `data`, read only when some webhook subscribed (a log is worth a query, not for nobody). */
  data: (executor: Executor) => Promise<Record<string, unknown> | undefined>;
}

// The trajectory can hold thousands of points and the dose grid is large: a receiver gets the entry as the logs
// list shows it (`has_trajectory`), and fetches the rest through the API if it wants it.
const { trajectory, dose: _dose, ...logColumns } = getTableColumns(logs);

/** The job's log entry as the API shows it, without its trajectory; read in the transaction that wrote it. */
async function logEntryOf(executor: Executor, orgId: string, jobId: string): Promise<LogEntry | undefined> {
  const [row] = await executor
    .select({ ...logColumns, hasTrajectory: sql<boolean>`(${trajectory} IS NOT NULL AND jsonb_array_length(${trajectory}) > 0)` })
    .from(logs)
    .where(and(eq(logs.jobId, jobId), eq(logs.orgId, orgId)));
  // Never a throw: this runs in the transaction that ends the job, which a webhook must not be able to undo.
  return row ? LogEntry.safeParse(toLogEntry(row)).data : undefined;
}

/** The webhook events a bus event decides, if any. */
export function candidatesOf(event: LiveEvent): Candidate[] {
  if (event.stream === 'jobs' && (event.type === 'job_finished' || event.type === 'job_failed')) {
    const job = JobEnded.safeParse(event.payload).data;
    if (!job) return [];
    const data = (executor: Executor) => logEntryOf(executor, event.orgId, job.job_id);
    const created: Candidate = { type: 'log.created', dedupeKey: `log.created:${job.job_id}`, data };
    return event.type === 'job_failed' ? [created, { type: 'job.failed', dedupeKey: `job.failed:${job.job_id}`, data }] : [created];
  }
  if (event.stream === 'deliveries' && event.type === 'delivery_change') {
    const delivery = Delivery.safeParse(event.payload).data;
    if (delivery?.status !== DeliveryStatus.delivered) return [];
    return [{ type: 'delivery.delivered', dedupeKey: `delivery.delivered:${delivery.delivery_id}`, data: () => Promise.resolve(delivery) }];
  }
  return [];
}

/** Enabled webhooks of `orgId` that subscribed to `type`. */
const subscribers = (executor: Executor, orgId: string, type: WebhookEventType) =>
  executor
    .select({ id: webhooks.id })
    .from(webhooks)
    .where(and(eq(webhooks.orgId, orgId), eq(webhooks.enabled, true), arrayContains(webhooks.events, [type])));

/** Records `payload` for each of `webhookIds` (once per dedupe key) and wakes the workers at commit. */
export async function recordDeliveries(
  executor: Executor,
  orgId: string,
  webhookIds: readonly string[],
  delivery: { dedupeKey: string; payload: WebhookPayload; test?: boolean },
): Promise<void> {
  if (webhookIds.length === 0) return;
  await executor
    .insert(webhookDeliveries)
    .values(
      webhookIds.map((webhookId) => ({
        orgId,
        webhookId,
        eventType: delivery.payload.type,
        dedupeKey: delivery.dedupeKey,
        payload: delivery.payload,
        test: delivery.test ?? false,
      })),
    )
    .onConflictDoNothing({ target: [webhookDeliveries.webhookId, webhookDeliveries.dedupeKey] });
  await executor.execute(sql`SELECT pg_notify(${WEBHOOK_CHANNEL}, '')`);
}

export function webhookOutbox(): RecordHook {
  return async (event, executor) => {
    for (const candidate of candidatesOf(event)) {
      const subscribed = await subscribers(executor, event.orgId, candidate.type);
      if (subscribed.length === 0) continue;
      const data = await candidate.data(executor);
      if (!data) continue;
      const payload: WebhookPayload = { type: candidate.type, timestamp: new Date().toISOString(), data };
      await recordDeliveries(
        executor,
        event.orgId,
        subscribed.map((webhook) => webhook.id),
        { dedupeKey: candidate.dedupeKey, payload },
      );
    }
  };
}
