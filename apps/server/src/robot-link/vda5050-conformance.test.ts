/**
 * Every MQTT message the server and the simulator put on the wire during a whole job — orders, instant actions
 * (pause, resume), states, connection messages, the factsheet — validates against VDA 5050 2.0.0's own JSON
 * schemas (`vda5050-schemas/`, copied from the standard's repository, branch release/2.0.0; see its README).
 * The server runs against Mosquitto (the external-broker mode of MQTT_URL, with its shared subscriptions) so that
 * an observer may read every topic, which the embedded broker refuses by design; skipped where Mosquitto does not
 * answer on 127.0.0.1:1883 (MOSQUITTO_URL), as on a laptop without it.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import mqtt, { type MqttClient } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Action, InstantActionsMessage, Job, OrderMessage } from '@uvd/contracts';
import { SimRobot } from '@uvd/robot-sim';
import { parseVdaTopic } from './broker.ts';
import { until } from '../testing/assertions.ts';
import { z } from 'zod';
import { DeliveryStatus } from '@uvd/contracts';
import { lockDelivery } from '../deliveries/lifecycle.ts';
import { deliveryWorld, playDeliveryRobot, queueDelivery, waitForDelivery } from '../testing/delivery-fixtures.ts';
import { brokerAnswers, createJobFor, executionWorld, waitUntil, type ExecutionWorld } from '../testing/execution-fixtures.ts';
import { confirmLoadingOnRobot, pauseOrResumeOnRobot } from './deliveries/commands.ts';
import { startTestServer, type TestServer } from '../testing/harness.ts';

const SCHEMA_DIR = new URL('./vda5050-schemas/', import.meta.url);
const TOPICS = ['order', 'instantActions', 'state', 'connection', 'factsheet'] as const;
type Topic = (typeof TOPICS)[number];

const ajv = new Ajv2020({ allErrors: true, strict: false });
addFormats(ajv);
const validators = new Map<string, ValidateFunction>(
  readdirSync(SCHEMA_DIR)
    .filter((file) => file.endsWith('.schema'))
    .map((file): [string, ValidateFunction] => [
      file.replace('.schema', ''),
      ajv.compile(JSON.parse(readFileSync(new URL(file, SCHEMA_DIR), 'utf8')) as object),
    ]),
);

interface Seen {
  /** `{manufacturer}/{serialNumber}`: the shared broker also holds retained messages of other robots. */
  robot: string;
  topic: Topic;
  message: unknown;
}

const brokerUrl = process.env.MOSQUITTO_URL ?? 'mqtt://127.0.0.1:1883';
const { hostname, port } = new URL(brokerUrl);
const available = await brokerAnswers(hostname, Number(port || 1883));
let server: TestServer;
let observer: MqttClient;
const seen: Seen[] = [];

beforeAll(async () => {
  if (!available) return;
  observer = await mqtt.connectAsync(brokerUrl, { reconnectPeriod: 0 });
  observer.on('message', (topic, payload) => {
    const parsed = parseVdaTopic(topic);
    const name = TOPICS.find((known) => known === parsed?.name);
    if (!parsed || !name || payload.length === 0) return;
    seen.push({ robot: `${parsed.manufacturer}/${parsed.serialNumber}`, topic: name, message: JSON.parse(payload.toString('utf8')) as unknown });
  });
  await observer.subscribeAsync('uagv/v2/#');
  server = await startTestServer({ mqttUrl: brokerUrl, schedulerPollMs: 100, deliveryDispatchPollMs: 100 });
});
afterAll(async () => {
  if (!available) return;
  await observer.endAsync(true);
  await server.close();
});

/** The messages that fail their topic's schema, with the schema's complaint. */
const invalidOf = (messages: readonly Seen[]): string[] =>
  messages.flatMap(({ topic, message }) => {
    const validate = validators.get(topic);
    if (!validate) return [`no schema for ${topic}`];
    return validate(message) ? [] : [`${topic}: ${ajv.errorsText(validate.errors)}`];
  });

const FactsheetActions = z.object({ protocolFeatures: z.object({ agvActions: z.array(z.object({ actionType: z.string() })) }) });

/** Leaves no retained message of a test robot behind on the shared broker. */
async function clearRetained(world: ExecutionWorld | { robot: { manufacturer: string; serialNumber: string } }): Promise<void> {
  const prefix = `uagv/v2/${world.robot.manufacturer}/${world.robot.serialNumber}`;
  await observer.publishAsync(`${prefix}/connection`, '', { retain: true });
  await observer.publishAsync(`${prefix}/factsheet`, '', { retain: true });
}

// Side by side (concurrent): each test checks only its own robot's messages among those seen.
describe.skipIf(!available)('VDA 5050 2.0.0 JSON schemas', { concurrent: true }, () => {
  it('hold for every message of a whole job with a pause and a resume, from the server and the simulator', async () => {
    const world = await executionWorld(server, 2);
    const robot = new SimRobot({
      brokerUrl,
      manufacturer: world.robot.manufacturer,
      serialNumber: world.robot.serialNumber,
      mapId: world.floorId,
      home: { x: 0, y: -2, theta: 0 },
      timeFactor: 20,
      stateIntervalMs: 200,
      tickMs: 20,
    });
    await robot.start();
    try {
      await until(
        async () => (await server.request<{ payload: { robot_id: string; mode: number }[] }>('GET', '/api/robot/robot/robots', { token: world.admin.token })).body,
        (body) => body.payload.some((row) => row.robot_id === world.robotId && row.mode === 2),
      );
      const job = await createJobFor(server, world, { dose: 10 });
      const start = await server.request('POST', '/api/jobs/job/start', { token: world.admin.token, query: { job_id: job.job_id } });
      expect(start.status).toBe(200);
      await until(async () => seen.filter((entry) => entry.topic === 'order' && entry.robot.endsWith(`/${world.robot.serialNumber}`)).length, (orders) => orders > 0);
      for (const command of ['pause', 'resume']) {
        const response = await server.request('POST', `/api/command/job/${job.job_id}`, { token: world.admin.token, query: { command } });
        expect(response.status, `${command}: ${JSON.stringify(response.body)}`).toBe(200);
      }
      await until(
        async () => Job.parse((await server.request('GET', `/api/jobs/job/${job.job_id}`, { token: world.admin.token })).body),
        (current) => current.status === 'Completed',
        30_000,
      );
    } finally {
      await robot.stop();
      await clearRetained(world);
    }

    const ours = seen.filter((entry) => entry.robot === `${world.robot.manufacturer}/${world.robot.serialNumber}`);
    const counts = Object.fromEntries(TOPICS.map((topic) => [topic, ours.filter((entry) => entry.topic === topic).length]));
    // Every kind of message took part: a schema check of nothing would prove nothing.
    for (const topic of TOPICS) expect(counts[topic], `${topic} messages seen`).toBeGreaterThan(0);
    expect(counts.instantActions).toBeGreaterThanOrEqual(2);
    expect(invalidOf(ours)).toEqual([]);
  }, 60_000);

  it('hold for the order updates and the uvd_room_not_ready of rooms set not ready and ready again during a job', async () => {
    const world = await executionWorld(server, 2);
    const [room0, room1] = world.roomIds;
    if (!room0 || !room1) throw new Error('world without rooms');
    const robot = new SimRobot({
      brokerUrl,
      manufacturer: world.robot.manufacturer,
      serialNumber: world.robot.serialNumber,
      mapId: world.floorId,
      home: { x: 0, y: -2, theta: 0 },
      timeFactor: 20,
      stateIntervalMs: 200,
      tickMs: 20,
    });
    await robot.start();
    const setReady = async (roomId: string, ready: boolean) => {
      const response = await server.request('PATCH', '/api/rooms/room/ready', {
        token: world.admin.token,
        body: { rooms: [{ room_id: roomId, ready_for_disinfection: ready }] },
      });
      expect(response.status).toBe(200);
    };
    try {
      await until(
        async () => (await server.request<{ payload: { robot_id: string; mode: number }[] }>('GET', '/api/robot/robot/robots', { token: world.admin.token })).body,
        (body) => body.payload.some((row) => row.robot_id === world.robotId && row.mode === 2),
      );
      const job = await createJobFor(server, world, { dose: 50 });
      const start = await server.request('POST', '/api/jobs/job/start', { token: world.admin.token, query: { job_id: job.job_id } });
      expect(start.status).toBe(200);
      await robot.waitForState((state) => state.actionStates.some((action) => action.actionType === 'uvd_disinfect' && action.actionStatus === 'RUNNING'), 15_000);
      // Room 0 while its lamp is on (an update and the instant action), room 1 ahead not ready and ready again.
      await setReady(room0, false);
      await setReady(room1, false);
      await setReady(room1, true);
      const action = await until(
        async () => server.request('GET', '/api/action/action', { token: world.admin.token, query: { job_id: job.job_id } }),
        (response) => response.status === 200,
      );
      const confirm = await server.request('POST', '/api/action/action/confirm', {
        token: world.admin.token,
        body: { action_id: Action.parse(action.body).action_id, confirm: true },
      });
      expect(confirm.status).toBe(200);
      await until(
        async () => Job.parse((await server.request('GET', `/api/jobs/job/${job.job_id}`, { token: world.admin.token })).body),
        (current) => current.status === 'Completed',
        30_000,
      );
    } finally {
      await robot.stop();
      await clearRetained(world);
    }

    const ours = seen.filter((entry) => entry.robot === `${world.robot.manufacturer}/${world.robot.serialNumber}`);
    const updates = ours.flatMap((entry) => (entry.topic === 'order' ? [OrderMessage.parse(entry.message)] : [])).filter((order) => order.orderUpdateId > 0);
    expect(new Set(updates.map((order) => order.orderUpdateId))).toEqual(new Set([1, 2, 3]));
    const instant = ours.flatMap((entry) => (entry.topic === 'instantActions' ? InstantActionsMessage.parse(entry.message).actions : []));
    expect(instant.filter((action) => action.actionType === 'uvd_room_not_ready')).not.toEqual([]);
    expect(invalidOf(ours)).toEqual([]);
  }, 60_000);

  it('hold for every message of a whole delivery: the order with pick and drop, pause, resume, loading, a wrong and a right PIN at the robot, the delivery robot\'s states and factsheet', async () => {
    const world = await deliveryWorld(server, { robots: 1 });
    const [robot] = world.robots;
    const [pickup, , dropoff] = world.roomIds;
    if (!robot || !pickup || !dropoff) throw new Error('world incomplete');
    const sims: SimRobot[] = [];
    const identity = `${robot.manufacturer}/${robot.serialNumber}`;
    const inTx = async (deliveryId: string, change: Parameters<typeof withLocked>[1]) => {
      await withLocked(deliveryId, change);
      server.context.commands.wake();
    };
    const withLocked = (deliveryId: string, change: (tx: Parameters<Parameters<TestServer['context']['db']['transaction']>[0]>[0], row: NonNullable<Awaited<ReturnType<typeof lockDelivery>>>) => Promise<unknown>) =>
      server.context.db.transaction(async (tx) => {
        const row = await lockDelivery(tx, world.orgId, deliveryId);
        if (!row) throw new Error('delivery missing');
        await change(tx, row);
      });
    try {
      const sim = await playDeliveryRobot(server, world, robot, sims, { brokerUrl });
      const delivery = await queueDelivery(server, world.orgId, { pickupRoomId: pickup, dropoffRoomId: dropoff, pin: '2468' });
      await waitForDelivery(server, delivery.id, (row) => row.status === DeliveryStatus.waiting, 'Waiting at the pickup');
      await inTx(delivery.id, (tx, row) => pauseOrResumeOnRobot(server.context, tx, row, 'pause'));
      await waitForDelivery(server, delivery.id, (row) => row.status === DeliveryStatus.paused, 'Paused');
      await inTx(delivery.id, (tx, row) => pauseOrResumeOnRobot(server.context, tx, row, 'resume'));
      await waitForDelivery(server, delivery.id, (row) => row.status === DeliveryStatus.waiting, 'Waiting again');
      await inTx(delivery.id, (tx, row) => confirmLoadingOnRobot(server.context, tx, row));
      await waitForDelivery(server, delivery.id, (row) => row.status === DeliveryStatus.waiting && row.waitingFor === 'recipient', 'Waiting at the drop-off');
      sim.enterPin('1357');
      await waitUntil(async () => (sim.pinEntries.at(-1)?.answer ? true : undefined), 10_000, 'the wrong PIN answered');
      sim.enterPin('2468');
      await waitForDelivery(server, delivery.id, (row) => row.status === DeliveryStatus.delivered, 'Delivered');
      await sim.waitForState((state) => state.lastNodeId === 'home' && !state.driving, 10_000);
    } finally {
      await Promise.all(sims.map((sim) => sim.stop()));
      await clearRetained({ robot });
    }

    const ours = seen.filter((entry) => entry.robot === identity);
    const counts = Object.fromEntries(TOPICS.map((topic) => [topic, ours.filter((entry) => entry.topic === topic).length]));
    for (const topic of TOPICS) expect(counts[topic], `${topic} messages seen`).toBeGreaterThan(0);
    const [order] = ours.flatMap((entry) => (entry.topic === 'order' ? [OrderMessage.parse(entry.message)] : []));
    expect(order?.nodes.flatMap((node) => node.actions.map((action) => action.actionType))).toEqual(['pick', 'drop']);
    const instant = ours.flatMap((entry) => (entry.topic === 'instantActions' ? InstantActionsMessage.parse(entry.message).actions : []));
    // Besides the gateway's signal pings (uvd_ping), every command of a delivery took part.
    expect([...new Set(instant.map((action) => action.actionType))]).toEqual(
      expect.arrayContaining(['startPause', 'stopPause', 'uvd_loading_confirmed', 'uvd_handoff_refused', 'uvd_handoff_confirmed']),
    );
    const states = ours.filter((entry) => entry.topic === 'state').map((entry) => JSON.stringify(entry.message));
    for (const reported of ['uvd_drawer', 'uvd_handoff_pin']) expect(states.some((state) => state.includes(reported)), reported).toBe(true);
    const factsheet = ours.find((entry) => entry.topic === 'factsheet');
    const actions = FactsheetActions.parse(factsheet?.message).protocolFeatures.agvActions.map((action) => action.actionType);
    expect(actions).toEqual(expect.arrayContaining(['pick', 'drop', 'uvd_loading_confirmed', 'uvd_handoff_confirmed', 'uvd_handoff_refused']));
    expect(actions).not.toContain('uvd_disinfect');
    expect(invalidOf(ours)).toEqual([]);
  }, 60_000);
});
