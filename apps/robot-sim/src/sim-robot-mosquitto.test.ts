import { randomUUID } from 'node:crypto';
import mqtt from 'mqtt';
import { describe, expect, it } from 'vitest';
import { ConnectionMessage } from '@uvd/contracts';
import { SimRobot } from './sim-robot.ts';
import { FakeServer, roomsOrder } from './testing/test-broker.ts';

const MOSQUITTO_URL = process.env.MOSQUITTO_URL ?? 'mqtt://127.0.0.1:1883';

async function answers(url: string): Promise<boolean> {
  try {
    const client = await mqtt.connectAsync(url, { connectTimeout: 1000, reconnectPeriod: 0 });
    await client.endAsync();
    return true;
  } catch {
    return false;
  }
}

const available = await answers(MOSQUITTO_URL);

describe.skipIf(!available)('SimRobot (Mosquitto)', () => {
  it('runs a 2-room order to completion and leaves its last will on an external broker', async () => {
    const serialNumber = `sim-${randomUUID().slice(0, 8)}`;
    const mapId = randomUUID();
    const home = { x: 0, y: 0, theta: 0 };
    const server = await FakeServer.connect(MOSQUITTO_URL, 'uvd', serialNumber);
    const robot = new SimRobot({ brokerUrl: MOSQUITTO_URL, manufacturer: 'uvd', serialNumber, mapId, home, timeFactor: 100, tickMs: 20 });
    await robot.start();
    try {
      const jobId = randomUUID();
      await server.sendOrder(
        roomsOrder(jobId, mapId, [
          { roomId: randomUUID(), x: 3, y: 0, dose: 30 },
          { roomId: randomUUID(), x: 3, y: 3, dose: 30 },
        ], home),
      );
      const done = await server.waitForState((s) => s.orderId === jobId && s.lastNodeId === 'home', 15_000);
      expect(done.actionStates.filter((a) => a.actionType === 'uvd_disinfect').map((a) => a.actionStatus)).toEqual(['FINISHED', 'FINISHED']);
      await robot.kill();
      const will = ConnectionMessage.parse(await server.waitFor('connection', (m) => ConnectionMessage.safeParse(m).data?.connectionState === 'CONNECTIONBROKEN'));
      expect(will.serialNumber).toBe(serialNumber);
    } finally {
      await robot.stop();
      // Leave no retained message of a test robot behind on the shared broker.
      await server.sendRaw('connection', '', true);
      await server.sendRaw('factsheet', '', true);
      await server.close();
    }
  });
});
