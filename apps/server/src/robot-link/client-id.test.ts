/**
 * An MQTT client id belongs to the login that holds it: MQTT lets a new connection with a client id take over
 * (and close) the one holding it, so without this rule any robot could knock another, or the gateway, off.
 */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { robots } from '../db/schema.ts';
import { connectRobotRow, createRobotRow, mqttLogin, type LoginOutcome, type TestRobot, type TestRobotRow } from '../testing/fleet-fixtures.ts';
import { startTestServer, type TestServer } from '../testing/harness.ts';
import { GATEWAY_CLIENT_ID_PREFIX } from './broker.ts';
import { until } from '../testing/assertions.ts';

let server: TestServer;
const robotsToClose: TestRobot[] = [];
const logins: LoginOutcome[] = [];

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  for (const robot of robotsToClose) await robot.close().catch(() => undefined);
  for (const login of logins) if (login.connected) await login.client.endAsync(true);
  await server.close();
});


const batteryOf = async (robotId: string) => {
  const [row] = await server.context.db.select({ battery: robots.battery }).from(robots).where(eq(robots.id, robotId));
  return row?.battery;
};

/** 'connected', or the CONNACK return code of a refusal (2: identifier rejected). */
const answerOf = (outcome: LoginOutcome) => (outcome.connected ? 'connected' : `refused ${String(outcome.code)}`);

const loginOf = (row: TestRobotRow) => ({ username: `${row.manufacturer}/${row.serialNumber}`, password: row.password });

describe('MQTT client ids are bound to their login', () => {
  it("refuses robot B with robot A's client id (identifier rejected), and A stays connected", async () => {
    const orgId = await server.createOrg();
    const [rowA, rowB] = await Promise.all([createRobotRow(server.context.db, orgId), createRobotRow(server.context.db, orgId)]);
    const brokerUrl = server.context.fleet.brokerUrl;
    const robotA = await connectRobotRow(brokerUrl, rowA);
    robotsToClose.push(robotA);
    const clientIdA = robotA.client.options.clientId;
    if (!clientIdA) throw new Error('robot A has no client id');
    let closedA = false;
    robotA.client.on('close', () => { closedA = true; });

    const intruder = await mqttLogin(brokerUrl, { ...loginOf(rowB), clientId: clientIdA });
    logins.push(intruder);
    expect(answerOf(intruder)).toBe('refused 2');

    // A was not knocked off: it is connected and its states still reach the gateway.
    await robotA.publishState({ batteryState: { batteryCharge: 42, charging: false } });
    await until(() => batteryOf(rowA.id), (battery) => battery === 42);
    expect(closedA).toBe(false);
    expect(robotA.client.connected).toBe(true);

    // B logs in with a client id of its own, and A itself may reconnect under its id (a half-open link).
    const own = await mqttLogin(brokerUrl, loginOf(rowB));
    logins.push(own);
    expect(own.connected).toBe(true);
    const again = await mqttLogin(brokerUrl, { ...loginOf(rowA), clientId: clientIdA });
    logins.push(again);
    expect(again.connected).toBe(true);
  });

  it("does not let a robot take the gateway's client id", async () => {
    const orgId = await server.createOrg();
    const row = await createRobotRow(server.context.db, orgId);
    const robot = await connectRobotRow(server.context.fleet.brokerUrl, row);
    robotsToClose.push(robot);
    const intruder = await mqttLogin(server.context.fleet.brokerUrl, { ...loginOf(row), clientId: `${GATEWAY_CLIENT_ID_PREFIX}0` });
    logins.push(intruder);
    expect(answerOf(intruder)).toBe('refused 2');
    // The gateway still hears the robots.
    await robot.publishState({ batteryState: { batteryCharge: 33, charging: false } });
    await until(() => batteryOf(row.id), (battery) => battery === 33);
  });
});
