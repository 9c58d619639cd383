/**
 * The watchdog: an online robot silent for `staleMs` is marked stale, for `offlineMs` offline
 * (CONNECTIONBROKEN); pings unanswered for `pingTimeoutMs` are given up and the robot's signal shown as lost.
 */
import type { Config } from '../../config.ts';
import type { MessageIntake } from './message-intake.ts';
import { identityKey, type Tracked } from './robot-cache.ts';
import type { RowWriter } from './row-writer.ts';
import type { StateApply } from './state-apply.ts';

const WATCHDOG_MS = 500;

/** Starts the watchdog over `robots`; returns the function that stops it. */
export function startWatchdog(options: {
  robots: ReadonlyMap<string, Tracked>;
  timing: Config['fleet'];
  enqueue: MessageIntake['enqueue'];
  goOffline: StateApply['goOffline'];
  writer: RowWriter;
}): () => void {
  const { robots, timing, enqueue, goOffline } = options;
  const { commit, publishUpdate } = options.writer;
  const watchdog = setInterval(() => {
    const now = Date.now();
    for (const tracked of robots.values()) {
      if (tracked.connection !== 'ONLINE') continue;
      const key = identityKey(tracked.robot.manufacturer, tracked.robot.serialNumber);
      const silent = now - tracked.lastHeardAt;
      if (silent >= timing.offlineMs) {
        enqueue(key, () => goOffline(tracked, 'CONNECTIONBROKEN'));
        continue;
      }
      if (silent >= timing.staleMs && !tracked.stale) {
        tracked.stale = true;
        publishUpdate(tracked, { robot_id: tracked.robot.robotId, field: 'stale', value: true });
      }
      let lost = false;
      for (const [actionId, sentAt] of tracked.pings) {
        if (now - sentAt < timing.pingTimeoutMs) continue;
        tracked.pings.delete(actionId);
        lost = true;
      }
      if (lost && tracked.current.signal >= 0) {
        enqueue(key, async () => {
          commit(tracked, { ...tracked.current, signal: -1 }, Date.now());
        });
      }
    }
  }, Math.min(WATCHDOG_MS, timing.staleMs));
  watchdog.unref();
  return () => {
    clearInterval(watchdog);
  };
}
