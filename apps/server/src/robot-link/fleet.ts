/**
 * The fleet link: robots speaking VDA 5050 v2 over MQTT. This file fixes the interface the rest of the
 * server uses; the gateway behind it validates every inbound message and keeps the robots table current.
 */
import type { InstantActionsMessage, OrderMessage, RobotError, StateMessage } from '@uvd/contracts';
import type { Config } from '../config.ts';
import type { Pose } from '../db/schema.ts';
import type { Database } from '../db/client.ts';
import type { EventBus } from '../live/bus.ts';
import type { RobotWork, StateEvent } from './events.ts';

/** A robot as the gateway knows it. */
export interface FleetRobot {
  robotId: string;
  orgId: string;
  manufacturer: string;
  serialNumber: string;
}

/** What the gateway knows of a robot's link right now (the row may lag behind by a few seconds). */
export interface RobotLink {
  online: boolean;
  /** Behaviour §3 mode; 0 while offline. */
  mode: number;
  /** Silent for the stale interval (30 s by default) but not yet offline. */
  stale: boolean;
  /** ms since epoch of the last state or connection message. */
  lastHeardAt: number;
  /** The last reported position (the row's pose is written at most every few seconds). */
  pose: Pose | null;
  floorId: string | null;
  /** Percent as last reported; null when it never reported one. */
  battery: number | null;
  /** The robot's errors as last reported (a FATAL one means it cannot run an order). */
  errors: RobotError[];
  /** The node the robot last reached (VDA 5050 lastNodeId, lastNodeSequenceId) and of which order; null before its first state. */
  lastNode: { orderId: string; nodeId: string; sequenceId: number } | null;
  /** What its last state said it has to do (events.ts `workOf`); undefined before its first state since start. */
  work: RobotWork | undefined;
}

/** Inbound messages since start: accepted, and dropped by reason. */
export interface FleetStats {
  accepted: number;
  /** Not JSON. */
  malformed: number;
  /** JSON that fails the VDA 5050 schema, or a topic that is not one. */
  invalid: number;
  /** manufacturer/serialNumber not in the robots table. */
  unknownRobot: number;
  /** Header names another robot than the topic. */
  spoofed: number;
  /** headerId not above the last applied one (a duplicated or late publish). */
  duplicate: number;
}

export interface FleetLogger {
  warn(data: Record<string, unknown>, message: string): void;
  info(data: Record<string, unknown>, message: string): void;
}

/**
 * Listeners are called in arrival order, after the robot_update events went out (the row write runs behind,
 * see gateway/row-writer.ts `commit`), and are not awaited: the gateway goes on with the robot's next message at once. A listener that does slow work (a database write) keeps its own
 * queue (as the job runner does); a rejected promise is logged.
 */
export type StateListener = (robot: FleetRobot, state: StateMessage) => void | Promise<void>;
export type StateEventListener = (event: StateEvent) => void | Promise<void>;
/** A robot came online (true) or went away (false); called once its row says so, not awaited. */
export type ConnectionListener = (robot: FleetRobot, online: boolean) => void | Promise<void>;

export interface Fleet {
  /** Publishes an order to the robot (header fields are filled in by the gateway). */
  sendOrder(robotId: string, order: Omit<OrderMessage, 'headerId' | 'timestamp' | 'version' | 'manufacturer' | 'serialNumber'>): Promise<void>;
  /** Publishes instant actions to the robot (header fields are filled in by the gateway). */
  sendInstantActions(
    robotId: string,
    actions: InstantActionsMessage['actions'],
  ): Promise<void>;
  /** Called with every accepted (valid, known robot, not duplicated) state message, raw (see StateListener). */
  onState(listener: StateListener): () => void;
  /** Called with every accepted state message as read by events.ts (see StateListener). */
  onStateEvent(listener: StateEventListener): () => void;
  /** Called when a robot comes online or goes away (see ConnectionListener). */
  onConnection(listener: ConnectionListener): () => void;
  /** Whether the robot's connection is ONLINE now. */
  isOnline(robotId: string): boolean;
  /** The gateway's view of the robot's link, or undefined when it has not heard of the robot since start. */
  link(robotId: string): RobotLink | undefined;
  /** The link of every robot the gateway knows since start (heard from, or ONLINE in its row), by robot id. */
  links(): Map<string, RobotLink>;
  /** Counts of accepted and dropped inbound messages. */
  stats(): FleetStats;
  /** Logins the embedded broker refused (0 with an external broker). */
  refusedLogins(): number;
  /** Password verifications (argon2) the embedded broker ran for logins (0 with an external broker). */
  passwordVerifications(): number;
  /** The broker's URL robots connect to (embedded or external). */
  brokerUrl: string;
  close(): Promise<void>;
}

export interface FleetDependencies {
  config: Config;
  database: Database;
  bus: EventBus;
  /** Where dropped messages are reported (rate-limited); the console when not given. */
  logger?: FleetLogger;
}
