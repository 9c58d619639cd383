import { withoutAuditActor } from '../audit/context.ts';

/**
 * A background round that runs when woken and never twice at once: a wake while a round is under way makes that
 * round go again once it ends (`again()` tells the round), instead of starting a second one beside it. The
 * outboxes' workers (pushes, robot commands) are woken by a NOTIFY at commit, by their own process after a
 * commit, and by a poll.
 */
export interface Wakeable {
  wake: () => void;
  /** Whether a wake came since the round began (read once per pass; it clears the flag). */
  again: () => boolean;
  /** Settles when no round runs. */
  idle: () => Promise<void>;
  /** No more rounds; settles when the current one is over. */
  close: () => Promise<void>;
  readonly closed: boolean;
}

export function wakeable(round: (self: Wakeable) => Promise<void>, onError: (error: unknown) => void): Wakeable {
  let running: Promise<void> | undefined;
  let woken = false;
  let closed = false;
  const self: Wakeable = {
    wake: () => {
      if (closed) return;
      if (running) {
        woken = true;
        return;
      }
      woken = false;
      // A wake from a request handler must not make the round (and its writes) that request's in the audit trail.
      running = withoutAuditActor(() => round(self))
        .catch(onError)
        .finally(() => {
          running = undefined;
        });
    },
    again: () => {
      const value = woken;
      woken = false;
      return value;
    },
    idle: async () => {
      while (running) await running;
    },
    close: async () => {
      closed = true;
      while (running) await running;
    },
    get closed() {
      return closed;
    },
  };
  return self;
}
