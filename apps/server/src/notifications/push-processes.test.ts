/**
 * Delivery you can trust: every device gets each push once with two server processes on one PostgreSQL, and
 * pushes pending when a server process is killed (kill -9, mid-request to the push service) go out after it
 * restarts. The push service is the local stand-in of a browser vendor's (testing/push-service.ts).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type App } from '../app.ts';
import { openDatabase, type Database } from '../db/client.ts';
import { openMigratedDataFolder } from '../testing/data-folder.ts';
import { deviceSubscriptions, organizations, pushDeliveries, pushEvents, users } from '../db/schema.ts';
import { waitUntil } from '../testing/execution-fixtures.ts';
import { startTestServer, type TestServer } from '../testing/harness.ts';
import { startLocalPushService, testPushConfig, type LocalPushService, type ReceivedPush } from '../testing/push-service.ts';
import { createSite } from '../testing/site-fixtures.ts';
import { createTestDatabase, testEngine } from '../testing/test-database.ts';
import { PUSH_CHANNEL } from './outbox.ts';
import { builtServerArgs } from '../testing/built-server.ts';

/** Each (device, push) pair that arrived more than once. */
const duplicates = (received: readonly ReceivedPush[]) => {
  const seen = new Map<string, number>();
  for (const push of received) {
    const key = `${push.subscriptionId} ${push.message.push_id}`;
    seen.set(key, (seen.get(key) ?? 0) + 1);
  }
  return [...seen].filter(([, count]) => count > 1);
};

describe.skipIf(testEngine() !== 'postgres')('two server processes on one PostgreSQL (needs TEST_DATABASE_URL)', () => {
  let pushService: LocalPushService;
  let processA: TestServer;
  let databaseB: Database;
  let processB: App;

  beforeAll(async () => {
    pushService = await startLocalPushService();
    processA = await startTestServer({ push: testPushConfig() });
    const url = processA.testDatabase.url;
    if (!url) throw new Error('process A is not on PostgreSQL');
    databaseB = await openDatabase({ databaseUrl: url });
    processB = await buildApp({ config: processA.context.config, database: databaseB });
    await processB.app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => {
    await processB.app.close();
    await databaseB.close();
    await processA.close();
    await pushService.close();
  });

  it('delivers every push once per device while both processes send', async () => {
    const orgId = await processA.createOrg();
    const site = await createSite(processA.context.db, orgId, { roomsPerFloor: 1, robots: 1 });
    const robotId = site.robotIds[0] ?? '';
    const admins = await Promise.all([0, 1, 2].map(() => processA.createUser(orgId, ['done-admin'])));
    const devices = [];
    for (const admin of admins) {
      for (let i = 0; i < 3; i += 1) {
        const device = pushService.subscribe();
        const { port } = processB.app.server.address() as AddressInfo;
        // Subscriptions through both processes' APIs.
        const response = await fetch(`http://127.0.0.1:${port}/api/subscribe`, {
          method: 'POST',
          headers: { authorization: `Bearer ${admin.token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ token: device.token, topic: i === 0 ? admin.id : orgId }),
        });
        expect(response.status).toBe(200);
        devices.push(device);
      }
    }
    const events = 12;
    for (let i = 0; i < events; i += 1) {
      const bus = i % 2 === 0 ? processA.context.bus : processB.context.bus;
      await bus.publish({ orgId, stream: 'robots', key: robotId, type: 'battery_low', payload: { robot_id: robotId, battery: 19 - i } });
    }
    const expected = events * devices.length;
    await pushService.waitFor((received) => received.filter((push) => push.message.realm === orgId).length >= expected, 30_000);
    // Give a duplicate the time to show up before judging.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const mine = pushService.received.filter((push) => push.message.realm === orgId);
    expect(mine).toHaveLength(expected);
    expect(duplicates(mine)).toEqual([]);
    const [counts] = await processA.context.db
      .select({ sent: sql<number>`count(*) FILTER (WHERE ${pushDeliveries.status} = 'sent')::int` })
      .from(pushDeliveries)
      .where(eq(pushDeliveries.orgId, orgId));
    expect(counts?.sent).toBe(expected);
  });
});


interface Child {
  process: ChildProcess;
  output: () => string;
  exited: Promise<unknown>;
}

describe(`a server process killed mid-delivery (${testEngine()})`, () => {
  let pushService: LocalPushService;
  let dataDir = '';
  let databaseUrl: string | undefined;
  const children: Child[] = [];

  beforeAll(async () => {
    pushService = await startLocalPushService();
    dataDir = mkdtempSync(join(tmpdir(), 'uvd-push-restart-'));
  });
  afterAll(async () => {
    for (const child of children) {
      child.process.kill('SIGKILL');
      await child.exited;
    }
    await pushService.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const startServer = (): Child => {
    const child = spawn(process.execPath, builtServerArgs('server.ts'), {
      env: {
        ...process.env,
        DATA_DIR: dataDir,
        DATABASE_URL: databaseUrl ?? '',
        PORT: '0',
        HOST: '127.0.0.1',
        MQTT_PORT: '0',
        SEED_DEMO: 'false',
        LOG_LEVEL: 'info',
        PUSH_ENDPOINT_HOSTS: '127.0.0.1',
        PUSH_SEND_TIMEOUT_SECONDS: '1',
        PUSH_RETRY_BASE_MS: '100',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise((resolve) => child.on('exit', resolve));
    const started = { process: child, output: () => output, exited };
    children.push(started);
    return started;
  };

  it('sends after the restart what was pending or in flight when it died, once per device', async () => {
    // The database as the server will find it: an organization, a robot, admins with devices, and three push
    // events in the outbox (as the bus's hook writes them).
    let database: Database;
    let drop: () => Promise<void> = async () => undefined;
    if (testEngine() === 'postgres') {
      const scratch = await createTestDatabase();
      database = scratch.database;
      databaseUrl = scratch.url;
      drop = () => scratch.drop();
    } else {
      database = await openMigratedDataFolder(dataDir);
    }
    const orgId = 'restart-org';
    await database.db.insert(organizations).values({ id: orgId, name: orgId, uvcDoses: [10], defaultDose: 10 });
    const site = await createSite(database.db, orgId, { roomsPerFloor: 1, robots: 1 });
    const robotId = site.robotIds[0] ?? '';
    const devices = [];
    for (let i = 0; i < 4; i += 1) {
      const [user] = await database.db
        .insert(users)
        .values({ orgId, username: `admin-${i}`, passwordHash: 'x', roles: ['done-admin'] })
        .returning({ id: users.id });
      const device = pushService.subscribe();
      await database.db.insert(deviceSubscriptions).values({ orgId, userId: user?.id ?? '', token: device.storedToken, topic: orgId });
      devices.push(device);
    }
    const now = new Date().toISOString();
    for (let i = 0; i < 3; i += 1) {
      await database.db.insert(pushEvents).values({
        orgId,
        kind: 'battery_low',
        dedupeKey: `battery_low:restart-${i}`,
        robotId,
        facts: { jobName: null, completionStatus: null, button: null, battery: 15 - i, occurredAt: now },
      });
    }
    await database.db.execute(sql`SELECT pg_notify(${PUSH_CHANNEL}, '')`);
    // PGlite is one process's: the server opens the folder itself.
    if (testEngine() === 'pglite') await database.close();

    // The push service hangs: the first server claims the deliveries and dies waiting for the answers.
    pushService.hold(true);
    const first = startServer();
    await waitUntil(async () => (pushService.held() >= 12 ? true : undefined), 45_000, 'the first server sending');
    first.process.kill('SIGKILL');
    await first.exited;
    expect(pushService.received).toEqual([]);
    pushService.hold(false);

    const second = startServer();
    await pushService.waitFor((received) => received.length >= 12, 45_000);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(pushService.received).toHaveLength(12);
    expect(duplicates(pushService.received)).toEqual([]);
    expect(new Set(pushService.received.map((push) => push.subscriptionId))).toEqual(new Set(devices.map((device) => device.id)));
    second.process.kill('SIGTERM');
    await second.exited;
    await drop();
    // Two server processes start one after the other (each a few seconds, more on busy shared cores).
  }, 120_000);
});
