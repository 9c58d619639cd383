/**
 * The notifications service of a server process: the outbox hook on the event bus, and one worker loop that
 * fans out due push events and sends due deliveries. Every process runs one; they share the work through the
 * database (SKIP LOCKED), wake at once on the push channel's NOTIFY, and poll for retries and escalations (a
 * prompt's, and a delivery's: deliveries/escalation.ts).
 */
import { wakeable, type Wakeable } from '../lib/wakeable.ts';
import type { FastifyBaseLogger } from 'fastify';
import type { AppContext } from '../context.ts';
import { escalateDue } from '../deliveries/escalation.ts';
import { deliverDue, nextDelivery } from './delivery.ts';
import { fanOutDue, nextFanOut } from './fan-out.ts';
import { PUSH_CHANNEL, pushOutbox } from './outbox.ts';
import type { PushSender, SendOutcome } from './sender.ts';

/** Retries and escalations fall due without a NOTIFY: looked for this often. */
const POLL_MS = 1000;

async function nextDue(db: AppContext['db']): Promise<Date | undefined> {
  const times = (await Promise.all([nextDelivery(db), nextFanOut(db)])).filter((at) => at !== undefined);
  return times.length > 0 ? new Date(Math.min(...times.map((at) => at.getTime()))) : undefined;
}

export interface NotificationsOptions {
  senders: Partial<Record<PushSender['kind'], PushSender>>;
  logger: FastifyBaseLogger;
  onOutcome?: (outcome: SendOutcome) => void;
}

export interface Notifications {
  /** Runs the loop now (tests, after a change they made directly). */
  wake(): void;
  /** Resolves when no work is due right now (tests). */
  idle(): Promise<void>;
  close(): Promise<void>;
}

export async function startNotifications(ctx: Pick<AppContext, 'config' | 'database' | 'bus'>, options: NotificationsOptions): Promise<Notifications> {
  const { push } = ctx.config;
  ctx.bus.onRecord(pushOutbox({ escalationMs: push.escalationMs }));
  const db = ctx.database.db;

  const round = async (self: Wakeable) => {
    for (;;) {
      self.again();
      // A delivery nobody came for becomes a push here, fanned out below in the same round. Its failure must not
      // hold up every other push: logged, and tried again next round.
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
      if (self.closed) return;
      if (escalated === 0 && fannedOut === 0 && delivered === 0 && !self.again()) {
        wakeAt(await nextDue(db));
        return;
      }
    }
  };
  const worker = wakeable(round, (error) => {
    options.logger.error({ err: error }, 'push worker failed; it tries again at its next poll');
  });
  const wake = worker.wake;

  // A retry or an escalation due before the next poll wakes the loop then, not at the poll.
  let alarm: NodeJS.Timeout | undefined;
  const wakeAt = (at: Date | undefined) => {
    if (!at || worker.closed) return;
    const wait = at.getTime() - Date.now();
    if (wait >= POLL_MS) return;
    clearTimeout(alarm);
    alarm = setTimeout(wake, Math.max(0, wait));
    alarm.unref();
  };

  const unlisten = await ctx.database.notifier.listen(PUSH_CHANNEL, wake);
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
