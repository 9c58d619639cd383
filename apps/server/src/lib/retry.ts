/**
 * When a failed delivery (a push, a webhook) is tried next: a doubling wait from `baseMs`, with full jitter on its
 * upper half so that deliveries failed together do not retry in lockstep, until `giveUpMs` after the event. A wait
 * that would pass that deadline is cut to it, so the last attempt happens at the deadline instead of being skipped:
 * a delivery is tried for the whole time it is promised, not given up early because the next wait was long.
 */
export interface RetrySchedule {
  /** The first retry waits about this long; each next one twice as long, up to `maxWaitMs`. */
  baseMs: number;
  maxWaitMs: number;
  /** A delivery not accepted this long after its event is given up. */
  giveUpMs: number;
}

/** The jittered doubling wait after `attempts` attempts (1 for the first failure). */
export function retryWait(attempts: number, baseMs: number, maxWaitMs: number, random = Math.random): number {
  const wait = Math.min(baseMs * 2 ** Math.max(0, attempts - 1), maxWaitMs);
  return Math.round(wait / 2 + (random() * wait) / 2);
}

/**
 * The time of the next attempt, or null when the delivery is given up: its deadline has come, or the receiver asked
 * (`notBeforeMs`, a Retry-After) to wait past it.
 */
export function nextAttemptAt(
  schedule: RetrySchedule,
  delivery: { attempts: number; createdAt: Date },
  now: number,
  notBeforeMs = 0,
  random = Math.random,
): Date | null {
  const deadline = delivery.createdAt.getTime() + schedule.giveUpMs;
  if (now >= deadline) return null;
  const asked = now + Math.min(notBeforeMs, schedule.maxWaitMs);
  if (asked > deadline) return null;
  return new Date(Math.min(Math.max(now + retryWait(delivery.attempts, schedule.baseMs, schedule.maxWaitMs, random), asked), deadline));
}
