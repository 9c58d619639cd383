import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConnectionMessage } from '@uvd/contracts';
import { startSimFleet } from './sim-fleet.ts';
import { FakeServer, startTestBroker } from './testing/test-broker.ts';
import type { TestBroker } from './testing/test-broker.ts';

const passwords = new Map<string, string>();
let broker: TestBroker;

beforeAll(async () => {
  broker = await startTestBroker({ passwords });
});
afterAll(async () => {
  await broker.close();
});

describe('startSimFleet', () => {
  it('connects every robot with its own login, reports the ones the broker refuses, and stops them cleanly', async () => {
    const mapId = randomUUID();
    const serials = ['a', 'b', 'c', 'd'].map((s) => `fleet-${s}-${randomUUID().slice(0, 6)}`);
    for (const serial of serials.slice(0, 3)) passwords.set(`uvd/${serial}`, `pw-${serial}`);
    passwords.set('fake-server', 'server');
    const watcher = await FakeServer.connect(broker.url, 'uvd', '+', { username: 'fake-server', password: 'server' });

    const fleet = await startSimFleet({
      brokerUrl: broker.url,
      timeFactor: 10,
      robots: serials.map((serialNumber, i) => ({
        manufacturer: 'uvd',
        serialNumber,
        password: i < 3 ? `pw-${serialNumber}` : 'wrong',
        mapId,
        home: { x: i, y: 0, theta: 0 },
      })),
    });
    expect(fleet.robots.map((r) => r.serialNumber)).toEqual(serials.slice(0, 3));
    expect(fleet.failed.map((f) => f.serialNumber)).toEqual([serials[3]]);
    for (const robot of fleet.robots) {
      const state = await robot.waitForState(() => true);
      expect(state.agvPosition?.mapId).toBe(mapId);
    }
    await fleet.stop();
    await watcher.waitFor('connection', () => watcher.messages.filter((m) => m.topic === 'connection' && ConnectionMessage.parse(m.json).connectionState === 'OFFLINE').length === 3);
    await watcher.close();
  });
});
