import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RobotMqttCredentials } from '@uvd/contracts';
import { robots } from '../db/schema.ts';
import { expectStatus } from '../testing/assertions.ts';
import { createFloor, createRobotRow, mqttLogin } from '../testing/fleet-fixtures.ts';
import { startTestServer, type TestServer } from '../testing/harness.ts';
import { publicBrokerUrl } from './mqtt-credentials.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server.close();
});

const path = (robotId: string) => `/api/admin/robot/robots/${robotId}/mqtt_credentials`;

describe('POST /admin/robot/robots/{robotId}/mqtt_credentials', () => {
  it("gives an admin a fresh password once: the broker lets the robot in with it and no longer with the old one", async () => {
    const { db } = server.context;
    const orgId = await server.createOrg();
    const admin = await server.createUser(orgId, ['done-admin']);
    const floorId = await createFloor(db, orgId);
    const row = await createRobotRow(db, orgId);
    await db.update(robots).set({ floorId, home: { x: 3, y: 4, theta: 1 } }).where(eq(robots.id, row.id));
    const brokerUrl = server.context.fleet.brokerUrl;

    const response = await server.request('POST', path(row.id), { token: admin.token });
    expectStatus(response, 200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const credentials = RobotMqttCredentials.parse(response.body);
    expect(credentials).toMatchObject({
      robot_id: row.id,
      manufacturer: row.manufacturer,
      serial_number: row.serialNumber,
      username: `${row.manufacturer}/${row.serialNumber}`,
      broker_url: brokerUrl,
      floor_id: floorId,
      home: { x: 3, y: 4, theta: 1 },
    });
    expect(credentials.password.length).toBeGreaterThanOrEqual(32);

    const fresh = await mqttLogin(brokerUrl, { username: credentials.username, password: credentials.password });
    expect(fresh.connected).toBe(true);
    if (fresh.connected) fresh.client.end(true);
    const old = await mqttLogin(brokerUrl, { username: credentials.username, password: row.password });
    expect(old).toEqual({ connected: false, code: 4 });

    // Each call makes another one; the previous password stops working.
    const again = RobotMqttCredentials.parse((await server.request('POST', path(row.id), { token: admin.token })).body);
    expect(again.password).not.toBe(credentials.password);
    expect(await mqttLogin(brokerUrl, { username: credentials.username, password: credentials.password })).toEqual({ connected: false, code: 4 });
  });

  it("is an admin's call for robots of their own organization", async () => {
    const { db } = server.context;
    const orgId = await server.createOrg();
    const otherOrg = await server.createOrg();
    const teleoperator = await server.createUser(orgId, ['done-teleoperator']);
    const admin = await server.createUser(orgId, ['done-admin']);
    const mine = await createRobotRow(db, orgId);
    const theirs = await createRobotRow(db, otherOrg);
    const hashOf = async (id: string) => (await db.select({ hash: robots.mqttPasswordHash }).from(robots).where(eq(robots.id, id)))[0]?.hash;
    const before = await hashOf(theirs.id);

    expectStatus(await server.request('POST', path(mine.id), { token: teleoperator.token }), 403);
    expectStatus(await server.request('POST', path(mine.id)), 401);
    expectStatus(await server.request('POST', path(theirs.id), { token: admin.token }), 404);
    expectStatus(await server.request('POST', path(crypto.randomUUID()), { token: admin.token }), 404);
    expectStatus(await server.request('POST', path('not-an-id'), { token: admin.token }), 400);
    // The other organization's robot still logs in with its own password.
    expect(await hashOf(theirs.id)).toBe(before);
    const login = await mqttLogin(server.context.fleet.brokerUrl, { username: `${theirs.manufacturer}/${theirs.serialNumber}`, password: theirs.password });
    expect(login.connected).toBe(true);
    if (login.connected) login.client.end(true);
  });

  it('names the broker without the login the server itself uses', () => {
    expect(publicBrokerUrl('mqtt://server:secret@broker.example:1883')).toBe('mqtt://broker.example:1883');
    expect(publicBrokerUrl('mqtts://broker.example:8883/')).toBe('mqtts://broker.example:8883');
    expect(publicBrokerUrl('')).toBeNull();
  });
});
