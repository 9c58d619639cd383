/**
 * Contracts of webhooks: an organization's admins register URLs that receive signed events (Standard Webhooks:
 * `webhook-id`, `webhook-timestamp`, `webhook-signature: v1,<base64 HMAC-SHA256>` over `id.timestamp.body` with
 * the endpoint's `whsec_` secret), delivered at least once with retries.
 */
import { z } from 'zod';
import { DeletedIds } from './groups.ts';
import { Id, Text, Timestamp } from './common.ts';
import { RESTRICTED_ROLES } from './roles.ts';
import { defineRoute } from './route.ts';

/** `delivery.delivered` exists in the logistics variant only. */
export const WebhookEventType = z.enum(['log.created', 'job.failed', 'delivery.delivered']);
export type WebhookEventType = z.infer<typeof WebhookEventType>;

export const WEBHOOK_MESSAGES = {
  url: 'url must be an https URL (or http to a host in WEBHOOK_HOSTS)',
  events: 'events must name at least one of log.created, job.failed, delivery.delivered',
} as const;

export const WEBHOOK_SIGNATURE_HEADERS = { id: 'webhook-id', timestamp: 'webhook-timestamp', signature: 'webhook-signature' } as const;

export const Webhook = z.object({
  id: Id,
  url: z.string(),
  events: z.array(WebhookEventType),
  enabled: z.boolean(),
  description: z.string(),
  created_at: Timestamp,
  /** The last attempt's outcome, for the admin list. */
  last_delivery: z
    .object({ at: Timestamp, status: z.enum(['sent', 'retrying', 'failed']), http_status: z.number().int().nullable() })
    .nullable(),
});
export type Webhook = z.infer<typeof Webhook>;

/** The reply to a create: the signing secret, shown once. */
export const CreatedWebhook = Webhook.extend({ secret: z.string().startsWith('whsec_') });
export type CreatedWebhook = z.infer<typeof CreatedWebhook>;

const webhookFields = {
  url: Text().max(2000).pipe(z.url({ error: WEBHOOK_MESSAGES.url })),
  events: z.array(WebhookEventType, { error: WEBHOOK_MESSAGES.events }).min(1, { error: WEBHOOK_MESSAGES.events }),
  enabled: z.boolean(),
  description: Text().max(200),
};

export const WebhookInput = z.object({
  ...webhookFields,
  enabled: webhookFields.enabled.default(true),
  description: webhookFields.description.default(''),
});
export type WebhookInput = z.input<typeof WebhookInput>;

/** Without the create's defaults: a field left out of a change stays as it is. */
export const WebhookUpdate = z.object(webhookFields).partial();
export type WebhookUpdate = z.input<typeof WebhookUpdate>;

export const WebhookList = z.object({ data: z.array(Webhook) });
export type WebhookList = z.infer<typeof WebhookList>;

/** The body a receiver gets (Standard Webhooks' shape). */
export const WebhookPayload = z.object({
  type: WebhookEventType,
  timestamp: Timestamp,
  /** log.created: the log entry (LogEntry, without trajectory); job.failed: the log entry; delivery.delivered: the delivery. */
  data: z.record(z.string(), z.unknown()),
});
export type WebhookPayload = z.infer<typeof WebhookPayload>;

const webhookParams = z.object({ id: Id });

export const listWebhooks = defineRoute({
  method: 'GET',
  path: '/webhooks',
  summary: "The organization's webhooks",
  tags: ['webhooks'],
  response: { 200: WebhookList },
  roles: RESTRICTED_ROLES,
});

export const createWebhook = defineRoute({
  method: 'POST',
  path: '/webhooks',
  summary: 'Register a webhook; the reply holds its signing secret, shown once',
  tags: ['webhooks'],
  body: WebhookInput,
  response: { 201: CreatedWebhook },
  roles: RESTRICTED_ROLES,
});

export const updateWebhook = defineRoute({
  method: 'PATCH',
  path: '/webhooks/:id',
  summary: "Change a webhook's URL, events, description or whether it is enabled",
  tags: ['webhooks'],
  params: webhookParams,
  body: WebhookUpdate,
  response: { 200: Webhook },
  roles: RESTRICTED_ROLES,
});

export const deleteWebhook = defineRoute({
  method: 'DELETE',
  path: '/webhooks/:id',
  summary: 'Remove a webhook (its undelivered events are dropped)',
  tags: ['webhooks'],
  params: webhookParams,
  response: { 200: DeletedIds },
  roles: RESTRICTED_ROLES,
});

export const testWebhook = defineRoute({
  method: 'POST',
  path: '/webhooks/:id/test',
  summary: 'Send a signed test event (type of the first subscribed event, data { test: true }) now',
  tags: ['webhooks'],
  params: webhookParams,
  response: { 202: z.object({ queued: z.literal(true) }) },
  roles: RESTRICTED_ROLES,
});
