/**
 * Interoperability: an independent VDA 5050 2.0 implementation (vda-5050-lib's AgvController with its
 * VirtualAgvAdapter, the reference stack of the TNG "vda-5050" project) joins our embedded broker with a
 * robot's login, and the fleet sees it as one of its robots. Running a whole job with it is the execution
 * module's test; here: login, state, mode, pose, a command and going offline.
 */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgvController, VirtualAgvAdapter } from 'vda-5050-lib';
import { robots } from '../db/schema.ts';
import { startTestServer, type TestServer } from '../testing/harness.ts';
import { createFloor, createRobotRow } from '../testing/fleet-fixtures.ts';
import { until } from '../testing/assertions.ts';

let server: TestServer;
const controllers: AgvController[] = [];

beforeAll(async () => {
  server = await startTestServer({
    fleet: { staleMs: 30_000, offlineMs: 60_000, pingIntervalMs: 300, pingTimeoutMs: 2000 },
  });
});
afterAll(async () => {
  for (const controller of controllers) await controller.stop().catch(() => undefined);
  await server.close();
});

describe('vda-5050-lib robot (AgvController + VirtualAgvAdapter) on the embedded broker', () => {
  it('logs in, lands in the robots table, is read as idle (a pause refused), answers pings by stateRequest and goes offline when it stops', async () => {
    const orgId = await server.createOrg();
    const admin = await server.createUser(orgId, ['done-admin']);
    const floorId = await createFloor(server.context.db, orgId);
    const row = await createRobotRow(server.context.db, orgId);
    const controller = new AgvController(
      { manufacturer: row.manufacturer, serialNumber: row.serialNumber },
      {
        interfaceName: 'uagv',
        vdaVersion: '2.0.0',
        transport: {
          brokerUrl: server.context.fleet.brokerUrl,
          username: `${row.manufacturer}/${row.serialNumber}`,
          password: row.password,
        },
      },
      { agvAdapterType: VirtualAgvAdapter, publishStateInterval: 1000 },
      { initialPosition: { mapId: floorId, x: 2, y: 3, theta: 0, lastNodeId: 'home' }, initialBatteryCharge: 90 },
    );
    controllers.push(controller);
    await controller.start();

    const rowNow = async () => {
      const [found] = await server.context.db.select().from(robots).where(eq(robots.id, row.id));
      if (!found) throw new Error('robot row missing');
      return found;
    };
    const seen = await until(rowNow, (r) => r.connectionState === 'ONLINE' && r.floorId === floorId && r.battery > 0);
    expect(seen).toMatchObject({ mode: 2, floorId, pose: { x: 2, y: 3, theta: 0 }, status: 'idle' });
    expect(seen.battery).toBeGreaterThan(80);
    expect(server.context.fleet.stats().invalid).toBe(0);

    // Its state is read as it is: idle, with no work, so a pause would only stop it (issue #22) and is refused.
    const response = await server.request('POST', `/api/command/${row.id}`, { token: admin.token, query: { command: 'pause' } });
    expect(response.status).toBe(409);
    expect(response.body).toMatchObject({ error: 'robot_idle' });
    // It does not know uvd_ping: the gateway falls back to stateRequest, and its refusals are not robot errors.
    const pinged = await until(rowNow, (r) => r.status === 'idle' && r.signal >= 0);
    expect(pinged.errors).toEqual([]);

    await controller.stop();
    await until(rowNow, (r) => r.mode === 0 && r.signal === -1, 5000);
  });
});
