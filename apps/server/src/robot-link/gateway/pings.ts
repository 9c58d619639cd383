/**
 * Pings: every `pingIntervalMs` each online robot gets an instant action whose report in its state measures the
 * round trip (the robot's `signal`; state-apply.ts reads the answers, watchdog.ts gives up on lost ones).
 */
import type { InstantActionsMessage, StateMessage } from '@uvd/contracts';
import type { FleetLogger } from '../fleet.ts';
import type { Tracked } from './robot-cache.ts';

const PING_ID_PREFIX = 'ping-';

/** The ping an error refers to: a robot that does not know an instant action reports an error naming its id. */
export const pingOfError = (error: StateMessage['errors'][number]): string | undefined =>
  error.errorReferences?.find((ref) => ref.referenceKey === 'actionId' && ref.referenceValue.startsWith(PING_ID_PREFIX))?.referenceValue;

/** Starts pinging the online robots of `robots`; returns the function that stops it. */
export function startPings(options: {
  robots: ReadonlyMap<string, Tracked>;
  publishInstantActions: (tracked: Tracked, actions: InstantActionsMessage['actions']) => Promise<void>;
  intervalMs: number;
  log: FleetLogger;
}): () => void {
  const { robots, publishInstantActions, log } = options;
  let pingCounter = 0;
  const pingTimer = setInterval(() => {
    for (const tracked of robots.values()) {
      if (tracked.connection !== 'ONLINE') continue;
      const actionId = `${PING_ID_PREFIX}${Date.now()}-${pingCounter++}`;
      tracked.pings.set(actionId, Date.now());
      publishInstantActions(tracked, [
        {
          actionType: tracked.pingAction,
          actionId,
          blockingType: 'NONE',
          actionParameters: [{ key: 'sent_at', value: new Date().toISOString() }],
        },
      ]).catch((error: unknown) => { log.warn({ err: error }, 'ping could not be sent'); });
    }
  }, options.intervalMs);
  pingTimer.unref();
  return () => {
    clearInterval(pingTimer);
  };
}
