/**
 * The fleet link: robots speaking VDA 5050 v2 over MQTT. This file fixes the interface the rest of the
 * server uses; the gateway behind it validates every inbound message and keeps the robots table current.
 */
import type { InstantActionsMessage, OrderMessage, StateMessage } from '@uvd/contracts';
import type { Config } from '../config.ts';
import type { Database } from '../db/client.ts';
import type { EventBus } from '../live/bus.ts';

/** A robot as the gateway knows it. */
export interface FleetRobot {
  robotId: string;
  orgId: string;
  manufacturer: string;
  serialNumber: string;
}

export type StateListener = (robot: FleetRobot, state: StateMessage) => void | Promise<void>;

export interface Fleet {
  /** Publishes an order to the robot (header fields are filled in by the gateway). */
  sendOrder(robotId: string, order: Omit<OrderMessage, 'headerId' | 'timestamp' | 'version' | 'manufacturer' | 'serialNumber'>): Promise<void>;
  /** Publishes instant actions to the robot (header fields are filled in by the gateway). */
  sendInstantActions(
    robotId: string,
    actions: InstantActionsMessage['actions'],
  ): Promise<void>;
  /** Called for every accepted (valid, known robot, not duplicated) state message, after the robot row is updated. */
  onState(listener: StateListener): () => void;
  /** Whether the robot's connection is ONLINE now. */
  isOnline(robotId: string): boolean;
  /** The broker's URL robots connect to (embedded or external). */
  brokerUrl: string;
  close(): Promise<void>;
}

export interface FleetDependencies {
  config: Config;
  database: Database;
  bus: EventBus;
}
