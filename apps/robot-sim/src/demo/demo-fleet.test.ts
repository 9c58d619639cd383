/**
 * The demo fleet against a real server (the server's in-process test harness, imported by path from this test
 * only): robots come from the admin robot list, passwords from the admin credentials call, nothing from the
 * database. The table is read only to check that the password changed.
 */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { robots } from '../../../server/src/db/schema.ts';
import { createFloor, createRobotRow } from '../../../server/src/testing/fleet-fixtures.ts';
import { waitUntil } from '../../../server/src/testing/execution-fixtures.ts';
import { startTestServer, type TestServer } from '../../../server/src/testing/harness.ts';
import { ApiClient } from './api-client.ts';
import { startDemoFleet } from './demo-fleet.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server.close();
});

describe('demo fleet (through the API)', () => {
  it("plays the organization's robots on their floors: each logs in with a fresh password from the admin API and comes online", async () => {
    const { db } = server.context;
    const orgId = await server.createOrg();
    const otherOrg = await server.createOrg();
    const admin = await server.createUser(orgId, ['done-admin']);
    const floorId = await createFloor(db, orgId);
    const onFloor = await createRobotRow(db, orgId);
    const homeless = await createRobotRow(db, orgId);
    const elsewhere = await createRobotRow(db, otherOrg);
    await db.update(robots).set({ floorId, home: { x: 2, y: 1, theta: 0 } }).where(eq(robots.id, onFloor.id));

    const [before] = await db.select({ hash: robots.mqttPasswordHash }).from(robots).where(eq(robots.id, onFloor.id));
    const api = new ApiClient(server.url, { organization: orgId, username: admin.username, password: admin.password });
    const fleet = await startDemoFleet(api, { timeFactor: 10 });
    try {
      expect(fleet.failed).toEqual([]);
      expect(fleet.robots.map((r) => r.serialNumber)).toEqual([onFloor.serialNumber]);
      expect(fleet.robotIds).toEqual([onFloor.id]);
      // The demo fleet replaced the fixture's password with one of its own, through the admin call.
      const [row] = await db.select({ hash: robots.mqttPasswordHash }).from(robots).where(eq(robots.id, onFloor.id));
      expect(row?.hash).toMatch(/^\$argon2id\$/);
      expect(row?.hash).not.toBe(before?.hash);
      await waitUntil(async () => (server.context.fleet.isOnline(onFloor.id) ? true : undefined), 10_000, 'the demo robot online');
      expect(server.context.fleet.isOnline(homeless.id)).toBe(false);
      expect(server.context.fleet.isOnline(elsewhere.id)).toBe(false);
      const state = await fleet.robots[0]?.waitForState(() => true);
      expect(state?.agvPosition).toMatchObject({ x: 2, y: 1, mapId: floorId });
    } finally {
      await fleet.stop();
    }
  });

  it('leaves the robots named in skipRobots alone: not played, and their MQTT password untouched', async () => {
    const { db } = server.context;
    const orgId = await server.createOrg();
    const admin = await server.createUser(orgId, ['done-admin']);
    const floorId = await createFloor(db, orgId);
    const played = await createRobotRow(db, orgId);
    const skipped = await createRobotRow(db, orgId);
    await db.update(robots).set({ floorId, home: { x: 1, y: 1, theta: 0 } }).where(eq(robots.id, played.id));
    await db.update(robots).set({ floorId, home: { x: 3, y: 1, theta: 0 } }).where(eq(robots.id, skipped.id));
    const [before] = await db.select({ hash: robots.mqttPasswordHash }).from(robots).where(eq(robots.id, skipped.id));

    const api = new ApiClient(server.url, { organization: orgId, username: admin.username, password: admin.password });
    const fleet = await startDemoFleet(api, { timeFactor: 10, skipRobots: [skipped.name] });
    try {
      expect(fleet.robots.map((r) => r.serialNumber)).toEqual([played.serialNumber]);
      expect(fleet.robotIds).toEqual([played.id]);
      // Whoever plays the skipped robot keeps the password it was given.
      const [after] = await db.select({ hash: robots.mqttPasswordHash }).from(robots).where(eq(robots.id, skipped.id));
      expect(after?.hash).toBe(before?.hash);
    } finally {
      await fleet.stop();
    }
  });
});
