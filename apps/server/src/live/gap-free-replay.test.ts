import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startTestServer, type TestServer } from '../testing/harness.ts';
import { eventually, openSse } from '../testing/live-fixtures.ts';
import { testEngine } from '../testing/test-database.ts';

const STREAM = '/api/jobs/v2/jobs/stream';
const WRITERS = 10;
const CHANGES_PER_WRITER = 80;
const JobChange = z.object({ name: z.string() });

// On PostgreSQL, transactions draw event ids from one sequence but commit in any order; on PGlite (one
// connection) they commit in id order, so only PostgreSQL can lose an event this way.
describe.skipIf(testEngine() !== 'postgres')('Last-Event-ID replay under concurrent commits (needs TEST_DATABASE_URL)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server.close();
  });

  it('a client reconnecting every 30–60 ms while 10 writers make 800 job changes receives every change once, in id order', async () => {
    const orgId = await server.createOrg();
    const admin = await server.createUser(orgId, ['done-admin']);
    const expected = new Set<string>();
    const received: string[] = [];
    const ids: number[] = [];
    // The client has seen everything up to a first event, so every change after it is either live or replayed.
    const startJob = randomUUID();
    const start = await server.context.bus.publish({
      orgId,
      stream: 'jobs',
      key: startJob,
      type: 'job_change',
      payload: { job_id: startJob, robot_id: startJob, name: 'start' },
    });
    let lastEventId = String(start.id);

    const take = (frames: readonly { id: string | undefined; event: string; data: string }[]) => {
      for (const frame of frames) {
        if (frame.id === undefined) continue;
        lastEventId = frame.id;
        if (frame.event !== 'job_change') continue;
        received.push(JobChange.parse(JSON.parse(frame.data)).name);
        ids.push(Number(frame.id));
      }
    };
    const connect = () =>
      openSse(server.url, STREAM, {
        token: admin.token,
        headers: { 'last-event-id': lastEventId },
      });

    let client = await connect();
    let writing = true;
    const writers = Array.from({ length: WRITERS }, async (_, writer) => {
      for (let change = 0; change < CHANGES_PER_WRITER; change++) {
        const name = `${writer}-${change}`;
        expected.add(name);
        const jobId = randomUUID();
        await server.context.db.transaction(async (tx) => {
          await server.context.bus.publish(
            { orgId, stream: 'jobs', key: jobId, type: 'job_change', payload: { job_id: jobId, robot_id: jobId, name } },
            tx,
          );
          // The rest of the change's transaction: commits land out of id order, as real job updates do.
          await tx.execute(sql`SELECT pg_sleep(${Math.random() * 0.004})`);
        });
      }
    });
    const done = Promise.all(writers).finally(() => {
      writing = false;
    });
    while (writing) {
      await new Promise((resolve) => setTimeout(resolve, 30 + Math.random() * 30));
      client.close();
      await client.ended;
      take(client.frames);
      client = await connect();
    }
    await done;

    // The last connection stays until every change has arrived, or the wait ends and the assertion names the missing.
    const names = () =>
      new Set([
        ...received,
        ...client.frames.filter((frame) => frame.event === 'job_change').map((frame) => JobChange.parse(JSON.parse(frame.data)).name),
      ]);
    await eventually(() => names().size >= expected.size, 30_000, 50).catch(() => undefined);
    client.close();
    await client.ended;
    take(client.frames);

    const missing = [...expected].filter((name) => !received.includes(name));
    expect(missing).toEqual([]);
    expect(received).toHaveLength(expected.size);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
  }, 120_000);
});
