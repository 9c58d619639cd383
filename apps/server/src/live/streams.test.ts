/**
 * The declarations of live/streams.ts as a client sees them: which event types each stream carries, and to
 * whom. The robot stream carries telemetry (robot_update, no id) and command_undelivered (recorded, replayed);
 * events of the same bus streams meant for the server's own services (battery_low, job_started) are not sent.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMAND_UNDELIVERED_EVENT, CommandUndelivered } from '@uvd/contracts';
import { robotGroups } from '../db/schema.ts';
import { executionWorld, waitUntil } from '../testing/execution-fixtures.ts';
import { connectTestRobot, orderUnderWay, type TestRobot } from '../testing/fleet-fixtures.ts';
import { startTestServer, type TestServer } from '../testing/harness.ts';
import { openSse, type SseClient } from '../testing/live-fixtures.ts';
import { createSite } from '../testing/site-fixtures.ts';

let server: TestServer;
const clients: SseClient[] = [];

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  for (const client of clients) client.close();
  await server.close();
});

async function stream(path: string, options: Parameters<typeof openSse>[2]): Promise<SseClient> {
  const client = await openSse(server.url, path, options);
  clients.push(client);
  expect(client.status).toBe(200);
  return client;
}

const undelivered = (robotId: string, command: CommandUndelivered['command'] = 'pause'): CommandUndelivered => ({
  command_id: randomUUID(),
  robot_id: robotId,
  job_id: null,
  command,
  issued_at: new Date(Date.now() - 60_000).toISOString(),
  given_up_at: new Date().toISOString(),
  reason: 'unacknowledged',
});

const publishUndelivered = (orgId: string, payload: CommandUndelivered) =>
  server.context.bus.publish({ orgId, stream: 'robots', key: payload.robot_id, type: COMMAND_UNDELIVERED_EVENT, payload });

/** A telemetry update: the last frame a test waits for, after the events it expects not to see. */
const publishTelemetry = (orgId: string, robotId: string) => {
  server.context.bus.publishTransient({
    orgId,
    stream: 'robots',
    key: robotId,
    type: 'robot_update',
    payload: { robot_id: robotId, field: 'stale', value: false },
  });
};

describe('GET /robot/stream', () => {
  it('sends command_undelivered, with its event id, to whoever may see the robot, and not battery_low', async () => {
    const orgId = await server.createOrg();
    const groupId = await server.createGroup(orgId);
    const site = await createSite(server.context.db, orgId, { robots: 2 });
    const [mine, notMine] = site.robotIds;
    if (!mine || !notMine) throw new Error('site without robots');
    await server.context.db.insert(robotGroups).values({ robotId: mine, groupId });
    const admin = await server.createUser(orgId, ['done-admin']);
    const operator = await server.createUser(orgId, ['done-teleoperator'], { groupIds: [groupId] });
    const adminStream = await stream('/api/robot/stream', { token: admin.token });
    const operatorStream = await stream('/api/robot/stream', { token: operator.token });

    await server.context.bus.publish({
      orgId,
      stream: 'robots',
      key: mine,
      type: 'battery_low',
      payload: { robot_id: mine, battery: 19, charging_status: 0 },
    });
    const hidden = await publishUndelivered(orgId, undelivered(notMine, 'stop'));
    const shown = await publishUndelivered(orgId, undelivered(mine, 'pause'));

    const adminFrames = [await adminStream.nextEvent(), await adminStream.nextEvent()];
    expect(adminFrames.map((frame) => [frame.event, frame.id])).toEqual([
      [COMMAND_UNDELIVERED_EVENT, String(hidden.id)],
      [COMMAND_UNDELIVERED_EVENT, String(shown.id)],
    ]);
    const frame = await operatorStream.nextEvent();
    expect(frame.event).toBe(COMMAND_UNDELIVERED_EVENT);
    expect(frame.id).toBe(String(shown.id));
    expect(CommandUndelivered.parse(JSON.parse(frame.data))).toMatchObject({ robot_id: mine, command: 'pause' });
  });

  it('replays command_undelivered after Last-Event-ID, for the listed robots only', async () => {
    const orgId = await server.createOrg();
    const site = await createSite(server.context.db, orgId, { robots: 2 });
    const [listed, other] = site.robotIds;
    if (!listed || !other) throw new Error('site without robots');
    const admin = await server.createUser(orgId, ['done-admin']);
    const before = await publishUndelivered(orgId, undelivered(listed, 'home'));
    await publishUndelivered(orgId, undelivered(other, 'stop'));
    const missed = await publishUndelivered(orgId, undelivered(listed, 'resume'));

    const client = await stream('/api/robot/stream', {
      token: admin.token,
      query: { robot_list: listed },
      headers: { 'last-event-id': String(before.id) },
    });
    const replayed = await client.nextEvent();
    expect(replayed.id).toBe(String(missed.id));
    expect(CommandUndelivered.parse(JSON.parse(replayed.data))).toMatchObject({ robot_id: listed, command: 'resume' });
    publishTelemetry(orgId, listed);
    expect((await client.nextEvent()).event).toBe('robot_update');
  });
});

describe('GET /jobs/v2/jobs/stream', () => {
  it('carries job_change only: job_started and job_finished are for the notifications service', async () => {
    const orgId = await server.createOrg();
    const admin = await server.createUser(orgId, ['done-admin']);
    const jobId = randomUUID();
    const robotId = randomUUID();
    const client = await stream('/api/jobs/v2/jobs/stream', { token: admin.token });
    const payload = { job_id: jobId, robot_id: robotId, name: 'Ward 3', completion_status: null };
    await server.context.bus.publish({ orgId, stream: 'jobs', key: jobId, type: 'job_started', payload });
    const change = await server.context.bus.publish({ orgId, stream: 'jobs', key: jobId, type: 'job_change', payload });
    const frame = await client.nextEvent();
    expect([frame.event, frame.id]).toEqual(['job_change', String(change.id)]);
  });
});

describe('a command the robot never acknowledges', () => {
  let slow: TestServer;
  let robot: TestRobot | undefined;
  beforeAll(async () => {
    slow = await startTestServer({ commandResendMs: 200, commandGiveUpMs: 1500 });
  });
  afterAll(async () => {
    await robot?.close().catch(() => undefined);
    await slow.close();
  });

  it('reaches the teleoperator of the robot on the robot stream as command_undelivered, once', async () => {
    const w = await executionWorld(slow);
    robot = await connectTestRobot({
      brokerUrl: slow.context.fleet.brokerUrl,
      manufacturer: w.robot.manufacturer,
      serialNumber: w.robot.serialNumber,
      username: `${w.robot.manufacturer}/${w.robot.serialNumber}`,
      password: w.mqttPassword,
    });
    // At work, so a pause means something to it (an idle robot's pause is refused).
    await robot.publishState({ operatingMode: 'AUTOMATIC', ...orderUnderWay });
    await waitUntil(async () => (slow.context.fleet.link(w.robotId)?.mode === 2 ? true : undefined), 5000, 'the robot online and Autonomous');
    const live = await openSse(slow.url, '/api/robot/stream', { token: w.operator.token, query: { robot_list: w.robotId } });
    clients.push(live);
    expect(live.status).toBe(200);

    // The robot receives the pause (and its resends) but never reports it finished.
    const sent = await slow.request('POST', `/api/command/${w.robotId}`, { token: w.operator.token, query: { command: 'pause' } });
    expect(sent.status).toBe(200);
    const frame = await live.waitFor((candidate) => candidate.event === COMMAND_UNDELIVERED_EVENT, 8000);
    expect(frame.id).toMatch(/^\d+$/);
    expect(CommandUndelivered.parse(JSON.parse(frame.data))).toMatchObject({
      robot_id: w.robotId,
      job_id: null,
      command: 'pause',
      reason: 'unacknowledged',
    });
    await new Promise((resolve) => setTimeout(resolve, 800));
    expect(live.frames.filter((candidate) => candidate.event === COMMAND_UNDELIVERED_EVENT)).toHaveLength(1);
  });
});
