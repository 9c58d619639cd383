/** SQL of the webhooks backend: an organization's webhooks, each with its last delivery attempt for the admin list. */
import { and, desc, eq, inArray, isNotNull } from 'drizzle-orm';
import type { Webhook } from '@uvd/contracts';
import type { Executor } from '../db/client.ts';
import { webhookDeliveries, webhooks } from '../db/schema.ts';

export type WebhookRow = typeof webhooks.$inferSelect;
type LastDelivery = Webhook['last_delivery'];

export async function listWebhooks(executor: Executor, orgId: string): Promise<WebhookRow[]> {
  return executor.select().from(webhooks).where(eq(webhooks.orgId, orgId)).orderBy(webhooks.createdAt, webhooks.id);
}

export async function findWebhook(executor: Executor, orgId: string, id: string): Promise<WebhookRow | undefined> {
  const [row] = await executor
    .select()
    .from(webhooks)
    .where(and(eq(webhooks.orgId, orgId), eq(webhooks.id, id)));
  return row;
}

export async function insertWebhook(executor: Executor, values: typeof webhooks.$inferInsert): Promise<WebhookRow> {
  const [row] = await executor.insert(webhooks).values(values).returning();
  if (!row) throw new Error('webhook not inserted');
  return row;
}

export async function updateWebhook(
  executor: Executor,
  orgId: string,
  id: string,
  changes: Partial<Pick<WebhookRow, 'url' | 'events' | 'enabled' | 'description'>>,
): Promise<WebhookRow | undefined> {
  if (Object.keys(changes).length === 0) return findWebhook(executor, orgId, id);
  const [row] = await executor
    .update(webhooks)
    .set(changes)
    .where(and(eq(webhooks.orgId, orgId), eq(webhooks.id, id)))
    .returning();
  return row;
}

export async function deleteWebhook(executor: Executor, orgId: string, id: string): Promise<boolean> {
  const deleted = await executor
    .delete(webhooks)
    .where(and(eq(webhooks.orgId, orgId), eq(webhooks.id, id)))
    .returning({ id: webhooks.id });
  return deleted.length > 0;
}

const lastStatus = (status: string): NonNullable<LastDelivery>['status'] =>
  status === 'sent' ? 'sent' : status === 'failed' ? 'failed' : 'retrying';

/** Each webhook's latest attempt: when, how it went (sent, still retrying, given up) and the receiver's status. */
export async function lastDeliveries(executor: Executor, webhookIds: readonly string[]): Promise<Map<string, NonNullable<LastDelivery>>> {
  if (webhookIds.length === 0) return new Map();
  const rows = await executor
    .selectDistinctOn([webhookDeliveries.webhookId], {
      webhookId: webhookDeliveries.webhookId,
      at: webhookDeliveries.lastAttemptAt,
      status: webhookDeliveries.status,
      httpStatus: webhookDeliveries.lastHttpStatus,
    })
    .from(webhookDeliveries)
    .where(and(inArray(webhookDeliveries.webhookId, [...webhookIds]), isNotNull(webhookDeliveries.lastAttemptAt)))
    .orderBy(webhookDeliveries.webhookId, desc(webhookDeliveries.lastAttemptAt));
  const last = new Map<string, NonNullable<LastDelivery>>();
  for (const row of rows) {
    if (row.at) last.set(row.webhookId, { at: row.at.toISOString(), status: lastStatus(row.status), http_status: row.httpStatus });
  }
  return last;
}

export function toWebhook(row: WebhookRow, last: LastDelivery = null): Webhook {
  return {
    id: row.id,
    url: row.url,
    events: row.events,
    enabled: row.enabled,
    description: row.description,
    created_at: row.createdAt.toISOString(),
    last_delivery: last,
  };
}
