import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { robots, rooms } from '../db/schema.ts';
import { startRouteTestServer, type TestServer } from '../testing/harness.ts';
import { createSite } from '../testing/site-fixtures.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startRouteTestServer();
});
afterAll(async () => {
  await server.close();
});

describe('createSite', () => {
  it('makes floors with rooms and robots on the first floor', async () => {
    const orgId = await server.createOrg();
    const groupId = await server.createGroup(orgId);
    const site = await createSite(server.context.db, orgId, { floors: 2, roomsPerFloor: 2, robots: 3, groupIds: [groupId] });
    expect(site.floors).toHaveLength(2);
    expect(site.floors.every((floor) => floor.roomIds.length === 2)).toBe(true);
    expect(site.robotIds).toHaveLength(3);
    const robotRows = await server.context.db.select().from(robots).where(eq(robots.orgId, orgId));
    expect(robotRows.every((robot) => robot.floorId === site.floors[0]?.id)).toBe(true);
    const roomRows = await server.context.db.select().from(rooms).where(eq(rooms.floorId, site.floors[1]?.id ?? ''));
    expect(roomRows).toHaveLength(2);
  });
});
