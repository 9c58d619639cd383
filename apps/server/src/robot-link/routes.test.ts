import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, DataFlag, CommandRefusal, RobotUpdate } from '@uvd/contracts';
import { startTestServer, type TestServer } from '../testing/harness.ts';
import { connectRobotRow, createRobotRow, orderUnderWay, type TestRobot } from '../testing/fleet-fixtures.ts';
import { openSse, type SseClient } from '../testing/live-fixtures.ts';
import { putRobotsInGroup } from '../testing/rooms-fixtures.ts';

let server: TestServer;
const robotsToClose: TestRobot[] = [];
const streams: SseClient[] = [];

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  for (const robot of robotsToClose) await robot.close().catch(() => undefined);
  for (const stream of streams) stream.close();
  await server.close();
});

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(check: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`Condition not met within ${timeoutMs} ms.`);
    await pause(20);
  }
}

/** An organization with an admin and a robot with an order under way, connected in `operatingMode`, known to the gateway. */
async function connectedRobot(operatingMode: 'AUTOMATIC' | 'MANUAL' | 'SEMIAUTOMATIC' = 'AUTOMATIC') {
  const orgId = await server.createOrg();
  const admin = await server.createUser(orgId, ['done-admin']);
  const row = await createRobotRow(server.context.db, orgId);
  const robot = await connectRobotRow(server.context.fleet.brokerUrl, row);
  robotsToClose.push(robot);
  await robot.publishState({ ...orderUnderWay, operatingMode });
  await until(() => server.context.fleet.link(row.id)?.online === true && server.context.fleet.link(row.id)?.mode === (operatingMode === 'AUTOMATIC' ? 2 : 1));
  return { orgId, admin, row, robot };
}

const command = (robotId: string, name: string, token: string | undefined, headers: Record<string, string> = {}) =>
  server.request('POST', `/api/command/${robotId}`, { token, query: { command: name }, headers });

describe('POST /command/{robot_id}', () => {
  it.each([
    ['play', 'stopPause'],
    ['resume', 'stopPause'],
    ['pause', 'startPause'],
    ['stop', 'cancelOrder'],
    ['home', 'uvd_go_home'],
  ])('sends %s to the robot as the instant action %s', async (name, actionType) => {
    const { admin, row, robot } = await connectedRobot();
    const response = await command(row.id, name, admin.token);
    expect(response.status).toBe(200);
    expect(DataFlag.parse(response.body)).toEqual({ data: true });
    const action = await robot.waitForInstantAction(actionType);
    expect(action.actionId).toContain(name);
  });

  it('lets a teleoperator command a robot of their groups', async () => {
    const { orgId, row, robot } = await connectedRobot();
    const groupId = await server.createGroup(orgId);
    await putRobotsInGroup(server.context.db, groupId, [row.id]);
    const operator = await server.createUser(orgId, ['done-teleoperator'], { groupIds: [groupId] });
    expect((await command(row.id, 'pause', operator.token)).status).toBe(200);
    await robot.waitForInstantAction('startPause');
  });

  it('refuses with 409 when the robot is offline, and sends nothing', async () => {
    const { admin, row, robot } = await connectedRobot();
    await robot.publishConnection('OFFLINE');
    await until(() => !server.context.fleet.isOnline(row.id));
    const response = await command(row.id, 'pause', admin.token);
    expect(response.status).toBe(409);
    expect(ApiError.parse(response.body)).toMatchObject({ error: CommandRefusal.robotOffline });
    expect(ApiError.parse(response.body).message).toMatch(/offline/);

    // A robot the gateway has never heard from is offline too.
    const silent = await createRobotRow(server.context.db, row.orgId);
    expect((await command(silent.id, 'pause', admin.token)).status).toBe(409);
    await pause(200);
    expect(robot.instantActions.filter((a) => a.actionType === 'startPause')).toHaveLength(0);
  });

  it('refuses with 409 when the robot is not in Autonomous mode', async () => {
    const { admin, row, robot } = await connectedRobot('MANUAL');
    const response = await command(row.id, 'home', admin.token);
    expect(response.status).toBe(409);
    expect(ApiError.parse(response.body)).toMatchObject({ error: CommandRefusal.robotNotAutonomous });
    await pause(200);
    expect(robot.instantActions.filter((a) => a.actionType === 'uvd_go_home')).toHaveLength(0);
  });

  it('answers a retried command (same Idempotency-Key) with the stored reply and sends it once', async () => {
    const { admin, row, robot } = await connectedRobot();
    const key = `retry-${row.id}`;
    const first = await command(row.id, 'stop', admin.token, { 'Idempotency-Key': key });
    const again = await Promise.all([
      command(row.id, 'stop', admin.token, { 'Idempotency-Key': key }),
      command(row.id, 'stop', admin.token, { 'Idempotency-Key': key }),
    ]);
    expect(first.status).toBe(200);
    for (const response of again) {
      expect(response.status).toBe(200);
      expect(DataFlag.parse(response.body)).toEqual({ data: true });
    }
    await robot.waitForInstantAction('cancelOrder');
    await pause(300);
    expect(robot.instantActions.filter((a) => a.actionType === 'cancelOrder')).toHaveLength(1);

    // Even once the robot is offline, the retry answers what the first call answered.
    await robot.publishConnection('OFFLINE');
    await until(() => !server.context.fleet.isOnline(row.id));
    expect((await command(row.id, 'stop', admin.token, { 'Idempotency-Key': key })).status).toBe(200);

    // The same key for another command is a client bug, not a retry.
    const reused = await command(row.id, 'pause', admin.token, { 'Idempotency-Key': key });
    expect(reused.status).toBe(409);
    expect(ApiError.parse(reused.body)).toMatchObject({ error: CommandRefusal.keyReused });
  });

  it('answers 400 naming the field for an unknown command, a malformed id or an empty key', async () => {
    const { admin, row } = await connectedRobot();
    const unknown = await command(row.id, 'dance', admin.token);
    expect(unknown.status).toBe(400);
    expect(ApiError.parse(unknown.body).message).toContain('command');
    const badId = await command('not-a-uuid', 'pause', admin.token);
    expect(badId.status).toBe(400);
    expect(ApiError.parse(badId.body).message).toContain('robot_id');
    const emptyKey = await command(row.id, 'pause', admin.token, { 'Idempotency-Key': ' ' });
    expect(emptyKey.status).toBe(400);
    expect(ApiError.parse(emptyKey.body).message).toContain('Idempotency-Key');
  });

  it('answers 401 without a token', async () => {
    const { row } = await connectedRobot();
    expect((await command(row.id, 'pause', undefined)).status).toBe(401);
  });

  it("answers 404 for another organization's robot and for a robot outside a teleoperator's groups", async () => {
    const { orgId, row, robot } = await connectedRobot();
    const otherOrg = await server.createOrg();
    const stranger = await server.createUser(otherOrg, ['done-admin']);
    const response = await command(row.id, 'pause', stranger.token);
    expect(response.status).toBe(404);
    expect(ApiError.parse(response.body).error).toBe('not_found');
    const operator = await server.createUser(orgId, ['done-teleoperator']);
    expect((await command(row.id, 'pause', operator.token)).status).toBe(404);
    await pause(200);
    expect(robot.instantActions.filter((a) => a.actionType === 'startPause')).toHaveLength(0);
  });
});

describe('GET /robot/stream', () => {
  const open = async (token: string | undefined, robotList?: string) => {
    const stream = await openSse(server.url, '/api/robot/stream', {
      token,
      ...(robotList === undefined ? {} : { query: { robot_list: robotList } }),
    });
    streams.push(stream);
    return stream;
  };
  const updatesOf = (stream: SseClient) =>
    stream.frames.filter((f) => f.event === 'robot_update').map((f) => RobotUpdate.parse(JSON.parse(f.data)));

  it('delivers robot_update events of the listed robots only', async () => {
    const { admin, row, robot } = await connectedRobot();
    const other = await createRobotRow(server.context.db, row.orgId);
    const otherRobot = await connectRobotRow(server.context.fleet.brokerUrl, other);
    robotsToClose.push(otherRobot);
    const stream = await open(admin.token, row.id);
    expect(stream.status).toBe(200);
    expect(stream.headers.get('content-type')).toContain('text/event-stream');
    await otherRobot.publishState({ batteryState: { batteryCharge: 11, charging: false } });
    await robot.publishState({ batteryState: { batteryCharge: 12, charging: true } });
    const frame = await stream.waitFor((f) => f.event === 'robot_update' && f.data.includes('"battery"'));
    expect(RobotUpdate.parse(JSON.parse(frame.data))).toEqual({ robot_id: row.id, field: 'battery', value: 12, charging_status: 1 });
    await pause(200);
    expect(updatesOf(stream).every((u) => u.robot_id === row.id)).toBe(true);
  });

  it("shows a teleoperator only their groups' robots, and nobody another organization's", async () => {
    const { orgId, row, robot } = await connectedRobot();
    const hidden = await createRobotRow(server.context.db, orgId);
    const hiddenRobot = await connectRobotRow(server.context.fleet.brokerUrl, hidden);
    robotsToClose.push(hiddenRobot);
    const groupId = await server.createGroup(orgId);
    await putRobotsInGroup(server.context.db, groupId, [row.id]);
    const operator = await server.createUser(orgId, ['done-teleoperator'], { groupIds: [groupId] });
    const otherOrg = await server.createOrg();
    const stranger = await server.createUser(otherOrg, ['done-admin']);

    const mine = await open(operator.token);
    const theirs = await open(stranger.token, row.id);
    await hiddenRobot.publishState({ batteryState: { batteryCharge: 21, charging: false } });
    await robot.publishState({ batteryState: { batteryCharge: 22, charging: false } });
    await mine.waitFor((f) => f.event === 'robot_update' && f.data.includes('"battery"'));
    await pause(300);
    expect(updatesOf(mine).every((u) => u.robot_id === row.id)).toBe(true);
    expect(updatesOf(theirs)).toHaveLength(0);
  });

  it('carries robot_update only, not the other events of the robots stream', async () => {
    const { admin, row, robot } = await connectedRobot();
    const stream = await open(admin.token, row.id);
    await server.context.bus.publish({
      orgId: row.orgId,
      stream: 'robots',
      key: row.id,
      type: 'battery_low',
      payload: { robot_id: row.id, battery: 15, charging_status: 0 },
    });
    await robot.publishState({ batteryState: { batteryCharge: 15, charging: false } });
    await stream.waitFor((f) => f.event === 'robot_update' && f.data.includes('"battery"'));
    await pause(200);
    expect(stream.frames.filter((f) => f.event === 'battery_low')).toHaveLength(0);
  });

  it('answers 400 for a malformed robot id and 401 without a token', async () => {
    const { admin } = await connectedRobot();
    const bad = await open(admin.token, 'not-a-uuid');
    expect(bad.status).toBe(400);
    expect(ApiError.parse(bad.error).message).toContain('robot_list');
    expect((await open(undefined)).status).toBe(401);
  });
});
