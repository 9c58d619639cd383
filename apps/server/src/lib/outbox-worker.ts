/**
 * The loop of an outbox's worker (pushes, webhooks, mail): passes of `work` until one finds nothing due and no
 * wake came meanwhile. Woken at once by the channel's NOTIFY (at the commit that wrote work) and by its own process;
 * after its last pass it sets an alarm for the next thing it knows will fall due without a NOTIFY (a retry, an
 * escalation, a lapsed lease of a send a process died in). A slow poll catches what no alarm covers: a NOTIFY lost
 * while the connection was down, and a retry another process scheduled before it died (its alarm died with it).
 * Every server process runs one per outbox; they share the work through the database (SKIP LOCKED).
 *
 * An idle server so makes no query between polls, where a poll each second per outbox was a third of what an idle
 * server did.
 */
import type { Notifier } from '../db/client.ts';
import { wakeable } from './wakeable.ts';

/** What falls due without a NOTIFY and without this process's alarm is looked for this often. */
const OUTBOX_POLL_MS = 15_000;

/** The soonest an alarm rings. */
const MIN_ALARM_MS = 25;
/** Node's longest timer (about 24 days); a later due time is looked at again then. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export interface OutboxWorkerOptions {
  notifier: Notifier;
  channel: string;
  /** One pass: sends what is due, and resolves to how much it found (0: nothing was due). */
  work: () => Promise<number>;
  /** When the next thing falls due without a NOTIFY (a retry, an escalation, a lease running out), if any. */
  nextDue: () => Promise<Date | undefined>;
  /** A pass that threw; the worker tries again at its next poll. */
  onError: (error: unknown) => void;
  /** The slow poll (tests of what only the poll finds). */
  pollMs?: number;
}

export interface OutboxWorker {
  wake: () => void;
  /** Resolves when no pass runs (tests). */
  idle: () => Promise<void>;
  close: () => Promise<void>;
}

export async function startOutboxWorker(options: OutboxWorkerOptions): Promise<OutboxWorker> {
  const pollMs = options.pollMs ?? OUTBOX_POLL_MS;
  let alarm: NodeJS.Timeout | undefined;
  const worker = wakeable(async (self) => {
    for (;;) {
      self.again();
      const found = await options.work();
      if (self.closed) return;
      if (found === 0 && !self.again()) {
        wakeAt(await options.nextDue());
        return;
      }
    }
  }, options.onError);
  const wake = worker.wake;

  // The last pass knows the earliest due time of all: its alarm replaces any earlier one. A time already past that
  // the pass did not take (a row another process holds, the database's clock a little behind this one's) is looked
  // at again shortly, not at once, so that the loop never spins.
  const wakeAt = (at: Date | undefined) => {
    clearTimeout(alarm);
    alarm = undefined;
    if (!at || worker.closed) return;
    alarm = setTimeout(wake, Math.min(MAX_TIMER_MS, Math.max(MIN_ALARM_MS, at.getTime() - Date.now())));
    alarm.unref();
  };

  const unlisten = await options.notifier.listen(options.channel, wake);
  const timer = setInterval(wake, pollMs);
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
