/**
 * The notifications service of a server process: the outbox hook on the event bus, and one worker loop that
 * fans out due push events and sends due deliveries (lib/outbox-worker.ts), woken at once on the push channel's
 * NOTIFY and polling for retries and escalations (a prompt's, and a delivery's: deliveries/escalation.ts).
 */
import type { FastifyBaseLogger } from 'fastify';
import type { AppContext } from '../context.ts';
import { startOutboxWorker, type OutboxWorker } from '../lib/outbox-worker.ts';
import { escalateDue, nextEscalation } from '../deliveries/escalation.ts';
import { deliverDue, nextDelivery } from './delivery.ts';
import { fanOutDue, nextFanOut } from './fan-out.ts';
import { PUSH_CHANNEL, pushOutbox } from './outbox.ts';
import type { PushSender, SendOutcome } from './sender.ts';

async function nextDue(db: AppContext['db'], deliveryEscalationMs: number): Promise<Date | undefined> {
  const times = (await Promise.all([nextDelivery(db), nextFanOut(db), nextEscalation(db, deliveryEscalationMs)])).filter((at) => at !== undefined);
  return times.length > 0 ? new Date(Math.min(...times.map((at) => at.getTime()))) : undefined;
}

export interface NotificationsOptions {
  senders: Partial<Record<PushSender['kind'], PushSender>>;
  logger: FastifyBaseLogger;
  onOutcome?: (outcome: SendOutcome) => void;
}

/** `wake` runs the loop now (tests, after a change they made directly). */
export type Notifications = OutboxWorker;

export async function startNotifications(ctx: Pick<AppContext, 'config' | 'database' | 'bus'>, options: NotificationsOptions): Promise<Notifications> {
  const { push } = ctx.config;
  ctx.bus.onRecord(pushOutbox({ escalationMs: push.escalationMs }));
  const db = ctx.database.db;

  return startOutboxWorker({
    notifier: ctx.database.notifier,
    channel: PUSH_CHANNEL,
    // A delivery nobody came for becomes a push here, fanned out below in the same pass. Its failure must not hold
    // up every other push: logged, and tried again next pass.
    work: async () => {
      const escalated = await escalateDue({ db, bus: ctx.bus }, push.deliveryEscalationMs).catch((error: unknown) => {
        options.logger.error({ err: error }, 'delivery escalation failed; it tries again next round');
        return 0;
      });
      const fannedOut = await fanOutDue(db, push.escalationMs);
      const delivered = await deliverDue(db, {
        senders: options.senders,
        giveUpMs: push.giveUpMs,
        retryBaseMs: push.retryBaseMs,
        leaseMs: 2 * push.sendTimeoutMs,
        onOutcome: (delivery, outcome) => {
          if (outcome.kind !== 'sent') options.logger.warn({ delivery: delivery.id, attempts: delivery.attempts, outcome }, 'push not delivered');
          options.onOutcome?.(outcome);
        },
      });
      return escalated + fannedOut + delivered;
    },
    // A retry, an escalation or a lapsed lease wakes the loop when it falls due.
    nextDue: () => nextDue(db, push.deliveryEscalationMs),
    onError: (error) => {
      options.logger.error({ err: error }, 'push worker failed; it tries again at its next poll');
    },
  });
}
