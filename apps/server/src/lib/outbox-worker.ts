/**
 * The loop of an outbox's worker (pushes, webhooks, mail): passes of `work` until one finds nothing due and no
 * wake came meanwhile. Woken at once by the channel's NOTIFY (at the commit that wrote work), by its own process,
 * and by a poll for retries; a retry due before the next poll wakes it then, not at the poll. Every server process
 * runs one per outbox; they share the work through the database (SKIP LOCKED).
 */
import type { Notifier } from '../db/client.ts';
import { wakeable } from './wakeable.ts';

/** Retries fall due without a NOTIFY: looked for this often. */
const POLL_MS = 1000;

export interface OutboxWorkerOptions {
  notifier: Notifier;
  channel: string;
  /** One pass: sends what is due, and resolves to how much it found (0: nothing was due). */
  work: () => Promise<number>;
  /** When the next retry falls due, if any. */
  nextDue: () => Promise<Date | undefined>;
  /** A pass that threw; the worker tries again at its next poll. */
  onError: (error: unknown) => void;
}

export interface OutboxWorker {
  wake: () => void;
  /** Resolves when no pass runs (tests). */
  idle: () => Promise<void>;
  close: () => Promise<void>;
}

export async function startOutboxWorker(options: OutboxWorkerOptions): Promise<OutboxWorker> {
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

  const wakeAt = (at: Date | undefined) => {
    if (!at || worker.closed) return;
    const wait = at.getTime() - Date.now();
    if (wait >= POLL_MS) return;
    clearTimeout(alarm);
    alarm = setTimeout(wake, Math.max(0, wait));
    alarm.unref();
  };

  const unlisten = await options.notifier.listen(options.channel, wake);
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
