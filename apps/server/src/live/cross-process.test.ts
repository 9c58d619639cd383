import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type App } from '../app.ts';
import { openDatabase, type Database } from '../db/client.ts';
import { startTestServer, type TestServer } from '../testing/harness.ts';
import { openSse, type SseClient } from '../testing/live-fixtures.ts';
import { testEngine } from '../testing/test-database.ts';

const STREAM = '/api/jobs/v2/jobs/stream';

// Two server processes share one PostgreSQL database behind a load balancer (docs/architecture.md#decisions): each is a separate
// app with its own connection pool and LISTEN connection, as a second process would have.
describe.skipIf(testEngine() !== 'postgres')('live events across server processes (needs TEST_DATABASE_URL)', () => {
  let processA: TestServer;
  let databaseB: Database;
  let processB: App;
  let urlB = '';
  const clients: SseClient[] = [];

  beforeAll(async () => {
    processA = await startTestServer();
    const url = processA.testDatabase.url;
    if (!url) throw new Error('process A is not on PostgreSQL');
    databaseB = await openDatabase({ databaseUrl: url });
    processB = await buildApp({ config: processA.context.config, database: databaseB });
    await processB.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = processB.app.server.address() as AddressInfo;
    urlB = `http://127.0.0.1:${port}`;
  });
  afterAll(async () => {
    for (const client of clients) client.close();
    await processB.app.close();
    await databaseB.close();
    await processA.close();
  });

  it('delivers an event published in process A to a stream client of process B, with the same id', async () => {
    const orgId = await processA.createOrg();
    const admin = await processA.createUser(orgId, ['done-admin']);
    const jobId = randomUUID();
    const onB = await openSse(urlB, STREAM, { token: admin.token, query: { job_list: jobId } });
    const onA = await openSse(processA.url, STREAM, { token: admin.token, query: { job_list: jobId } });
    clients.push(onA, onB);
    expect(onB.status).toBe(200);

    const published = await processA.context.db.transaction((tx) =>
      processA.context.bus.publish(
        { orgId, stream: 'jobs', key: jobId, type: 'job_change', payload: { job_id: jobId, robot_id: randomUUID(), name: 'across' } },
        tx,
      ),
    );
    for (const client of [onB, onA]) {
      const frame = await client.nextEvent();
      expect(frame.event).toBe('job_change');
      expect(frame.id).toBe(String(published.id));
      expect(JSON.parse(frame.data)).toMatchObject({ job_id: jobId, name: 'across' });
    }
  });

  it('replays on process B what was published on process A while the client was away', async () => {
    const orgId = await processA.createOrg();
    const admin = await processA.createUser(orgId, ['done-admin']);
    const jobId = randomUUID();
    const publish = (name: string) =>
      processA.context.bus.publish({
        orgId,
        stream: 'jobs',
        key: jobId,
        type: 'job_change',
        payload: { job_id: jobId, robot_id: randomUUID(), name: name.padEnd(9000, '.') },
      });
    const seen = await publish('seen');
    const missed = await publish('missed');
    const client = await openSse(urlB, STREAM, { token: admin.token, headers: { 'last-event-id': String(seen.id) } });
    clients.push(client);
    expect((await client.nextEvent()).id).toBe(String(missed.id));
  });
});
