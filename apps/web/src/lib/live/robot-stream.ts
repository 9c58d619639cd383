import { COMMAND_UNDELIVERED_EVENT, CommandUndelivered, RobotUpdate } from '@uvd/contracts';
import type { Robot, RobotList } from '@uvd/contracts';
import { StreamHub, jsonParser } from './stream-hub.ts';
import type { StreamConnect } from './stream-hub.ts';

export { streamKey } from './stream-hub.ts';

/** Opens GET /robot/stream for these robots; resolves with the response whose body is the event stream. */
export type RobotStreamConnect = StreamConnect;

export interface RobotStreamHubOptions {
  connect: RobotStreamConnect;
  /** Receives every robot_update that parses with the contract, once per event whatever the number of subscribers. */
  onUpdate: (update: RobotUpdate) => void;
  /** After a reconnect or a resync frame: robot_update events are telemetry the server does not replay. */
  onResync?: (robotIds: readonly string[]) => void;
  /** A command the server gave up sending to one of these robots (command_undelivered, a recorded event). */
  onUndelivered?: (event: CommandUndelivered) => void;
  /** See StreamHubOptions: the reconnect schedule. */
  initialDelayMs?: number;
  maxDelayMs?: number;
  random?: () => number;
  /** See StreamHubOptions.lifecycle (the window by default). */
  lifecycle?: EventTarget;
}

const ROBOT_UPDATE_EVENT = 'robot_update';

const parseUndelivered = jsonParser(CommandUndelivered);

/** The shared stream hub of GET /robot/stream: robot_update and command_undelivered events. */
export class RobotStreamHub extends StreamHub<RobotUpdate> {
  constructor({ onUpdate, onUndelivered, ...options }: RobotStreamHubOptions) {
    super({
      ...options,
      event: ROBOT_UPDATE_EVENT,
      parse: jsonParser(RobotUpdate),
      onEvent: onUpdate,
      onOther: (event, data) => {
        const undelivered = event === COMMAND_UNDELIVERED_EVENT ? parseUndelivered(data) : null;
        if (undelivered) onUndelivered?.(undelivered);
      },
    });
  }
}

const patchRobot = (robot: Robot, update: RobotUpdate): Robot => {
  switch (update.field) {
    case 'battery':
      return { ...robot, battery: update.value, charging_status: update.charging_status };
    case 'ping':
      return { ...robot, signal: update.timeout ? -1 : update.value };
    case 'mode':
      return { ...robot, mode: update.value };
    case 'status':
      return { ...robot, status: update.value };
    case 'stale':
      return { ...robot, stale: update.value };
    case 'pose': {
      const { floor_id: floorId, ...pose } = update.value;
      return { ...robot, pose, floor_id: floorId };
    }
    case 'errors':
      // The robot list has no errors field: nothing of it to update.
      return robot;
  }
};

/**
 * Behaviour §4: a live robot update sets one named field on the matching robot; battery also copies charging_status;
 * a ping with timeout sets signal to -1, otherwise to the ping. The list is returned unchanged (same object) when
 * no robot matches.
 */
export const applyRobotUpdate = (list: RobotList | undefined, update: RobotUpdate): RobotList | undefined => {
  if (!list) return list;
  const payload = list.payload.map((robot) => (robot.robot_id === update.robot_id ? patchRobot(robot, update) : robot));
  return payload.some((robot, index) => robot !== list.payload[index]) ? { ...list, payload } : list;
};
