/** Counts of the gateway's inbound messages, accepted and dropped by reason; drops are logged at a limited rate. */
import type { FleetLogger, FleetStats } from '../fleet.ts';

/** Each drop reason is logged at most once per this interval, with the count since. */
const DROP_LOG_INTERVAL_MS = 10_000;

export type DropReason = Exclude<keyof FleetStats, 'accepted'>;

export interface MessageStats {
  /** The counts, updated in place (`accepted` is counted by whoever applies a message). */
  readonly counts: FleetStats;
  /** Counts a dropped message of `topic` and logs it, at most once per reason and interval. */
  drop: (reason: DropReason, topic: string, detail?: string) => void;
}

export function createMessageStats(log: FleetLogger): MessageStats {
  const stats: FleetStats = { accepted: 0, malformed: 0, invalid: 0, unknownRobot: 0, spoofed: 0, duplicate: 0 };
  const dropLog = new Map<string, { loggedAt: number; since: number }>();
  const drop = (reason: DropReason, topic: string, detail?: string) => {
    stats[reason]++;
    const now = Date.now();
    const entry = dropLog.get(reason) ?? { loggedAt: 0, since: 0 };
    entry.since++;
    if (now - entry.loggedAt >= DROP_LOG_INTERVAL_MS) {
      log.warn({ reason, topic, detail, dropped: entry.since }, 'fleet gateway dropped MQTT messages');
      entry.loggedAt = now;
      entry.since = 0;
    }
    dropLog.set(reason, entry);
  };
  return { counts: stats, drop };
}
