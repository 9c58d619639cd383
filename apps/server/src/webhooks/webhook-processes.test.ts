/**
 * Across processes: two server processes on one PostgreSQL share the outbox (each delivery sent by one of them);
 * a server process killed (kill -9) while its receiver hangs mid-request leaves its claims to lapse, and after its
 * restart every delivery arrives, signed, with the id it had before.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { buildApp, type App } from '../app.ts';
import { openDatabase, type Database } from '../db/client.ts';
import { openMigratedDataFolder } from '../testing/data-folder.ts';
import { organizations, webhookDeliveries, webhooks } from '../db/schema.ts';
import { waitUntil } from '../testing/execution-fixtures.ts';
import { startTestServer, type TestServer } from '../testing/harness.ts';
import { createTestDatabase, testEngine } from '../testing/test-database.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../testing/webhook-receiver.ts';
import { recordDeliveries, WEBHOOK_CHANNEL } from './outbox.ts';
import { newWebhookSecret } from './signing.ts';
import { builtServerArgs } from '../testing/built-server.ts';

describe.skipIf(testEngine() !== 'postgres')('two server processes on one PostgreSQL (needs TEST_DATABASE_URL)', () => {
  let receiver: WebhookReceiver;
  let processA: TestServer;
  let databaseB: Database;
  let processB: App;

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    processA = await startTestServer({ webhooks: { hosts: ['127.0.0.1'], giveUpMs: 60_000, retryBaseMs: 50, sendTimeoutMs: 2000 } });
    const url = processA.testDatabase.url;
    if (!url) throw new Error('process A is not on PostgreSQL');
    databaseB = await openDatabase({ databaseUrl: url });
    processB = await buildApp({ config: processA.context.config, database: databaseB });
  });
  afterAll(async () => {
    await processB.app.close();
    await databaseB.close();
    await processA.close();
    await receiver.close();
  });

  it('sends each delivery once while both processes send', async () => {
    const orgId = await processA.createOrg('hooks');
    const admin = await processA.createUser(orgId, ['done-admin']);
    const created = await processA.request('POST', '/api/webhooks', { token: admin.token, body: { url: receiver.url('shared'), events: ['log.created'] } });
    expect(created.status).toBe(201);
    const { id, secret } = z.object({ id: z.uuid(), secret: z.string() }).parse(created.body);
    receiver.expectSecret('shared', secret);
    const events = 24;
    for (let i = 0; i < events; i += 1) {
      // Recorded through either process's transactions, as the bus's hook does; both workers wake on the NOTIFY.
      const db = i % 2 === 0 ? processA.context.db : databaseB.db;
      await db.transaction((tx) =>
        recordDeliveries(tx, orgId, [id], { dedupeKey: `shared-${i}`, payload: { type: 'log.created', timestamp: new Date().toISOString(), data: { n: i } } }),
      );
    }
    await receiver.waitFor(() => receiver.delivered('shared').length >= events, 30_000);
    // Give a duplicate the time to show up before judging.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const received = receiver.delivered('shared');
    expect(received).toHaveLength(events);
    expect(new Set(received.map((request) => request.id)).size).toBe(events);
    expect(received.every((request) => request.verifiedByLibrary)).toBe(true);
    const rows = await processA.context.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.webhookId, id));
    expect(rows.filter((row) => row.status === 'sent' && row.attempts === 1)).toHaveLength(events);
  });
});


interface Child {
  process: ChildProcess;
  output: () => string;
  exited: Promise<unknown>;
}

describe(`a server process killed mid-delivery (${testEngine()})`, () => {
  let receiver: WebhookReceiver;
  let dataDir = '';
  let databaseUrl: string | undefined;
  const children: Child[] = [];

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    dataDir = mkdtempSync(join(tmpdir(), 'uvd-webhook-restart-'));
  });
  afterAll(async () => {
    for (const child of children) {
      child.process.kill('SIGKILL');
      await child.exited;
    }
    await receiver.close();
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
        WEBHOOK_HOSTS: '127.0.0.1',
        // Long enough that the first process is killed while its sends hang (its lease: twice this).
        WEBHOOK_SEND_TIMEOUT_SECONDS: '5',
        WEBHOOK_RETRY_BASE_MS: '100',
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

  let shared: Database | undefined;
  const openData = async (): Promise<{ database: Database; done: () => Promise<void> }> => {
    if (shared) return { database: shared, done: async () => undefined };
    // PGlite is one process's: the server opens the folder itself once this is closed.
    const database = await openMigratedDataFolder(dataDir);
    return { database, done: () => database.close() };
  };

  it('sends after the restart what was in flight when it died, with the same webhook-id', async () => {
    let drop: () => Promise<void> = async () => undefined;
    if (testEngine() === 'postgres') {
      const scratch = await createTestDatabase();
      databaseUrl = scratch.url;
      shared = scratch.database;
      drop = () => scratch.drop();
    }
    // The database as the server will find it: a webhook and three deliveries in the outbox, as the hook writes them.
    const setup = await openData();
    const orgId = 'webhook-restart';
    const secret = newWebhookSecret();
    await setup.database.db.insert(organizations).values({ id: orgId, name: orgId, uvcDoses: [10], defaultDose: 10 });
    const [webhook] = await setup.database.db
      .insert(webhooks)
      .values({ orgId, url: receiver.url('restart'), secret, events: ['log.created'] })
      .returning();
    receiver.expectSecret('restart', secret);
    const ids: string[] = [];
    for (let i = 0; i < 3; i += 1) {
      const [row] = await setup.database.db
        .insert(webhookDeliveries)
        .values({
          orgId,
          webhookId: webhook?.id ?? '',
          eventType: 'log.created',
          dedupeKey: `log.created:restart-${i}`,
          payload: { type: 'log.created', timestamp: new Date().toISOString(), data: { job_id: `restart-${i}` } },
        })
        .returning({ id: webhookDeliveries.id });
      ids.push(row?.id ?? '');
    }
    await setup.database.db.execute(sql`SELECT pg_notify(${WEBHOOK_CHANNEL}, '')`);
    await setup.done();

    // The receiver hangs: the first server claims the deliveries and dies waiting for the answers.
    receiver.hold(true);
    const first = startServer();
    await waitUntil(async () => (receiver.held() >= 3 ? true : undefined), 45_000, 'the first server sending');
    first.process.kill('SIGKILL');
    await first.exited;
    expect(receiver.received).toEqual([]);

    const between = await openData();
    const claimed = await between.database.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.orgId, orgId));
    expect(claimed.map((row) => row.status)).toEqual(['sending', 'sending', 'sending']);
    await between.done();
    receiver.hold(false);

    const second = startServer();
    await receiver.waitFor(() => receiver.delivered('restart').length >= 3, 45_000);
    // Its outbox worker starts before it listens and handles SIGTERM: stopped earlier, it would end as killed.
    await waitUntil(async () => (second.output().includes('Server listening') ? true : undefined), 45_000, 'the second server listening');
    expect(new Set(receiver.delivered('restart').map((request) => request.id))).toEqual(new Set(ids));
    expect(receiver.delivered('restart').every((request) => request.verifiedByLibrary && request.verifiedByHand)).toBe(true);
    second.process.kill('SIGTERM');
    await second.exited;
    const after = await openData();
    const rows = await after.database.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.orgId, orgId));
    expect(rows.map((row) => [row.status, row.attempts])).toEqual([
      ['sent', 2],
      ['sent', 2],
      ['sent', 2],
    ]);
    await after.done();
    await drop();
    // Two server processes start one after the other (each a few seconds, more on busy shared cores).
  }, 150_000);
});
