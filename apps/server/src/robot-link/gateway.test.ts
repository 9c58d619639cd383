import { eq } from 'drizzle-orm';
import mqtt from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RobotList, RobotUpdate, vdaTopic, type SseFrame } from '@uvd/contracts';
import { robots } from '../db/schema.ts';
import { startTestServer, type TestServer } from '../testing/harness.ts';
import { connectRobotRow, createFloor, createRobotRow, type TestRobot } from '../testing/fleet-fixtures.ts';
import { openSse, type SseClient } from '../testing/live-fixtures.ts';
import { until } from '../testing/assertions.ts';

const STALE_MS = 1200;
const PING_INTERVAL_MS = 400;
const PING_TIMEOUT_MS = 300;

let server: TestServer;
const robotsToClose: TestRobot[] = [];
const streams: SseClient[] = [];

beforeAll(async () => {
  server = await startTestServer({
    fleet: { staleMs: STALE_MS, offlineMs: 60_000, pingIntervalMs: PING_INTERVAL_MS, pingTimeoutMs: PING_TIMEOUT_MS },
  });
});
afterAll(async () => {
  for (const robot of robotsToClose) await robot.close().catch(() => undefined);
  for (const stream of streams) stream.close();
  await server.close();
});


const rowOf = async (robotId: string) => {
  const [row] = await server.context.db.select().from(robots).where(eq(robots.id, robotId));
  if (!row) throw new Error('robot row missing');
  return row;
};

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** An admin's robot stream, a robot row and its connected test robot. */
async function setup(options: { answerPings?: boolean } = {}) {
  const orgId = await server.createOrg();
  const admin = await server.createUser(orgId, ['done-admin']);
  const row = await createRobotRow(server.context.db, orgId);
  const stream = await openSse(server.url, '/api/robot/stream', { token: admin.token, query: { robot_list: row.id } });
  streams.push(stream);
  const robot = await connectRobotRow(server.context.fleet.brokerUrl, row, options);
  robotsToClose.push(robot);
  return { orgId, admin, row, robot, stream };
}

const updatesOf = (stream: SseClient): RobotUpdate[] =>
  stream.frames.filter((frame) => frame.event === 'robot_update').map((frame) => RobotUpdate.parse(JSON.parse(frame.data)));

const isUpdate = (check: (update: RobotUpdate) => boolean) => (frame: SseFrame) =>
  frame.event === 'robot_update' && check(RobotUpdate.parse(JSON.parse(frame.data)));

describe('fleet gateway (embedded broker)', () => {
  it('turns a state into the robot row and one robot_update per changed field', async () => {
    const { orgId, row, robot, stream } = await setup();
    const floorId = await createFloor(server.context.db, orgId);
    await robot.publishState({
      batteryState: { batteryCharge: 57.3, charging: true },
      operatingMode: 'AUTOMATIC',
      driving: true,
      agvPosition: { x: 1.5, y: -2.25, theta: 0.5, mapId: floorId, positionInitialized: true },
      errors: [{ errorType: 'bumper', errorLevel: 'WARNING', errorDescription: 'touched' }],
    });
    const stored = await until(() => rowOf(row.id), (r) => r.mode === 2 && r.floorId === floorId);
    expect(stored).toMatchObject({
      battery: 57.3,
      chargingStatus: 1,
      mode: 2,
      status: 'driving',
      floorId,
      pose: { x: 1.5, y: -2.25, theta: 0.5 },
      connectionState: 'ONLINE',
      errors: [{ errorType: 'bumper', errorLevel: 'WARNING', errorDescription: 'touched' }],
    });
    expect(stored.lastSeenAt).not.toBeNull();

    await stream.waitFor(isUpdate((u) => u.field === 'pose'));
    const updates = updatesOf(stream);
    expect(updates).toContainEqual({ robot_id: row.id, field: 'battery', value: 57.3, charging_status: 1 });
    expect(updates).toContainEqual({ robot_id: row.id, field: 'mode', value: 2 });
    expect(updates).toContainEqual({ robot_id: row.id, field: 'status', value: 'driving' });
    expect(updates).toContainEqual({ robot_id: row.id, field: 'pose', value: { x: 1.5, y: -2.25, theta: 0.5, floor_id: floorId } });
    expect(updates.filter((u) => u.field === 'errors')).toHaveLength(1);
    // Telemetry is not recorded: no id, so a reconnecting client's Last-Event-ID is that of a recorded event.
    expect(stream.frames.filter((f) => f.event === 'robot_update').every((f) => f.id === undefined)).toBe(true);

    // The same state again changes nothing a client would see.
    const before = updatesOf(stream).filter((u) => u.field !== 'ping').length;
    await robot.publishState();
    await pause(300);
    expect(updatesOf(stream).filter((u) => u.field !== 'ping')).toHaveLength(before);
  });

  it('reports status disinfecting, paused and error from the state', async () => {
    const { row, robot } = await setup();
    await robot.publishState({
      actionStates: [{ actionId: 'disinfect-x-0', actionType: 'uvd_disinfect', actionStatus: 'RUNNING' }],
    });
    await until(() => rowOf(row.id), (r) => r.status === 'disinfecting');
    await robot.publishState({ paused: true });
    await until(() => rowOf(row.id), (r) => r.status === 'paused');
    await robot.publishState({ paused: false, actionStates: [], errors: [{ errorType: 'lamp', errorLevel: 'FATAL' }] });
    await until(() => rowOf(row.id), (r) => r.status === 'error');
  });

  it('drops malformed, invalid, spoofed and duplicated messages: nothing changes, each is counted', async () => {
    const { row, robot } = await setup();
    await robot.publishState({ batteryState: { batteryCharge: 50, charging: false } });
    await until(() => rowOf(row.id), (r) => r.battery === 50);
    const before = server.context.fleet.stats();
    const stateTopic = vdaTopic(row.manufacturer, row.serialNumber, 'state');

    await robot.publishRaw(stateTopic, '{"headerId": 99, "battery": ');
    await robot.publishRaw(stateTopic, JSON.stringify({ ...robot.state, headerId: 1000, batteryState: { batteryCharge: 'full' } }));
    await robot.publishRaw(
      stateTopic,
      JSON.stringify({ ...robot.state, headerId: 1001, serialNumber: 'someone-else', batteryState: { batteryCharge: 5, charging: false } }),
    );
    // An empty message clears a retained one: ignored, not counted.
    await robot.publishRaw(vdaTopic(row.manufacturer, row.serialNumber, 'connection'), '');
    // A duplicated publish: the headerId already applied.
    await robot.publishRaw(stateTopic, JSON.stringify({ ...robot.state, headerId: robot.state.headerId, batteryState: { batteryCharge: 9, charging: false } }));

    await until(
      async () => server.context.fleet.stats(),
      (s) => s.malformed > before.malformed && s.invalid > before.invalid && s.spoofed > before.spoofed && s.duplicate > before.duplicate,
    );
    const after = server.context.fleet.stats();
    expect(after.malformed - before.malformed).toBe(1);
    expect(after.invalid - before.invalid).toBe(1);
    expect(after.spoofed - before.spoofed).toBe(1);
    expect(after.duplicate - before.duplicate).toBe(1);
    expect((await rowOf(row.id)).battery).toBe(50);
    // The gateway is still working.
    await robot.publishState({ batteryState: { batteryCharge: 40, charging: false } });
    await until(() => rowOf(row.id), (r) => r.battery === 40);
  });

  it('refuses a wrong password and an anonymous login at the embedded broker', async () => {
    const orgId = await server.createOrg();
    const row = await createRobotRow(server.context.db, orgId);
    const refusedBefore = server.context.fleet.refusedLogins();
    await expect(connectRobotRow(server.context.fleet.brokerUrl, { ...row, password: 'wrong' })).rejects.toThrow();
    await expect(
      mqtt.connectAsync(server.context.fleet.brokerUrl, { reconnectPeriod: 0, connectTimeout: 3000 }),
    ).rejects.toThrow();
    expect(server.context.fleet.refusedLogins() - refusedBefore).toBe(2);
  });

  it("does not let a robot publish to another robot's topics or read its commands", async () => {
    const { row: victim, robot: victimRobot } = await setup();
    await victimRobot.publishState({ batteryState: { batteryCharge: 70, charging: false } });
    await until(() => rowOf(victim.id), (r) => r.battery === 70);

    const orgId = await server.createOrg();
    const intruderRow = await createRobotRow(server.context.db, orgId);
    const intruder = await mqtt.connectAsync(server.context.fleet.brokerUrl, {
      username: `${intruderRow.manufacturer}/${intruderRow.serialNumber}`,
      password: intruderRow.password,
      reconnectPeriod: 0,
    });
    // Refused subscriptions are answered with SUBACK 0x80, which the client reports as an error.
    await expect(intruder.subscribeAsync(vdaTopic(victim.manufacturer, victim.serialNumber, 'instantActions'))).rejects.toThrow();
    await expect(intruder.subscribeAsync('uagv/#')).rejects.toThrow();
    await intruder
      .publishAsync(
        vdaTopic(victim.manufacturer, victim.serialNumber, 'state'),
        JSON.stringify({ ...victimRobot.state, headerId: 10_000, batteryState: { batteryCharge: 1, charging: false } }),
      )
      .catch(() => undefined);
    await pause(400);
    expect((await rowOf(victim.id)).battery).toBe(70);
    await intruder.endAsync(true);
  });

  it('marks a robot whose connection drops offline (mode 0, signal -1) within 5 s, via its last will', async () => {
    const { row, robot, stream } = await setup();
    await robot.publishState({ operatingMode: 'AUTOMATIC' });
    await until(() => rowOf(row.id), (r) => r.mode === 2 && r.signal >= 0, 3000);
    expect(server.context.fleet.isOnline(row.id)).toBe(true);

    const droppedAt = Date.now();
    robot.drop();
    const offline = await until(() => rowOf(row.id), (r) => r.mode === 0, 5000);
    expect(Date.now() - droppedAt).toBeLessThan(5000);
    expect(offline).toMatchObject({ mode: 0, signal: -1, connectionState: 'CONNECTIONBROKEN' });
    expect(server.context.fleet.isOnline(row.id)).toBe(false);
    await stream.waitFor(isUpdate((u) => u.field === 'mode' && u.value === 0));
    await stream.waitFor(isUpdate((u) => u.field === 'ping' && u.timeout));

    // Back online: a new session starts its headerIds at 0 again and is accepted.
    const again = await connectRobotRow(server.context.fleet.brokerUrl, row);
    robotsToClose.push(again);
    await again.publishState({ operatingMode: 'AUTOMATIC', batteryState: { batteryCharge: 33, charging: false } });
    await until(() => rowOf(row.id), (r) => r.mode === 2 && r.battery === 33 && r.connectionState === 'ONLINE');
  });

  it('shows a robot silent for the stale interval as stale, and fresh again when it speaks', async () => {
    const { row, robot, stream, admin } = await setup({ answerPings: false });
    const listed = async () => {
      const response = await server.request('GET', '/api/admin/robot/admin/robot/robots', { token: admin.token });
      return RobotList.parse(response.body).payload.find((listedRobot) => listedRobot.robot_id === row.id);
    };
    await robot.publishState();
    await until(async () => server.context.fleet.link(row.id), (link) => link?.online === true);
    expect((await listed())?.stale).toBe(false);
    await stream.waitFor(isUpdate((u) => u.field === 'stale' && u.value), STALE_MS + 2000);
    expect(server.context.fleet.link(row.id)).toMatchObject({ online: true, stale: true });
    expect((await listed())?.stale).toBe(true);
    await robot.publishState();
    await stream.waitFor(isUpdate((u) => u.field === 'stale' && !u.value));
    expect(server.context.fleet.link(row.id)?.stale).toBe(false);
    expect((await listed())?.stale).toBe(false);
  });

  it('measures the signal as a ping round trip, and sets -1 when pings go unanswered', async () => {
    const answering = await setup();
    await answering.robot.publishState();
    await answering.robot.waitForInstantAction('uvd_ping', 3000);
    await answering.stream.waitFor(isUpdate((u) => u.field === 'ping' && !u.timeout && u.value >= 0), 3000);
    const pinged = await until(() => rowOf(answering.row.id), (r) => r.signal >= 0);
    expect(pinged.signal).toBeLessThan(PING_TIMEOUT_MS);

    // The link degrades: pings are no longer answered, though the robot is still connected.
    answering.robot.answerPings = false;
    await answering.stream.waitFor(isUpdate((u) => u.field === 'ping' && u.timeout && u.value === -1), 3000);
    await until(() => rowOf(answering.row.id), (r) => r.signal === -1);
    expect(server.context.fleet.isOnline(answering.row.id)).toBe(true);
  });

  it('calls onState listeners with accepted states only', async () => {
    const { row, robot } = await setup();
    const seen: number[] = [];
    const stop = server.context.fleet.onState((fleetRobot, state) => {
      if (fleetRobot.robotId === row.id) seen.push(state.headerId);
    });
    const first = await robot.publishState();
    await robot.publishRaw(vdaTopic(row.manufacturer, row.serialNumber, 'state'), JSON.stringify(first));
    await until(async () => seen, (s) => s.includes(first.headerId));
    await pause(200);
    stop();
    expect(seen.filter((id) => id === first.headerId)).toHaveLength(1);
  });
});

const mosquittoUp = await new Promise<boolean>((resolve) => {
  const probe = mqtt.connect('mqtt://127.0.0.1:1883', { reconnectPeriod: 0, connectTimeout: 1000 });
  probe.once('connect', () => {
    probe.end(true);
    resolve(true);
  });
  probe.once('error', () => {
    probe.end(true);
    resolve(false);
  });
});

describe.skipIf(!mosquittoUp)('fleet gateway (Mosquitto)', () => {
  let external: TestServer;
  beforeAll(async () => {
    external = await startTestServer({
      mqttUrl: 'mqtt://127.0.0.1:1883',
      fleet: { staleMs: STALE_MS, offlineMs: 60_000, pingIntervalMs: PING_INTERVAL_MS, pingTimeoutMs: PING_TIMEOUT_MS },
    });
  });
  afterAll(async () => {
    await external.close();
  });

  const rowIn = async (robotId: string) => {
    const [row] = await external.context.db.select().from(robots).where(eq(robots.id, robotId));
    if (!row) throw new Error('robot row missing');
    return row;
  };

  it('applies states, drops unknown robots, delivers commands, and marks a dropped robot offline within 5 s', async () => {
    expect(external.context.fleet.brokerUrl).toBe('mqtt://127.0.0.1:1883');
    const orgId = await external.createOrg();
    const row = await createRobotRow(external.context.db, orgId);
    const robot = await connectRobotRow(external.context.fleet.brokerUrl, row, { username: undefined, password: undefined });
    robotsToClose.push(robot);
    await robot.publishState({ batteryState: { batteryCharge: 64, charging: false } });
    await until(() => rowIn(row.id), (r) => r.battery === 64 && r.mode === 2);
    await until(() => rowIn(row.id), (r) => r.signal >= 0, 3000);

    const before = external.context.fleet.stats().unknownRobot;
    const stranger = await mqtt.connectAsync('mqtt://127.0.0.1:1883', { reconnectPeriod: 0 });
    await stranger.publishAsync(
      vdaTopic('nobody', `unknown-${row.serialNumber}`, 'state'),
      JSON.stringify({ ...robot.state, manufacturer: 'nobody', serialNumber: `unknown-${row.serialNumber}` }),
    );
    await until(async () => external.context.fleet.stats().unknownRobot, (n) => n > before);
    await stranger.endAsync(true);

    // A command reaches the robot through the external broker.
    const admin = await external.createUser(orgId, ['done-admin']);
    const response = await external.request('POST', `/api/command/${row.id}`, { token: admin.token, query: { command: 'home' } });
    expect(response.status).toBe(200);
    await robot.waitForInstantAction('uvd_go_home');

    const droppedAt = Date.now();
    robot.drop();
    await until(() => rowIn(row.id), (r) => r.mode === 0 && r.signal === -1, 5000);
    expect(Date.now() - droppedAt).toBeLessThan(5000);
  });
});
