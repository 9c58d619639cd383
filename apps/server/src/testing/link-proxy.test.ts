/**
 * The link proxy over real MQTT: a robot-like mqtt.js client (with a last will) behind the proxy, an observer
 * connected to the broker directly. On a bare aedes broker, and on Mosquitto when it answers on 127.0.0.1:1883
 * (tests named "(Mosquitto)").
 */
import { randomBytes } from 'node:crypto';
import { createServer, type AddressInfo } from 'node:net';
import { Aedes } from 'aedes';
import mqtt, { type MqttClient } from 'mqtt';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SimRobot } from '@uvd/robot-sim';
import { vdaTopic } from '@uvd/contracts';
import { brokerAnswers, waitUntil } from './execution-fixtures.ts';
import { startLinkProxy, type LinkProxy } from './link-proxy.ts';

const mosquittoUp = await brokerAnswers();

interface Broker {
  url: string;
  close(): Promise<void>;
}

async function startAedes(): Promise<Broker> {
  const broker = await Aedes.createBroker();
  const server = createServer(broker.handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `mqtt://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      await new Promise<void>((resolve) => { broker.close(() => { resolve(); }); });
      await new Promise<void>((resolve) => server.close(() => { resolve(); }));
    },
  };
}

const brokers: { name: string; skip: boolean; start: () => Promise<Broker> }[] = [
  { name: 'aedes', skip: false, start: startAedes },
  { name: 'Mosquitto', skip: !mosquittoUp, start: () => Promise.resolve({ url: 'mqtt://127.0.0.1:1883', close: () => Promise.resolve() }) },
];

/** Resolves with the payload of the first message on `topic`, or undefined after `ms`. */
function nextMessage(client: MqttClient, topic: string, ms: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      client.off('message', onMessage);
      resolve(undefined);
    }, ms);
    const onMessage = (received: string, payload: Buffer) => {
      if (received !== topic) return;
      clearTimeout(timer);
      client.off('message', onMessage);
      resolve(payload.toString('utf8'));
    };
    client.on('message', onMessage);
  });
}

const once = (client: MqttClient, event: 'connect' | 'close') => new Promise<void>((resolve) => client.once(event, () => { resolve(); }));

for (const target of brokers) {
  describe.skipIf(target.skip)(`link proxy (${target.name})`, () => {
    let broker: Broker;
    let proxy: LinkProxy;
    let observer: MqttClient;
    const clients: MqttClient[] = [];
    const prefix = `link-proxy-test/${randomBytes(4).toString('hex')}`;

    beforeAll(async () => {
      broker = await target.start();
      observer = await mqtt.connectAsync(broker.url, { reconnectPeriod: 0 });
      await observer.subscribeAsync(`${prefix}/#`, { qos: 1 });
    });
    afterEach(async () => {
      for (const client of clients.splice(0)) await client.endAsync(true);
      await proxy.close();
    });
    afterAll(async () => {
      await observer.endAsync(true);
      await broker.close();
    });

    /** A robot behind a fresh proxy: last will on `{prefix}/{name}/will`, subscribed to `{prefix}/{name}/in`. */
    async function robotBehindProxy(name: string, keepaliveSeconds: number) {
      proxy = await startLinkProxy(broker.url);
      const robot = await mqtt.connectAsync(proxy.url, {
        clientId: `${name}-${randomBytes(4).toString('hex')}`,
        keepalive: keepaliveSeconds,
        reconnectPeriod: 200,
        connectTimeout: 2000,
        will: { topic: `${prefix}/${name}/will`, payload: Buffer.from('gone'), qos: 1, retain: false },
      });
      clients.push(robot);
      await robot.subscribeAsync(`${prefix}/${name}/in`, { qos: 0 });
      return robot;
    }

    it('pass: a publish from the robot arrives, and one to the robot reaches it', async () => {
      const robot = await robotBehindProxy('pass', 60);
      const arrived = nextMessage(observer, `${prefix}/pass/out`, 5000);
      await robot.publishAsync(`${prefix}/pass/out`, 'hello', { qos: 1 });
      expect(await arrived).toBe('hello');
      const received = nextMessage(robot, `${prefix}/pass/in`, 5000);
      await observer.publishAsync(`${prefix}/pass/in`, 'order', { qos: 0 });
      expect(await received).toBe('order');
    });

    it('cut: both sockets close, the broker publishes the last will at once (long before a 60 s keepalive), and the robot cannot reconnect until healed', async () => {
      const robot = await robotBehindProxy('cut', 60);
      const will = nextMessage(observer, `${prefix}/cut/will`, 5000);
      const closed = once(robot, 'close');
      proxy.cut();
      expect(await will).toBe('gone');
      await closed;
      expect(proxy.mode).toBe('cut');
      // The robot retries every 200 ms; each attempt is closed at once while the link is cut.
      const attempts = proxy.acceptedConnections;
      await new Promise((resolve) => setTimeout(resolve, 700));
      expect(proxy.acceptedConnections).toBeGreaterThan(attempts);
      expect(robot.connected).toBe(false);
      proxy.heal();
      await once(robot, 'connect');
      const arrived = nextMessage(observer, `${prefix}/cut/out`, 5000);
      await robot.publishAsync(`${prefix}/cut/out`, 'back', { qos: 1 });
      expect(await arrived).toBe('back');
    });

    it('stall: nothing passes either way and neither side is told (no close, no will); heal: the robot notices by its keepalive, reconnects and publishes again', async () => {
      const robot = await robotBehindProxy('stall', 1);
      let closes = 0;
      robot.on('close', () => (closes += 1));
      proxy.stall();
      const will = nextMessage(observer, `${prefix}/stall/will`, 600);
      const lost = nextMessage(observer, `${prefix}/stall/out`, 600);
      const lostIn = nextMessage(robot, `${prefix}/stall/in`, 600);
      // QoS 0: a QoS 1 publish would wait for a PUBACK that never comes.
      robot.publish(`${prefix}/stall/out`, 'lost', { qos: 0 });
      await observer.publishAsync(`${prefix}/stall/in`, 'lost too', { qos: 0 });
      expect(await lost).toBeUndefined();
      expect(await lostIn).toBeUndefined();
      expect(await will).toBeUndefined();
      expect(closes).toBe(0);
      expect(robot.connected).toBe(true);
      expect(proxy.openConnections).toBe(1);

      proxy.heal();
      // The stalled connection stays dead; the robot's keepalive (1 s: a PINGREQ unanswered) ends it and it reconnects.
      await once(robot, 'connect');
      expect(closes).toBe(1);
      expect(proxy.acceptedConnections).toBeGreaterThanOrEqual(2);
      const arrived = nextMessage(observer, `${prefix}/stall/out`, 5000);
      await robot.publishAsync(`${prefix}/stall/out`, 'again', { qos: 1 });
      expect(await arrived).toBe('again');
    });

    it('a SimRobot with a 1 s keepalive notices a stalled link by itself, and is back once healed', async () => {
      proxy = await startLinkProxy(broker.url);
      const serialNumber = `proxy-${randomBytes(4).toString('hex')}`;
      const stateTopic = vdaTopic('uvd-test', serialNumber, 'state');
      await observer.subscribeAsync(stateTopic, { qos: 0 });
      const sim = new SimRobot({
        brokerUrl: proxy.url,
        manufacturer: 'uvd-test',
        serialNumber,
        mapId: 'floor',
        home: { x: 0, y: 0, theta: 0 },
        stateIntervalMs: 100,
        keepalive: 1,
      });
      await sim.start();
      try {
        expect(await nextMessage(observer, stateTopic, 2000)).toBeDefined();
        proxy.stall();
        await waitUntil(async () => (sim.connected ? undefined : true), 5000, 'the robot to notice the dead link');
        proxy.heal();
        await waitUntil(async () => (sim.connected ? true : undefined), 5000, 'the robot to reconnect');
        expect(await nextMessage(observer, stateTopic, 2000)).toBeDefined();
      } finally {
        await sim.stop();
        await observer.unsubscribeAsync(stateTopic);
        // A shared broker (Mosquitto) would keep the robot's retained messages forever.
        for (const name of ['connection', 'factsheet'] as const) await observer.publishAsync(vdaTopic('uvd-test', serialNumber, name), '', { qos: 1, retain: true });
      }
    });
  });
}
