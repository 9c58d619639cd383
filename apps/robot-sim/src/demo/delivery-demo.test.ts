/**
 * The logistics demo end to end against a real server (the server's in-process test harness, imported by path from
 * this test only): the demo fleet plays the organization's delivery robots as simulated delivery robots, the server
 * dispatches the demo's requests to them over MQTT, and the delivery activity loads them and hands them off, in the
 * console and at the robot, until deliveries are Delivered with their chain of custody. Only the robot rows' kind
 * and the people's groups are written to the database directly (as the seed and the admin screens would).
 */
import { eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeliveryDetail, DeliveryList, DeliveryStatus, listDeliveries } from '@uvd/contracts';
import { robots } from '../../../server/src/db/schema.ts';
import { waitUntil } from '../../../server/src/testing/execution-fixtures.ts';
import { startTestServer, type TestServer } from '../../../server/src/testing/harness.ts';
import { createSite } from '../../../server/src/testing/site-fixtures.ts';
import { ApiClient } from './api-client.ts';
import { DELIVERY_DEMO_NOTES, startDeliveryActivity, type DeliveryActivity } from './delivery-activity.ts';
import { startDemoFleet, type DemoFleet } from './demo-fleet.ts';

let server: TestServer;
const stops: (() => Promise<void>)[] = [];
const quiet = { warn: () => undefined, info: () => undefined };

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  for (const stop of stops.reverse()) await stop();
  await server.close();
});

describe('logistics demo (fleet, dispatcher and delivery activity)', () => {
  it('plays delivery robots as delivery robots and carries its requests to Delivered: loaded and handed off in the console and at the robot, a wrong PIN first', async () => {
    const { db } = server.context;
    const orgId = await server.createOrg('logistics');
    const ward = await server.createGroup(orgId);
    const site = await createSite(db, orgId, { roomsPerFloor: 4, robots: 3, groupIds: [ward] });
    const [uvId, ...deliveryIds] = site.robotIds;
    if (!uvId || deliveryIds.length !== 2) throw new Error('three robots');
    for (const [index, robotId] of deliveryIds.entries())
      await db.update(robots).set({ kind: 'delivery', home: { x: index * 10, y: -2, theta: 0 } }).where(eq(robots.id, robotId));
    await db.update(robots).set({ home: { x: 5, y: -2, theta: 0 } }).where(eq(robots.id, uvId));
    const admin = await server.createUser(orgId, ['done-admin']);
    const nurse = await server.createUser(orgId, ['done-teleoperator'], { groupIds: [ward] });
    const lab = await server.createUser(orgId, ['done-teleoperator'], { groupIds: [ward] });
    const client = (user: { username: string; password: string }) => new ApiClient(server.url, { organization: orgId, username: user.username, password: user.password });

    const fleet: DemoFleet = await startDemoFleet(client(admin), { timeFactor: 30 });
    stops.push(() => fleet.stop());
    // The UV robot gets jobs, the delivery robots deliveries, each played as its kind.
    expect(fleet.robotIds).toEqual([uvId]);
    expect(fleet.deliveryRobots.map((robot) => robot.robotId).sort()).toEqual([...deliveryIds].sort());
    expect(fleet.deliveryRobots.every((robot) => robot.panel !== undefined)).toBe(true);

    const activity: DeliveryActivity = startDeliveryActivity({
      admin: client(admin),
      people: [client(nurse), client(lab)],
      robots: fleet.deliveryRobots,
      intervalMs: 250,
      firstRoundMs: 0,
      maxOpen: 2,
      loadAfterMs: 300,
      handoffAfterMs: 300,
      atRobotEvery: 2,
      wrongPinEvery: 2,
      blockEvery: 0,
      logger: quiet,
    });
    stops.push(() => activity.stop());

    const api = client(admin);
    const delivered = await waitUntil(
      async () => {
        const list = await api.call(listDeliveries, DeliveryList, { query: { status: [String(DeliveryStatus.delivered)], limit: 50 } });
        return list.payload.length >= 3 ? list.payload : undefined;
      },
      90_000,
      'three demo deliveries Delivered',
    );
    await activity.stop();
    for (const delivery of delivered) {
      expect(delivery.notes).toBe(DELIVERY_DEMO_NOTES);
      expect(deliveryIds).toContain(delivery.robot_id);
      expect(delivery.pickup.room_id).not.toBe(delivery.dropoff.room_id);
    }
    const details = await Promise.all(
      delivered.map(async (delivery) => DeliveryDetail.parse((await server.request('GET', `/api/deliveries/${delivery.delivery_id}`, { token: admin.token })).body)),
    );
    const custody = details.flatMap((detail) => detail.custody);
    for (const detail of details) {
      const steps = detail.custody.map((step) => step.step);
      for (const step of ['requested', 'dispatched', 'loaded', 'departed', 'received', 'delivered']) expect(steps).toContain(step);
    }
    // Loaded by the sender in the console and with the button at the robot; PINs in the console and at the robot;
    // a wrong PIN first for every second hand-off.
    const loadedBy = new Set(custody.filter((step) => step.step === 'loaded').map((step) => step.detail));
    const receivedAt = new Set(custody.filter((step) => step.step === 'received').map((step) => step.detail));
    expect(loadedBy).toEqual(new Set(['console', 'robot']));
    expect(receivedAt).toEqual(new Set(['console', 'robot']));
    expect(custody.some((step) => step.step === 'handoff_failed')).toBe(true);
    // The people who requested them are the demo's, never the admin.
    const requesters = new Set(details.map((detail) => detail.requested_by.user_id));
    expect([...requesters].every((id) => id === nurse.id || id === lab.id)).toBe(true);
    const rows = await db.select({ id: robots.id, kind: robots.kind }).from(robots).where(inArray(robots.id, deliveryIds));
    expect(rows.every((row) => row.kind === 'delivery')).toBe(true);
  }, 120_000);
});
