/**
 * Two server processes on one PostgreSQL, both linked to Mosquitto, both dispatching every 20 ms: each delivery is
 * given to one robot once (one order on the wire, one custody step `dispatched`), and no robot gets two. Needs
 * TEST_DATABASE_URL and Mosquitto on 127.0.0.1:1883; skipped otherwise.
 */
import type { AddressInfo } from 'node:net';
import { and, eq, inArray, isNotNull } from 'drizzle-orm';
import mqtt from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SimRobot } from '@uvd/robot-sim';
import { OrderMessage } from '@uvd/contracts';
import { buildApp, type App } from '../../app.ts';
import { openDatabase, type Database } from '../../db/client.ts';
import { deliveries, deliveryCustody, robotCommands } from '../../db/schema.ts';
import { deliveryWorld, playDeliveryRobot, queueDelivery } from '../../testing/delivery-fixtures.ts';
import { brokerAnswers, waitUntil } from '../../testing/execution-fixtures.ts';
import { startTestServer, type TestServer } from '../../testing/harness.ts';
import { testEngine } from '../../testing/test-database.ts';

const MOSQUITTO = 'mqtt://127.0.0.1:1883';
const runnable = testEngine() === 'postgres' && (await brokerAnswers());

describe.skipIf(!runnable)('delivery dispatch with two server processes on one PostgreSQL (Mosquitto)', () => {
  let processA: TestServer;
  let databaseB: Database;
  let processB: App;
  const sims: SimRobot[] = [];
  const observer = mqtt.connect(MOSQUITTO);
  const orders = new Map<string, number>();

  beforeAll(async () => {
    processA = await startTestServer({ mqttUrl: MOSQUITTO, deliveryDispatchPollMs: 20 });
    const url = processA.testDatabase.url;
    if (!url) throw new Error('process A is not on PostgreSQL');
    databaseB = await openDatabase({ databaseUrl: url });
    processB = await buildApp({ config: processA.context.config, database: databaseB });
    await processB.app.listen({ port: 0, host: '127.0.0.1' });
    expect((processB.app.server.address() as AddressInfo).port).toBeGreaterThan(0);
    observer.on('message', (_topic, payload) => {
      const order = OrderMessage.safeParse(JSON.parse(payload.toString()));
      if (order.success) orders.set(order.data.orderId, (orders.get(order.data.orderId) ?? 0) + 1);
    });
    await observer.subscribeAsync('uagv/v2/+/+/order', { qos: 1 });
  });
  afterAll(async () => {
    await Promise.all(sims.map((sim) => sim.stop()));
    await observer.endAsync();
    await processB.app.close();
    await databaseB.close();
    await processA.close();
  });

  it('gives each delivery to one robot once, and no robot two', async () => {
    const world = await deliveryWorld(processA, { robots: 3 });
    for (const robot of world.robots) {
      await playDeliveryRobot(processA, world, robot, sims, { brokerUrl: MOSQUITTO, timeFactor: 1 });
      await waitUntil(async () => (processB.context.fleet.link(robot.id)?.mode === 2 ? true : undefined), 5000, 'the robot online in process B');
    }
    const [a, b] = world.roomIds;
    if (!a || !b) throw new Error('world incomplete');
    // Six requests at once (the bus wakes both dispatchers with each), for three robots.
    const queued = await Promise.all(Array.from({ length: 6 }, () => queueDelivery(processA, world.orgId, { pickupRoomId: a, dropoffRoomId: b })));
    const ids = queued.map((delivery) => delivery.id);
    const dispatched = await waitUntil(async () => {
      const rows = await processA.context.db
        .select({ id: deliveries.id, robotId: deliveries.robotId, attempts: deliveries.dispatchAttempts })
        .from(deliveries)
        .where(and(inArray(deliveries.id, ids), isNotNull(deliveries.robotId)));
      return rows.length === 3 ? rows : undefined;
    }, 10_000, 'three deliveries dispatched');
    // Give a second dispatch every chance to show up.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const after = await processA.context.db.select({ id: deliveries.id, robotId: deliveries.robotId }).from(deliveries).where(inArray(deliveries.id, ids));
    expect(after.filter((row) => row.robotId !== null)).toHaveLength(3);
    expect(new Set(dispatched.map((row) => row.robotId)).size).toBe(3);
    for (const row of dispatched) {
      expect(row.attempts).toBe(1);
      expect(orders.get(row.id)).toBe(1);
      const steps = await processA.context.db
        .select({ id: deliveryCustody.id })
        .from(deliveryCustody)
        .where(and(eq(deliveryCustody.deliveryId, row.id), eq(deliveryCustody.step, 'dispatched')));
      expect(steps).toHaveLength(1);
      const recorded = await processA.context.db
        .select({ id: robotCommands.id })
        .from(robotCommands)
        .where(and(eq(robotCommands.deliveryId, row.id), eq(robotCommands.kind, 'order')));
      expect(recorded).toHaveLength(1);
    }
    for (const id of ids.filter((id) => !dispatched.some((row) => row.id === id))) expect(orders.get(id)).toBeUndefined();
  });
});
