import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { RESYNC_EVENT, ResyncPayload } from '@uvd/contracts';
import { LISTEN_APPLICATION_NAME } from '../db/client.ts';
import { startTestServer, type TestServer } from '../testing/harness.ts';
import { openSse, type SseClient } from '../testing/live-fixtures.ts';
import { testEngine } from '../testing/test-database.ts';

const STREAM = '/api/jobs/v2/jobs/stream';
const JobChange = z.object({ name: z.string() });

// PGlite has no connection to lose; on PostgreSQL the LISTEN connection is a backend of its own.
describe.skipIf(testEngine() !== 'postgres')('a server process that loses its LISTEN connection (needs TEST_DATABASE_URL)', () => {
  let server: TestServer;
  let operator: pg.Client;
  const clients: SseClient[] = [];

  beforeAll(async () => {
    server = await startTestServer();
    operator = new pg.Client({ connectionString: server.testDatabase.url });
    await operator.connect();
  });
  afterAll(async () => {
    for (const client of clients) client.close();
    await operator.end();
    await server.close();
  });

  /** The backends listening on this test's database (the server's one LISTEN connection), as an operator finds them. */
  const listeners = async () => {
    const result = await operator.query<{ pid: number }>(
      'SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1',
      [LISTEN_APPLICATION_NAME],
    );
    return result.rows.map((row) => row.pid);
  };

  it('reconnects, delivers what was recorded while it was deaf, tells its streams to resync, and goes on live', async () => {
    const orgId = await server.createOrg();
    const admin = await server.createUser(orgId, ['done-admin']);
    const jobId = randomUUID();
    const publishJob = (name: string) =>
      server.context.bus.publish({ orgId, stream: 'jobs', key: jobId, type: 'job_change', payload: { job_id: jobId, robot_id: jobId, name } });
    const client = await openSse(server.url, STREAM, { token: admin.token, query: { job_list: jobId } });
    clients.push(client);
    const before = await publishJob('before');
    expect((await client.nextEvent(10_000)).id).toBe(String(before.id));

    const [listener, ...others] = await listeners();
    expect(listener).toBeDefined();
    expect(others).toEqual([]);
    await operator.query('SELECT pg_terminate_backend($1)', [listener]);
    const whileDeaf = await publishJob('while deaf');

    // The change recorded while deaf arrives (from the table, or live if the process was back already), and a
    // resync frame tells the client that telemetry in between is gone; their order depends on that race.
    const frames = [await client.nextEvent(15_000), await client.nextEvent(15_000)];
    const change = frames.find((frame) => frame.event === 'job_change');
    const resync = frames.find((frame) => frame.event === RESYNC_EVENT);
    expect(change?.id).toBe(String(whileDeaf.id));
    expect(JobChange.parse(JSON.parse(change?.data ?? 'null')).name).toBe('while deaf');
    expect(ResyncPayload.parse(JSON.parse(resync?.data ?? 'null'))).toEqual({ reason: 'database' });
    expect(Number(resync?.id)).toBeGreaterThanOrEqual(before.id);

    const after = await publishJob('after');
    const live = await client.nextEvent(10_000);
    expect(live.id).toBe(String(after.id));
    // Listening again, on a new backend.
    const now = await listeners();
    expect(now).toHaveLength(1);
    expect(now).not.toContain(listener);
  });
});
