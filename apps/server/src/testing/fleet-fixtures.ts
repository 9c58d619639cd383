/**
 * Fleet test fixtures: robot rows with an MQTT login, a floor to stand on, and a minimal VDA 5050 robot over
 * raw MQTT (state, connection with a last will, answers to pings) for the gateway's tests.
 */
import { randomBytes } from 'node:crypto';
import { createConnection } from 'node:net';
import mqtt, { MqttClient } from 'mqtt';
import {
  InstantActionsMessage,
  OrderMessage,
  UvdActionType,
  VDA_VERSION,
  vdaTopic,
  type ActionState,
  type ConnectionState,
  type StateMessage,
  type VdaAction,
} from '@uvd/contracts';
import type { Executor } from '../db/client.ts';
import { buildings, floors, robots } from '../db/schema.ts';
import { hashPassword } from '../identity/passwords.ts';

const unique = () => randomBytes(4).toString('hex');

export interface TestRobotRow {
  id: string;
  orgId: string;
  name: string;
  manufacturer: string;
  serialNumber: string;
  password: string;
}

/** A robot of `orgId` that may log in to the embedded broker with `password`. */
export async function createRobotRow(db: Executor, orgId: string, name = `robot-${unique()}`): Promise<TestRobotRow> {
  const serialNumber = `sn-${unique()}${unique()}`;
  const manufacturer = 'uvd-test';
  const password = `mqtt-${unique()}${unique()}`;
  const [row] = await db
    .insert(robots)
    .values({ orgId, name, manufacturer, serialNumber, mqttPasswordHash: await hashPassword(password) })
    .returning({ id: robots.id });
  if (!row) throw new Error('robot not created');
  return { id: row.id, orgId, name, manufacturer, serialNumber, password };
}

/** A building with one floor; returns the floor id (the VDA 5050 mapId of positions on it). */
export async function createFloor(db: Executor, orgId: string): Promise<string> {
  const [building] = await db.insert(buildings).values({ orgId, name: `building-${unique()}` }).returning({ id: buildings.id });
  if (!building) throw new Error('building not created');
  const [floor] = await db.insert(floors).values({ orgId, buildingId: building.id, name: 'floor 1' }).returning({ id: floors.id });
  if (!floor) throw new Error('floor not created');
  return floor.id;
}

export interface TestRobotOptions {
  brokerUrl: string;
  manufacturer: string;
  serialNumber: string;
  /** Login; omitted for an anonymous external broker. */
  username?: string;
  password?: string;
  /** Report pings FINISHED in an immediate state (default true). */
  answerPings?: boolean;
  /** Publish connection ONLINE at once (default true). */
  announce?: boolean;
}

export interface TestRobot {
  client: MqttClient;
  /** Every instant action received, in order. */
  instantActions: VdaAction[];
  orders: OrderMessage[];
  /** Whether pings are answered now (a robot whose link degrades stops answering). */
  answerPings: boolean;
  /** The state last published; `publishState` starts from it. */
  state: StateMessage;
  publishState(changes?: Partial<StateMessage>): Promise<StateMessage>;
  publishConnection(connectionState: ConnectionState): Promise<void>;
  /** Publishes bytes as they are, on any topic. */
  publishRaw(topic: string, payload: string): Promise<void>;
  waitForInstantAction(actionType: string, timeoutMs?: number): Promise<VdaAction>;
  /** Cuts the TCP connection without DISCONNECT: the broker publishes the last will. */
  drop(): void;
  close(): Promise<void>;
}

export function baseState(manufacturer: string, serialNumber: string): StateMessage {
  return {
    headerId: 0,
    timestamp: new Date().toISOString(),
    version: VDA_VERSION,
    manufacturer,
    serialNumber,
    orderId: '',
    orderUpdateId: 0,
    lastNodeId: '',
    lastNodeSequenceId: 0,
    nodeStates: [],
    edgeStates: [],
    driving: false,
    paused: false,
    actionStates: [],
    batteryState: { batteryCharge: 80, charging: false },
    operatingMode: 'AUTOMATIC',
    errors: [],
    safetyState: { eStop: 'NONE', fieldViolation: false },
  };
}

/**
 * A robot with an order under way (a node left to reach): a robot pause or stop means something to it (a robot
 * with no work refuses them, robot-link/commands.ts `checkMeaningful`).
 */
export const orderUnderWay: Partial<StateMessage> = {
  orderId: 'order-under-way',
  nodeStates: [{ nodeId: 'node-1', sequenceId: 2, released: true }],
};

export async function connectTestRobot(options: TestRobotOptions): Promise<TestRobot> {
  const { manufacturer, serialNumber } = options;
  let connectionHeaderId = 0;
  let stateHeaderId = 0;
  const connectionMessage = (connectionState: ConnectionState) =>
    JSON.stringify({
      headerId: connectionHeaderId++,
      timestamp: new Date().toISOString(),
      version: VDA_VERSION,
      manufacturer,
      serialNumber,
      connectionState,
    });
  const client = await mqtt.connectAsync(options.brokerUrl, {
    clientId: `robot-${serialNumber}-${unique()}`,
    reconnectPeriod: 0,
    connectTimeout: 5000,
    ...(options.username === undefined ? {} : { username: options.username }),
    ...(options.password === undefined ? {} : { password: options.password }),
    will: {
      topic: vdaTopic(manufacturer, serialNumber, 'connection'),
      payload: Buffer.from(connectionMessage('CONNECTIONBROKEN')),
      qos: 1,
      retain: true,
    },
  });
  const instantActions: VdaAction[] = [];
  const orders: OrderMessage[] = [];
  const waiters = new Set<() => void>();
  const pendingPings: ActionState[] = [];

  const robot: TestRobot = {
    client,
    instantActions,
    orders,
    answerPings: options.answerPings !== false,
    state: baseState(manufacturer, serialNumber),
    async publishState(changes = {}) {
      const actionStates = [...(changes.actionStates ?? robot.state.actionStates), ...pendingPings.splice(0)];
      const state: StateMessage = {
        ...robot.state,
        ...changes,
        actionStates,
        headerId: changes.headerId ?? stateHeaderId++,
        timestamp: new Date().toISOString(),
      };
      robot.state = { ...state, actionStates: state.actionStates.filter((action) => action.actionType !== UvdActionType.ping) };
      await client.publishAsync(vdaTopic(manufacturer, serialNumber, 'state'), JSON.stringify(state));
      return state;
    },
    async publishConnection(connectionState) {
      await client.publishAsync(vdaTopic(manufacturer, serialNumber, 'connection'), connectionMessage(connectionState), {
        qos: 1,
        retain: true,
      });
    },
    async publishRaw(topic, payload) {
      await client.publishAsync(topic, payload);
    },
    waitForInstantAction: (actionType, timeoutMs = 5000) =>
      new Promise((resolve, reject) => {
        const check = () => {
          const found = instantActions.find((action) => action.actionType === actionType);
          if (!found) return;
          done();
          resolve(found);
        };
        const timer = setTimeout(() => {
          done();
          reject(new Error(`No ${actionType} within ${timeoutMs} ms.`));
        }, timeoutMs);
        const done = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      }),
    drop() {
      client.stream.destroy();
    },
    async close() {
      // A shared broker (Mosquitto) would otherwise keep this robot's retained connection message forever.
      if (client.connected) {
        await client.publishAsync(vdaTopic(manufacturer, serialNumber, 'connection'), '', { qos: 1, retain: true }).catch(() => undefined);
      }
      await client.endAsync(true);
    },
  };

  client.on('message', (topic, payload) => {
    const value: unknown = JSON.parse(payload.toString('utf8'));
    if (topic.endsWith('/order')) {
      orders.push(OrderMessage.parse(value));
    } else {
      const message = InstantActionsMessage.parse(value);
      instantActions.push(...message.actions);
      const pings = message.actions.filter((action) => action.actionType === UvdActionType.ping);
      if (pings.length > 0 && robot.answerPings) {
        pendingPings.push(
          ...pings.map((ping): ActionState => ({ actionId: ping.actionId, actionType: ping.actionType, actionStatus: 'FINISHED' })),
        );
        robot.publishState().catch(() => undefined);
      }
    }
    for (const waiter of [...waiters]) waiter();
  });
  await client.subscribeAsync([vdaTopic(manufacturer, serialNumber, 'order'), vdaTopic(manufacturer, serialNumber, 'instantActions')], { qos: 0 });
  if (options.announce !== false) await robot.publishConnection('ONLINE');
  return robot;
}

/** Test robot logged in to a server's embedded broker with the row's credentials. */
export const connectRobotRow = (brokerUrl: string, row: TestRobotRow, options: Partial<TestRobotOptions> = {}) =>
  connectTestRobot({
    brokerUrl,
    manufacturer: row.manufacturer,
    serialNumber: row.serialNumber,
    username: `${row.manufacturer}/${row.serialNumber}`,
    password: row.password,
    ...options,
  });

export type LoginOutcome = { connected: true; client: MqttClient } | { connected: false; code: number | undefined };

export interface LoginOptions {
  username?: string;
  password?: string;
  clientId?: string;
  /** The source address, any of 127.0.0.0/8 on loopback: the broker tells clients apart by it. */
  localAddress?: string;
}

/**
 * One MQTT login, without retries: the broker's CONNACK return code when it refuses (2 identifier rejected,
 * 3 server unavailable, 4 bad user name or password, 5 not authorized), or the connected client.
 */
export function mqttLogin(brokerUrl: string, options: LoginOptions): Promise<LoginOutcome> {
  const { hostname, port } = new URL(brokerUrl);
  const client = new MqttClient(
    () => createConnection({ host: hostname.replace(/^\[|\]$/g, ''), port: Number(port), localAddress: options.localAddress }),
    {
      clientId: options.clientId ?? `login-${unique()}`,
      reconnectPeriod: 0,
      connectTimeout: 30_000,
      ...(options.username === undefined ? {} : { username: options.username }),
      ...(options.password === undefined ? {} : { password: options.password }),
    },
  );
  return new Promise((resolve) => {
    client.once('connect', () => { resolve({ connected: true, client }); });
    client.once('error', (error) => {
      const code = 'code' in error && typeof error.code === 'number' ? error.code : undefined;
      client.end(true);
      resolve({ connected: false, code });
    });
    client.once('close', () => {
      if (!client.connected) resolve({ connected: false, code: undefined });
    });
  });
}
