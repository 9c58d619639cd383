/**
 * Two server processes on one PostgreSQL, both linked to Mosquitto, both polling for due jobs every 20 ms:
 * each scheduled job starts once (one order on the wire, one job_started event). Needs TEST_DATABASE_URL and
 * Mosquitto on 127.0.0.1:1883; skipped otherwise.
 */
import type { AddressInfo } from 'node:net';
import { and, eq, inArray } from 'drizzle-orm';
import mqtt from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SimRobot } from '@uvd/robot-sim';
import { OrderMessage } from '@uvd/contracts';
import { buildApp, type App } from '../app.ts';
import { openDatabase, type Database } from '../db/client.ts';
import { events, jobEvents, jobs } from '../db/schema.ts';
import { brokerAnswers, createJobFor, executionWorld, waitUntil, type ExecutionWorld } from '../testing/execution-fixtures.ts';
import { startTestServer, type TestServer } from '../testing/harness.ts';
import { testEngine } from '../testing/test-database.ts';

const MOSQUITTO = 'mqtt://127.0.0.1:1883';
const runnable = testEngine() === 'postgres' && (await brokerAnswers());

describe.skipIf(!runnable)('scheduled jobs with two server processes on one PostgreSQL (Mosquitto)', () => {
  let processA: TestServer;
  let databaseB: Database;
  let processB: App;
  const sims: SimRobot[] = [];
  const observer = mqtt.connect(MOSQUITTO);
  const orders = new Map<string, number>();

  beforeAll(async () => {
    processA = await startTestServer({ mqttUrl: MOSQUITTO, schedulerPollMs: 20 });
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

  async function robotOn(w: ExecutionWorld): Promise<void> {
    const sim = new SimRobot({
      brokerUrl: MOSQUITTO,
      manufacturer: w.robot.manufacturer,
      serialNumber: w.robot.serialNumber,
      mapId: w.floorId,
      home: { x: 0, y: -2, theta: 0 },
      timeFactor: 60,
      stateIntervalMs: 200,
      tickMs: 20,
    });
    sims.push(sim);
    await sim.start();
    for (const fleet of [processA.context.fleet, processB.context.fleet]) {
      await waitUntil(async () => (fleet.link(w.robotId)?.mode === 2 ? true : undefined), 5000, 'the robot online in both processes');
    }
  }

  it('starts each due job exactly once, at its time', async () => {
    const worlds = await Promise.all([0, 1, 2].map(() => executionWorld(processA)));
    for (const w of worlds) await robotOn(w);
    const created = await Promise.all(worlds.map((w) => createJobFor(processA, w)));
    const jobIds = created.map((job) => job.job_id);
    const startTime = new Date(Date.now() + 1000);
    await processA.context.db.update(jobs).set({ startTime }).where(inArray(jobs.id, jobIds));

    await waitUntil(async () => {
      const running = await processA.context.db
        .select({ id: jobs.id })
        .from(jobs)
        .where(and(inArray(jobs.id, jobIds), eq(jobs.status, 'Running')));
      return running.length === jobIds.length ? true : undefined;
    }, 5000, 'every job Running');
    const startedAt = await processA.context.db.select({ startedAt: jobs.startedAt }).from(jobs).where(inArray(jobs.id, jobIds));
    for (const row of startedAt) expect(row.startedAt?.getTime() ?? 0).toBeGreaterThanOrEqual(startTime.getTime());
    // Give a second, late start every chance to show up.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    for (const jobId of jobIds) expect(orders.get(jobId)).toBe(1);
    const started = await processA.context.db
      .select({ key: events.key })
      .from(events)
      .where(and(inArray(events.key, jobIds), eq(events.type, 'job_started')));
    expect(started.map((row) => row.key).sort()).toEqual([...jobIds].sort());
    // Each start is in its job's log as the scheduler's (no person), once.
    const starts = await processA.context.db
      .select({ jobId: jobEvents.jobId, actor: jobEvents.actor, details: jobEvents.details })
      .from(jobEvents)
      .where(and(inArray(jobEvents.jobId, jobIds), eq(jobEvents.kind, 'started')));
    expect(starts.map((row) => row.jobId).sort()).toEqual([...jobIds].sort());
    for (const row of starts) expect(row).toMatchObject({ actor: null, details: { cause: 'scheduler' } });
  });
});
