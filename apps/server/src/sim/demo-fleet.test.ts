import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { robots } from '../db/schema.ts';
import { createFloor, createRobotRow } from '../testing/fleet-fixtures.ts';
import { waitUntil } from '../testing/execution-fixtures.ts';
import { startTestServer } from '../testing/harness.ts';
import type { TestServer } from '../testing/harness.ts';
import { startDemoFleet } from './demo-fleet.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server.close();
});

describe('demo fleet', () => {
  it("plays the organization's robots on their floors: each logs in with a fresh password and comes online", async () => {
    const { db } = server.context;
    const orgId = await server.createOrg();
    const floorId = await createFloor(db, orgId);
    const onFloor = await createRobotRow(db, orgId);
    const homeless = await createRobotRow(db, orgId);
    await db.update(robots).set({ floorId, home: { x: 2, y: 1, theta: 0 } }).where(eq(robots.id, onFloor.id));

    const [before] = await db.select({ hash: robots.mqttPasswordHash }).from(robots).where(eq(robots.id, onFloor.id));
    const fleet = await startDemoFleet(server.context, { timeFactor: 10, orgId });
    try {
      expect(fleet.failed).toEqual([]);
      expect(fleet.robots.map((r) => r.serialNumber)).toEqual([onFloor.serialNumber]);
      // The demo fleet replaced the fixture's password with its own.
      const [row] = await db.select({ hash: robots.mqttPasswordHash }).from(robots).where(eq(robots.id, onFloor.id));
      expect(row?.hash).toMatch(/^\$argon2id\$/);
      expect(row?.hash).not.toBe(before?.hash);
      await waitUntil(async () => (server.context.fleet.isOnline(onFloor.id) ? true : undefined), 10_000, 'the demo robot online');
      expect(server.context.fleet.isOnline(homeless.id)).toBe(false);
      const state = await fleet.robots[0]?.waitForState(() => true);
      expect(state?.agvPosition).toMatchObject({ x: 2, y: 1, mapId: floorId });
    } finally {
      await fleet.stop();
    }
  });
});
