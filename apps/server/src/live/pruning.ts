/** Keeps the event log to the replay horizon: events older than the retention are deleted periodically. */
import type { EventBus } from './bus.ts';
import type { LiveSettings } from './settings.ts';

export interface Pruner {
  /** Prunes once now; resolves to the number of events deleted. */
  pruneNow(): Promise<number>;
  /** Stops the timer and waits for a prune in flight, so the database can close after it. */
  stop(): Promise<void>;
}

export function schedulePruning(
  bus: EventBus,
  settings: Pick<LiveSettings, 'retentionMs' | 'pruneIntervalMs'>,
  onError: (error: unknown) => void,
  now: () => number = Date.now,
): Pruner {
  let running: Promise<number> | undefined;
  const pruneNow = () => {
    running ??= bus.prune(new Date(now() - settings.retentionMs)).finally(() => {
      running = undefined;
    });
    return running;
  };
  const timer = setInterval(() => {
    pruneNow().catch(onError);
  }, settings.pruneIntervalMs);
  timer.unref();
  return {
    pruneNow,
    async stop() {
      clearInterval(timer);
      await running?.catch(() => undefined);
    },
  };
}
