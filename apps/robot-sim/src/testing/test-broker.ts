/**
 * Test plumbing: an aedes broker on a free loopback port, and a raw MQTT client that plays the server's part,
 * so the simulator is tested on the real wire without the server.
 */
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { Aedes } from 'aedes';
import mqtt from 'mqtt';
import type { MqttClient } from 'mqtt';
import { StateMessage, VDA_VERSION, vdaTopic } from '@uvd/contracts';
import type { InstantActionsMessage, OrderMessage, VdaAction, VdaTopicName } from '@uvd/contracts';

export interface TestBroker {
  url: string;
  close(): Promise<void>;
}

/** With `passwords` (username → password), the broker refuses every other login, as the embedded broker does. */
export async function startTestBroker(options: { passwords?: Map<string, string> } = {}): Promise<TestBroker> {
  const { passwords } = options;
  const broker = await Aedes.createBroker(
    passwords
      ? {
          authenticate: (_client, username, password, callback) => {
            const ok = username !== undefined && password !== undefined && passwords.get(username) === password.toString('utf8');
            if (ok) callback(null, true);
            else callback(Object.assign(new Error('bad user name or password'), { returnCode: 4 as const }), false);
          },
        }
      : {},
  );
  const server = createServer(broker.handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `mqtt://127.0.0.1:${port}`,
    close: async () => {
      await new Promise<void>((resolve) => {
        broker.close(() => {
          resolve();
        });
      });
      await new Promise<void>((resolve) => server.close(() => {
        resolve();
      }));
    },
  };
}

export interface ReceivedMessage {
  /** The topic's last level: state, connection, factsheet… */
  topic: string;
  serialNumber: string;
  json: unknown;
  retain: boolean;
}

/** A raw MQTT client in the server's seat: sends orders and instant actions, records everything the robot says. */
export class FakeServer {
  readonly messages: ReceivedMessage[] = [];
  private headerId = 0;

  private constructor(
    private readonly client: MqttClient,
    private readonly manufacturer: string,
    private readonly serialNumber: string,
  ) {}

  /** `serialNumber` may be `+` to watch every robot of the manufacturer. */
  static async connect(
    url: string,
    manufacturer: string,
    serialNumber: string,
    login?: { username: string; password: string },
  ): Promise<FakeServer> {
    const client = await mqtt.connectAsync(url, { clientId: `server-${Math.random().toString(36).slice(2)}`, ...login });
    const server = new FakeServer(client, manufacturer, serialNumber);
    const prefix = vdaTopic(manufacturer, serialNumber, 'state').replace(/state$/, '');
    client.on('message', (topic, payload, packet) => {
      const levels = topic.split('/');
      server.messages.push({ topic: levels.at(-1) ?? '', serialNumber: levels.at(-2) ?? '', json: parseJson(payload), retain: packet.retain });
    });
    await client.subscribeAsync(`${prefix}#`, { qos: 1 });
    return server;
  }

  /** The robot's states so far, each validated against the VDA 5050 schema. */
  states(): StateMessage[] {
    return this.messages.filter((m) => m.topic === 'state').map((m) => StateMessage.parse(m.json));
  }

  async waitForState(predicate: (state: StateMessage) => boolean, timeoutMs = 10_000): Promise<StateMessage> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.states().find(predicate);
      if (found) return found;
      if (Date.now() > deadline) throw new Error(`no matching state within ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  async waitFor(topic: string, predicate: (json: unknown) => boolean, timeoutMs = 10_000): Promise<unknown> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.messages.find((m) => m.topic === topic && predicate(m.json));
      if (found) return found.json;
      if (Date.now() > deadline) throw new Error(`no matching ${topic} message within ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  async sendOrder(order: Pick<OrderMessage, 'orderId' | 'orderUpdateId' | 'nodes' | 'edges'>): Promise<void> {
    const message: OrderMessage = { ...this.header(), ...order };
    await this.client.publishAsync(vdaTopic(this.manufacturer, this.serialNumber, 'order'), JSON.stringify(message), { qos: 1 });
  }

  async sendInstantActions(actions: VdaAction[]): Promise<void> {
    const message: InstantActionsMessage = { ...this.header(), actions };
    await this.client.publishAsync(vdaTopic(this.manufacturer, this.serialNumber, 'instantActions'), JSON.stringify(message), { qos: 1 });
  }

  /** Publishes anything on one of the robot's topics; an empty retained payload clears a retained message. */
  async sendRaw(topic: VdaTopicName, payload: string, retain = false): Promise<void> {
    await this.client.publishAsync(vdaTopic(this.manufacturer, this.serialNumber, topic), payload, { qos: 1, retain });
  }

  async close(): Promise<void> {
    await this.client.endAsync();
  }

  private header() {
    return {
      headerId: this.headerId++,
      timestamp: new Date().toISOString(),
      version: VDA_VERSION,
      manufacturer: this.manufacturer,
      serialNumber: this.serialNumber,
    };
  }
}

/** Its own publishes come back on the wildcard subscription, malformed ones included. */
function parseJson(payload: Buffer): unknown {
  try {
    return JSON.parse(payload.toString('utf8'));
  } catch {
    return payload.toString('utf8');
  }
}

export interface TestRoom {
  roomId: string;
  x: number;
  y: number;
  dose: number;
  ready?: boolean;
}

/** An order in the fleet's convention (robot-link/README.md): a node per room entry point with uvd_disinfect, then home. */
export function roomsOrder(
  jobId: string,
  mapId: string,
  rooms: TestRoom[],
  home: { x: number; y: number; theta: number },
): Pick<OrderMessage, 'orderId' | 'orderUpdateId' | 'nodes' | 'edges'> {
  const nodes: OrderMessage['nodes'] = rooms.map((room, i) => ({
    nodeId: `room-${i + 1}-${room.roomId}`,
    sequenceId: i * 2,
    released: true,
    nodePosition: { x: room.x, y: room.y, mapId },
    actions: [
      {
        actionType: 'uvd_disinfect',
        actionId: `disinfect-${jobId}-${i + 1}`,
        blockingType: 'HARD',
        actionParameters: [
          { key: 'room_id', value: room.roomId },
          { key: 'dose', value: room.dose },
          { key: 'ready', value: room.ready ?? true },
        ],
      },
    ],
  }));
  nodes.push({ nodeId: 'home', sequenceId: rooms.length * 2, released: true, nodePosition: { ...home, mapId }, actions: [] });
  const edges: OrderMessage['edges'] = nodes.slice(1).map((node, i) => ({
    edgeId: `edge-${i}`,
    sequenceId: i * 2 + 1,
    released: true,
    startNodeId: nodes[i]?.nodeId ?? '',
    endNodeId: node.nodeId,
    actions: [],
  }));
  return { orderId: jobId, orderUpdateId: 0, nodes, edges };
}
