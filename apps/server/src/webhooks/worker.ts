/**
 * The webhooks service of a server process: the outbox hook on the event bus, and one worker loop that sends due
 * deliveries. Every process runs one; they share the work through the database (SKIP LOCKED), wake at once on the
 * webhook channel's NOTIFY (at the commit of an event or a test), and poll for retries.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { AppContext } from '../context.ts';
import { wakeable, type Wakeable } from '../lib/wakeable.ts';
import { deliverDue, nextDelivery, type DeliveryOptions } from './delivery.ts';
import { WEBHOOK_CHANNEL, webhookOutbox } from './outbox.ts';

/** Retries fall due without a NOTIFY: looked for this often. */
const POLL_MS = 1000;

export interface WebhooksOptions {
  logger: FastifyBaseLogger;
  /** Replaces the POST (tests). */
  send?: DeliveryOptions['send'];
}

export interface WebhooksWorker {
  wake(): void;
  /** Resolves when no round runs (tests). */
  idle(): Promise<void>;
  close(): Promise<void>;
}

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

  const round = async (self: Wakeable) => {
    for (;;) {
      self.again();
      const delivered = await deliverDue(db, deliveryOptions);
      if (self.closed) return;
      if (delivered === 0 && !self.again()) {
        wakeAt(await nextDelivery(db));
        return;
      }
    }
  };
  const worker = wakeable(round, (error) => {
    options.logger.error({ err: error }, 'webhook worker failed; it tries again at its next poll');
  });
  const wake = worker.wake;

  // A retry due before the next poll wakes the loop then, not at the poll.
  let alarm: NodeJS.Timeout | undefined;
  const wakeAt = (at: Date | undefined) => {
    if (!at || worker.closed) return;
    const wait = at.getTime() - Date.now();
    if (wait >= POLL_MS) return;
    clearTimeout(alarm);
    alarm = setTimeout(wake, Math.max(0, wait));
    alarm.unref();
  };

  const unlisten = await ctx.database.notifier.listen(WEBHOOK_CHANNEL, wake);
  const timer = setInterval(wake, POLL_MS);
  timer.unref();
  wake();

  return {
    wake,
    idle: worker.idle,
    async close() {
      clearInterval(timer);
      clearTimeout(alarm);
      await worker.close();
      await unlisten();
    },
  };
}
