/**
 * Fault test: the server is killed with SIGKILL while a delivery robot carries a loaded delivery, then started again
 * on the same PostgreSQL. The robot (on Mosquitto, in this process, as a real robot keeps running) drives on to the
 * drop-off meanwhile. What a user expects: the restarted server follows it, takes the PIN typed at the robot, and the
 * delivery ends Delivered with one order on the wire and each custody step once. PostgreSQL and Mosquitto only
 * (the test reads the database beside the server, which PGlite's one process does not allow); skipped otherwise.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { eq } from 'drizzle-orm';
import mqtt, { type MqttClient } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SimRobot } from '@uvd/robot-sim';
import { DeliveryStatus, OrderMessage } from '@uvd/contracts';
import type { Database } from '../../db/client.ts';
import { deliveries, deliveryCustody, deliveryItems, organizations, robots } from '../../db/schema.ts';
import { hashPin } from '../../deliveries/handoff.ts';
import { brokerAnswers, waitUntil } from '../../testing/execution-fixtures.ts';
import { createSite } from '../../testing/site-fixtures.ts';
import { createTestDatabase, testEngine, type TestDatabase } from '../../testing/test-database.ts';
import { builtServerArgs } from '../../testing/built-server.ts';

const MOSQUITTO = 'mqtt://127.0.0.1:1883';
const runnable = testEngine() === 'postgres' && (await brokerAnswers());

describe.skipIf(!runnable)('a server killed with SIGKILL while a delivery is in transit, and started again (PostgreSQL, Mosquitto)', () => {
  let scratch: TestDatabase;
  let database: Database;
  let sim: SimRobot;
  let observer: MqttClient;
  const orders = new Map<string, number>();
  const children: { child: ChildProcess; exited: Promise<unknown> }[] = [];
  const shareGroup = `uvd-gateway-crash-${randomBytes(4).toString('hex')}`;
  let deliveryId = '';

  const startServer = () => {
    const child = spawn(process.execPath, builtServerArgs('server.ts'), {
      env: {
        ...process.env,
        DATABASE_URL: scratch.url ?? '',
        PORT: '0',
        HOST: '127.0.0.1',
        MQTT_URL: MOSQUITTO,
        MQTT_SHARE_GROUP: shareGroup,
        SEED_DEMO: 'false',
        LOG_LEVEL: 'warn',
        DELIVERY_DISPATCH_POLL_MS: '200',
        LOAD_MAX_EVENT_LOOP_DELAY_MS: '0',
        LOAD_MAX_EVENT_LOOP_UTILIZATION: '0',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise((resolve) => child.on('exit', resolve));
    children.push({ child, exited });
    return { child, exited, output: () => output };
  };

  const delivery = async () => {
    const [row] = await database.db.select().from(deliveries).where(eq(deliveries.id, deliveryId));
    if (!row) throw new Error('delivery missing');
    return row;
  };
  const waitFor = (predicate: (row: Awaited<ReturnType<typeof delivery>>) => boolean, what: string, timeoutMs = 60_000) =>
    waitUntil(async () => {
      const row = await delivery();
      return predicate(row) ? row : undefined;
    }, timeoutMs, what);

  beforeAll(async () => {
    scratch = await createTestDatabase();
    database = scratch.database;
    const orgId = `crash-dlv-${randomBytes(3).toString('hex')}`;
    await database.db.insert(organizations).values({ id: orgId, name: orgId });
    const site = await createSite(database.db, orgId, { roomsPerFloor: 3, robots: 1 });
    const robotId = site.robotIds[0] ?? '';
    const [robot] = await database.db.update(robots).set({ kind: 'delivery', home: { x: 0, y: -2, theta: 0 } }).where(eq(robots.id, robotId)).returning();
    const [pickup, , dropoff] = site.floors[0]?.roomIds ?? [];
    if (!robot || !pickup || !dropoff) throw new Error('site incomplete');
    const [row] = await database.db
      .insert(deliveries)
      .values({ orgId, pickupRoomId: pickup, dropoffRoomId: dropoff, requestedByName: 'Ward 3', pinHash: await hashPin('9753') })
      .returning();
    if (!row) throw new Error('delivery not created');
    deliveryId = row.id;
    await database.db.insert(deliveryItems).values({ deliveryId, position: 0, description: 'Insulin', category: 'medication', quantity: 1 });
    await database.db.insert(deliveryCustody).values({ orgId, deliveryId, step: 'requested', at: row.createdAt, userName: 'Ward 3' });
    observer = mqtt.connect(MOSQUITTO);
    observer.on('message', (_topic, payload) => {
      const order = OrderMessage.safeParse(JSON.parse(payload.toString()));
      if (order.success) orders.set(order.data.orderId, (orders.get(order.data.orderId) ?? 0) + 1);
    });
    await observer.subscribeAsync(`uagv/v2/${robot.manufacturer}/${robot.serialNumber}/order`, { qos: 1 });
    // Slow enough (2 m of the 10 m way at 0.5 m/s × 2) to be caught on the way to the drop-off.
    sim = new SimRobot({
      brokerUrl: MOSQUITTO,
      manufacturer: robot.manufacturer,
      serialNumber: robot.serialNumber,
      kind: 'delivery',
      mapId: site.floors[0]?.id ?? '',
      home: { x: 0, y: -2, theta: 0 },
      timeFactor: 2,
      stateIntervalMs: 300,
      drawerOpenSeconds: 1,
    });
    await sim.start();
  });

  afterAll(async () => {
    await sim.stop();
    await observer.endAsync();
    for (const { child, exited } of children) {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    }
    await scratch.drop();
  });

  it('follows the robot that carried on, takes the PIN at the robot and ends Delivered once', async () => {
    const first = startServer();
    await waitFor((row) => row.status === DeliveryStatus.waiting && row.waitingFor === 'loading', 'Waiting at the pickup');
    expect(sim.confirmLoading()).toBe(true);
    await waitFor((row) => row.status === DeliveryStatus.inTransit && row.loadedAt !== null, 'In transit, loaded');
    first.child.kill('SIGKILL');
    await first.exited;
    // The robot drives on without the server and waits at the drop-off, drawer locked.
    await sim.waitForState((state) => state.actionStates.some((action) => action.actionType === 'drop' && action.actionStatus === 'RUNNING'), 30_000);

    const second = startServer();
    await waitFor((row) => row.status === DeliveryStatus.waiting && row.waitingFor === 'recipient', 'Waiting at the drop-off, seen by the restarted server');
    expect(sim.enterPin('9753')).not.toBeNull();
    const delivered = await waitFor((row) => row.status === DeliveryStatus.delivered, 'Delivered');
    expect(delivered.dispatchAttempts).toBe(1);
    expect(orders.get(deliveryId)).toBe(1);
    expect(sim.counters.ignoredOrders).toBe(0);
    const steps = (await database.db.select().from(deliveryCustody).where(eq(deliveryCustody.deliveryId, deliveryId))).map((step) => step.step);
    for (const once of ['requested', 'dispatched', 'loaded', 'departed', 'received', 'delivered']) expect(steps.filter((s) => s === once), once).toHaveLength(1);
    expect(steps.filter((s) => s === 'arrived')).toHaveLength(2);
    expect(second.output()).not.toMatch(/"level":(50|60)/);
    second.child.kill('SIGTERM');
    await second.exited;
  }, 180_000);
});
