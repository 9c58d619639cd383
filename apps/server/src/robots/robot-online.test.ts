/**
 * A robot is online only once it speaks (a VDA 5050 state or connection ONLINE): a registered robot never
 * heard from, or not heard since the server started, is listed Offline with no signal, and its commands are
 * refused, whatever its row was seeded with.
 */
import type { AddressInfo } from 'node:net';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, CommandRefusal, RobotList, RobotSummary, RobotUpdate, type Robot, type SseFrame } from '@uvd/contracts';
import { buildApp, type App } from '../app.ts';
import { robots } from '../db/schema.ts';
import { expectStatus, until } from '../testing/assertions.ts';
import { connectRobotRow, createRobotRow, type TestRobot, type TestRobotRow } from '../testing/fleet-fixtures.ts';
import { startTestServer, type TestServer, type TestUser } from '../testing/harness.ts';
import { openSse, type SseClient } from '../testing/live-fixtures.ts';

const FLEET_TIMING = { staleMs: 30_000, offlineMs: 60_000, pingIntervalMs: 300, pingTimeoutMs: 2000 };

let server: TestServer;
const robotsToClose: TestRobot[] = [];
const streams: SseClient[] = [];

beforeAll(async () => {
  server = await startTestServer({ fleet: FLEET_TIMING });
});
afterAll(async () => {
  for (const stream of streams) stream.close();
  for (const robot of robotsToClose) await robot.close().catch(() => undefined);
  await server.close();
});


/** A robot registered as the demo seed does it: Autonomous, a battery and a signal, never connected. */
async function registeredRobot(orgId: string): Promise<TestRobotRow> {
  const row = await createRobotRow(server.context.db, orgId);
  await server.context.db.update(robots).set({ mode: 2, battery: 87, signal: 120 }).where(eq(robots.id, row.id));
  return row;
}

async function listed(baseUrl: string, admin: TestUser, robotId: string): Promise<Robot> {
  const response = await fetch(`${baseUrl}/api/robot/robot/robots?limit=200`, { headers: { authorization: `Bearer ${admin.token}` } });
  expect(response.status).toBe(200);
  const robot = RobotList.parse(await response.json()).payload.find((candidate) => candidate.robot_id === robotId);
  if (!robot) throw new Error(`robot ${robotId} not listed`);
  return robot;
}

const command = (baseUrl: string, admin: TestUser, robotId: string) =>
  fetch(`${baseUrl}/api/command/${robotId}?command=home`, { method: 'POST', headers: { authorization: `Bearer ${admin.token}` } });

describe('a robot is online only once it speaks', () => {
  it('lists a robot never heard from as Offline with no battery or signal, refuses its commands, and shows it live once it reports', async () => {
    const orgId = await server.createOrg();
    const admin = await server.createUser(orgId, ['done-admin']);
    const row = await registeredRobot(orgId);

    expect(await listed(server.url, admin, row.id)).toMatchObject({ mode: 0, battery: null, signal: null, last_seen: null });
    const summary = await server.request('GET', '/api/robot/robot/summary', { token: admin.token });
    expectStatus(summary, 200);
    expect(RobotSummary.parse(summary.body)).toMatchObject({ total: 1, by_mode: { offline: 1, autonomous: 0 }, low_battery: 0 });
    const refused = await command(server.url, admin, row.id);
    expect(refused.status).toBe(409);
    expect(ApiError.parse(await refused.json())).toMatchObject({ error: CommandRefusal.robotOffline });

    // A client that listed it so learns from the stream that it came to life: its mode and its battery.
    const stream = await openSse(server.url, '/api/robot/stream', { token: admin.token, query: { robot_list: row.id } });
    streams.push(stream);
    const robot = await connectRobotRow(server.context.fleet.brokerUrl, row);
    robotsToClose.push(robot);
    await robot.publishState({ batteryState: { batteryCharge: 87, charging: false }, operatingMode: 'AUTOMATIC' });
    const updateOf = (frame: SseFrame) => RobotUpdate.parse(JSON.parse(frame.data));
    const isUpdate = (field: string) => (frame: SseFrame) => frame.event === 'robot_update' && updateOf(frame).field === field;
    expect(updateOf(await stream.waitFor(isUpdate('mode')))).toEqual({ robot_id: row.id, field: 'mode', value: 2 });
    expect(updateOf(await stream.waitFor(isUpdate('battery')))).toEqual({ robot_id: row.id, field: 'battery', value: 87, charging_status: 0 });
    expect(updateOf(await stream.waitFor(isUpdate('ping')))).toMatchObject({ robot_id: row.id, field: 'ping', timeout: false });

    await robot.publishState({ batteryState: { batteryCharge: 64, charging: false } });
    const live = await until(
      () => listed(server.url, admin, row.id),
      (r) => r.mode === 2 && r.battery === 64 && r.signal !== null && r.signal >= 0,
    );
    expect(live.last_seen).not.toBeNull();
    expect((await command(server.url, admin, row.id)).status).toBe(200);
  });

  it('after a restart shows the last known battery but not online, until the robot speaks again', async () => {
    const first = await startTestServer({ fleet: FLEET_TIMING });
    let second: App | undefined;
    try {
      const orgId = await first.createOrg();
      const admin = await first.createUser(orgId, ['done-admin']);
      const row = await createRobotRow(first.context.db, orgId);
      const before = await connectRobotRow(first.context.fleet.brokerUrl, row);
      await before.publishState({ batteryState: { batteryCharge: 55, charging: false }, operatingMode: 'AUTOMATIC' });
      await until(() => listed(first.url, admin, row.id), (r) => r.mode === 2 && r.battery === 55);
      // The server stops while the robot is connected: its row still says ONLINE.
      await first.app.close();
      before.drop();
      await before.client.endAsync(true);

      second = await buildApp({ config: first.context.config, database: first.testDatabase.database });
      await second.app.listen({ port: 0, host: '127.0.0.1' });
      const url = `http://127.0.0.1:${(second.app.server.address() as AddressInfo).port}`;
      const shown = await listed(url, admin, row.id);
      expect(shown).toMatchObject({ mode: 0, battery: 55, signal: null });
      expect(shown.last_seen).not.toBeNull();
      const refused = await command(url, admin, row.id);
      expect(refused.status).toBe(409);
      expect(ApiError.parse(await refused.json())).toMatchObject({ error: CommandRefusal.robotOffline });

      const after = await connectRobotRow(second.context.fleet.brokerUrl, row);
      robotsToClose.push(after);
      await after.publishState({ batteryState: { batteryCharge: 54, charging: false }, operatingMode: 'AUTOMATIC' });
      await until(() => listed(url, admin, row.id), (r) => r.mode === 2 && r.battery === 54);
      expect((await command(url, admin, row.id)).status).toBe(200);
    } finally {
      await second?.app.close();
      await first.testDatabase.drop();
    }
  });
});
