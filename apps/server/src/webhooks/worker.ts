/**
 * The webhooks service of a server process: the outbox hook on the event bus, and one worker loop that sends due
 * deliveries (lib/outbox-worker.ts), woken at once on the webhook channel's NOTIFY (at the commit of an event or a
 * test) and polling for retries.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { AppContext } from '../context.ts';
import { startOutboxWorker, type OutboxWorker } from '../lib/outbox-worker.ts';
import { deliverDue, nextDelivery, type DeliveryOptions } from './delivery.ts';
import { WEBHOOK_CHANNEL, webhookOutbox } from './outbox.ts';

export interface WebhooksOptions {
  logger: FastifyBaseLogger;
  /** Replaces the POST (tests). */
  send?: DeliveryOptions['send'];
}

export type WebhooksWorker = OutboxWorker;

export async function startWebhooks(ctx: Pick<AppContext, 'config' | 'database' | 'bus'>, options: WebhooksOptions): Promise<WebhooksWorker> {
  const config = ctx.config.webhooks;
  ctx.bus.onRecord(webhookOutbox());
  const db = ctx.database.db;
  const deliveryOptions: DeliveryOptions = {
    allowedHosts: config.hosts,
    giveUpMs: config.giveUpMs,
    retryBaseMs: config.retryBaseMs,
    sendTimeoutMs: config.sendTimeoutMs,
    leaseMs: 2 * config.sendTimeoutMs,
    ...(options.send ? { send: options.send } : {}),
    onOutcome: (delivery, outcome) => {
      if (outcome.kind !== 'sent') options.logger.warn({ webhookDelivery: delivery.id, webhook: delivery.webhookId, attempts: delivery.attempts, outcome }, 'webhook not delivered');
    },
  };

  return startOutboxWorker({
    notifier: ctx.database.notifier,
    channel: WEBHOOK_CHANNEL,
    work: () => deliverDue(db, deliveryOptions),
    nextDue: () => nextDelivery(db),
    onError: (error) => {
      options.logger.error({ err: error }, 'webhook worker failed; it tries again at its next poll');
    },
  });
}
