/**
 * The gateway's one MQTT client: subscribes to every robot's state, connection and factsheet, and publishes
 * orders and instant actions with the VDA 5050 header filled in.
 */
import { randomBytes } from 'node:crypto';
import mqtt, { type MqttClient } from 'mqtt';
import { VDA_VERSION, vdaTopic, type InstantActionsMessage, type VdaTopicName } from '@uvd/contracts';
import type { Config } from '../../config.ts';
import { GATEWAY_CLIENT_ID_PREFIX, type EmbeddedBroker } from '../broker.ts';
import type { FleetLogger } from '../fleet.ts';
import type { Tracked } from './robot-cache.ts';

export interface GatewayClient {
  /** Publishes `body` on the robot's `topic`, with the header (its own headerId per topic kind). */
  publish: (tracked: Tracked, topic: VdaTopicName, body: Record<string, unknown>) => Promise<void>;
  publishInstantActions: (tracked: Tracked, actions: InstantActionsMessage['actions']) => Promise<void>;
  close: () => Promise<void>;
}

/**
 * Connects to `brokerUrl` and subscribes; settles once subscribed, or after 10 s when the broker does not answer
 * (an external broker that is down must not stop the server: the client keeps reconnecting).
 */
export async function connectGatewayClient(options: {
  brokerUrl: string;
  /** The embedded broker, when it is the one: its gateway login, and no shared subscriptions. */
  broker: EmbeddedBroker | undefined;
  config: Pick<Config, 'mqttShareGroup'>;
  log: FleetLogger;
  onMessage: (topic: string, payload: Buffer) => void;
}): Promise<GatewayClient> {
  const { brokerUrl, broker, config, log, onMessage } = options;
  const client: MqttClient = mqtt.connect(brokerUrl, {
    clientId: `${GATEWAY_CLIENT_ID_PREFIX}${randomBytes(6).toString('hex')}`,
    clean: true,
    // mqtt-packet (shared with the embedded broker) otherwise keeps a cache of 65 536 two-byte Buffers, one per
    // packet id: 6 MB of the JavaScript heap (a heap snapshot of the server, bench/README.md "bench:memory"). This
    // turns it off for the whole process; each id is then written into a new 2-byte Buffer.
    writeCache: false,
    reconnectPeriod: 1000,
    connectTimeout: 10_000,
    ...(broker ? broker.gatewayLogin : {}),
  });
  client.on('message', onMessage);
  client.on('error', (error) => { log.warn({ err: error }, 'fleet gateway MQTT error'); });
  client.on('offline', () => { log.warn({ brokerUrl }, 'fleet gateway lost the broker; reconnecting'); });
  // Several server processes share one external broker: a shared subscription hands each state to one of
  // them, so a state is applied, streamed and turned into job progress once, not once per process (the bus
  // carries the resulting robot_update events to the other processes' clients). Connection messages stay a
  // plain subscription: they are rare, and retained ones are not delivered to shared subscriptions.
  const shared = (topic: string) => (broker ? topic : `$share/${config.mqttShareGroup}/${topic}`);
  const subscriptions = {
    [shared(`uagv/v2/+/+/state`)]: { qos: 0 as const },
    [`uagv/v2/+/+/connection`]: { qos: 1 as const },
    [shared(`uagv/v2/+/+/factsheet`)]: { qos: 0 as const },
  };
  const subscribed = new Promise<void>((resolve) => {
    client.on('connect', () => {
      client
        .subscribeAsync(subscriptions)
        .then(() => { resolve(); })
        .catch((error: unknown) => { log.warn({ err: error }, 'fleet gateway could not subscribe'); });
    });
  });
  // An external broker that is down must not stop the server: the client keeps reconnecting.
  const startTimeout = new Promise<void>((resolve) => setTimeout(resolve, 10_000).unref());
  await Promise.race([subscribed, startTimeout]);

  const publish = async (tracked: Tracked, topic: VdaTopicName, body: Record<string, unknown>) => {
    const kind = topic === 'order' ? 'order' : 'instantActions';
    const header = {
      headerId: tracked.headerIds[kind]++,
      timestamp: new Date().toISOString(),
      version: VDA_VERSION,
      manufacturer: tracked.robot.manufacturer,
      serialNumber: tracked.robot.serialNumber,
    };
    await client.publishAsync(vdaTopic(tracked.robot.manufacturer, tracked.robot.serialNumber, topic), JSON.stringify({ ...header, ...body }), { qos: 0 });
  };

  /**
   * The VDA 5050 2.0 document and JSON schema name the list `actions`; implementations that followed the 2.0
   * draft (vda-5050-lib among them) require `instantActions`. Both are sent, so either kind of robot obeys.
   */
  const publishInstantActions = (tracked: Tracked, actions: InstantActionsMessage['actions']) =>
    publish(tracked, 'instantActions', { actions, instantActions: actions });

  return {
    publish,
    publishInstantActions,
    async close() {
      await client.endAsync(true);
    },
  };
}
