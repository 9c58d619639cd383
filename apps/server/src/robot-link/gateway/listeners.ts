/**
 * The fleet's listeners (fleet.ts `onState`, `onStateEvent`, `onConnection`): called in arrival order and not
 * awaited, so a listener's failure or slowness is its own and never holds up the robot's next message.
 */
import type { StateMessage } from '@uvd/contracts';
import type { StateEvent } from '../events.ts';
import type { ConnectionListener, FleetLogger, StateEventListener, StateListener } from '../fleet.ts';
import type { Tracked } from './robot-cache.ts';

export interface FleetListeners {
  onState: (listener: StateListener) => () => void;
  onStateEvent: (listener: StateEventListener) => () => void;
  onConnection: (listener: ConnectionListener) => () => void;
  /** Hands an accepted state, raw and as read, to the state and state event listeners. */
  notifyState: (tracked: Tracked, state: StateMessage, event: StateEvent) => void;
  /** Tells the connection listeners that the robot came or went, once its row says so. */
  notifyConnection: (tracked: Tracked, online: boolean) => void;
}

export function createFleetListeners(log: FleetLogger): FleetListeners {
  const stateListeners = new Set<StateListener>();
  const eventListeners = new Set<StateEventListener>();
  const connectionListeners = new Set<ConnectionListener>();

  /** Calls a listener without waiting for it: a listener's failure or slowness is its own. */
  const notify = (robotId: string, call: () => void | Promise<void>) => {
    const failed = (error: unknown) => {
      log.warn({ err: error, robotId }, 'a fleet state listener failed');
    };
    try {
      const result = call();
      if (result) result.catch(failed);
    } catch (error) {
      failed(error);
    }
  };

  /**
   * Tells the connection listeners that the robot came or went, once its row says so (the job lists read the
   * row's connection): the row write is awaited here, outside the robot's chain.
   */
  const notifyConnection = (tracked: Tracked, online: boolean) => {
    if (connectionListeners.size === 0) return;
    const written = tracked.writing ?? Promise.resolve();
    void written.then(() => {
      for (const listener of connectionListeners) notify(tracked.robot.robotId, () => listener(tracked.robot, online));
    });
  };

  const notifyState = (tracked: Tracked, state: StateMessage, event: StateEvent) => {
    const { robotId } = tracked.robot;
    for (const listener of stateListeners) notify(robotId, () => listener(tracked.robot, state));
    for (const listener of eventListeners) notify(robotId, () => listener(event));
  };

  const subscribe = <T>(listeners: Set<T>, listener: T) => {
    listeners.add(listener);
    return () => {
      listeners.delete(listener);
    };
  };

  return {
    onState: (listener) => subscribe(stateListeners, listener),
    onStateEvent: (listener) => subscribe(eventListeners, listener),
    onConnection: (listener) => subscribe(connectionListeners, listener),
    notifyState,
    notifyConnection,
  };
}
