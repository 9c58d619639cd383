import { randomUUID } from 'node:crypto';
import { eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { RESYNC_EVENT, ResyncPayload } from '@uvd/contracts';
import { events } from '../db/schema.ts';
import { startTestServer, type TestServer } from '../testing/harness.ts';
import { openSse, type SseClient } from '../testing/live-fixtures.ts';

const STREAM = '/api/jobs/v2/jobs/stream';
/** The default unread-bytes limit: a backlog twice as large must still be replayed in full. */
const MAX_BUFFERED_BYTES = 1024 * 1024;
const JobChange = z.object({ job_id: z.uuid(), name: z.string() });

let server: TestServer;
const clients: SseClient[] = [];

beforeAll(async () => {
  server = await startTestServer({ liveMaxBufferedBytes: MAX_BUFFERED_BYTES });
});
afterAll(async () => {
  for (const client of clients) client.close();
  await server.close();
});

async function stream(options: Parameters<typeof openSse>[2]): Promise<SseClient> {
  const client = await openSse(server.url, STREAM, options);
  clients.push(client);
  return client;
}

const publishJob = (orgId: string, jobId: string, name: string) =>
  server.context.bus.publish({ orgId, stream: 'jobs', key: jobId, type: 'job_change', payload: { job_id: jobId, robot_id: jobId, name } });

const HOUR_MS = 60 * 60 * 1000;
/** The pruning round with a retention of an hour. */
const pruneOlderThanAnHour = () => server.context.bus.prune(new Date(Date.now() - HOUR_MS));

/** An admin's job with an event the client saw and one it missed, both recorded two hours ago (past the horizon). */
async function seenThenMissedTwoHoursAgo() {
  const orgId = await server.createOrg();
  const admin = await server.createUser(orgId, ['done-admin']);
  const jobId = randomUUID();
  const seen = await publishJob(orgId, jobId, 'seen');
  const pruned = await publishJob(orgId, jobId, 'missed, then pruned');
  await server.context.db
    .update(events)
    .set({ createdAt: new Date(Date.now() - 2 * HOUR_MS) })
    .where(inArray(events.id, [seen.id, pruned.id]));
  return { orgId, admin, jobId, seen, pruned };
}

describe('replay after Last-Event-ID', () => {
  it('streams a backlog of 2 MB (twice the unread-bytes limit) in full, in order, then goes on live', async () => {
    const orgId = await server.createOrg();
    const admin = await server.createUser(orgId, ['done-admin']);
    const jobId = randomUUID();
    const seen = await publishJob(orgId, jobId, 'seen');
    const padding = 'x'.repeat(64 * 1024);
    const missed: number[] = [];
    for (let i = 0; i < 32; i++) missed.push((await publishJob(orgId, jobId, `missed ${i} ${padding}`)).id);

    const client = await stream({ token: admin.token, query: { job_list: jobId }, headers: { 'last-event-id': String(seen.id) } });
    const received: string[] = [];
    for (let i = 0; i < missed.length; i++) {
      const frame = await client.nextEvent(20_000);
      received.push(frame.id ?? '');
      expect(JobChange.parse(JSON.parse(frame.data)).name.startsWith(`missed ${i} `)).toBe(true);
    }
    expect(received).toEqual(missed.map(String));

    const live = await publishJob(orgId, jobId, 'live');
    expect((await client.nextEvent(10_000)).id).toBe(String(live.id));
  });

  it('sends resync (horizon), not a partial replay, when events after the Last-Event-ID were pruned, then live events', async () => {
    const { orgId, admin, jobId, seen, pruned } = await seenThenMissedTwoHoursAgo();
    expect(await pruneOlderThanAnHour()).toBeGreaterThanOrEqual(2);
    expect(await server.context.db.select().from(events).where(eq(events.id, pruned.id))).toEqual([]);

    const client = await stream({ token: admin.token, query: { job_list: jobId }, headers: { 'last-event-id': String(seen.id) } });
    const resync = await client.nextEvent(10_000);
    expect(resync.event).toBe(RESYNC_EVENT);
    expect(ResyncPayload.parse(JSON.parse(resync.data))).toEqual({ reason: 'horizon' });
    // The frame carries the position a later reconnect resumes from.
    expect(Number(resync.id)).toBeGreaterThanOrEqual(pruned.id);

    const live = await publishJob(orgId, jobId, 'live');
    const frame = await client.nextEvent(10_000);
    expect(frame.id).toBe(String(live.id));
    expect(JobChange.parse(JSON.parse(frame.data)).name).toBe('live');
  });

  it('sends resync (horizon) when the events after the Last-Event-ID are pruned while the stream opens, between its reads', async () => {
    const { orgId, admin, jobId, seen } = await seenThenMissedTwoHoursAgo();

    // The pruning round lands just before the stream reads its replay: the real bus, at that one moment.
    const bus = server.context.bus;
    const replay = bus.replay.bind(bus);
    let prunedThen = 0;
    bus.replay = async (...args) => {
      bus.replay = replay;
      prunedThen = await pruneOlderThanAnHour();
      return replay(...args);
    };
    try {
      const client = await stream({ token: admin.token, query: { job_list: jobId }, headers: { 'last-event-id': String(seen.id) } });
      // A change while the stream opens: without the resync it came first, as if the replay had been whole.
      const during = await publishJob(orgId, jobId, 'changed while the stream opened');
      const resync = await client.nextEvent(10_000);
      expect(prunedThen).toBeGreaterThanOrEqual(2);
      expect(resync.event).toBe(RESYNC_EVENT);
      expect(ResyncPayload.parse(JSON.parse(resync.data))).toEqual({ reason: 'horizon' });
      const live = await publishJob(orgId, jobId, 'live');
      let next = await client.nextEvent(10_000);
      // That change follows the resync, or the resync's position covers it (the refetch it asks for shows it).
      if (next.id === String(during.id)) next = await client.nextEvent(10_000);
      else expect(Number(resync.id)).toBeGreaterThanOrEqual(during.id);
      expect(next.id).toBe(String(live.id));
    } finally {
      bus.replay = replay;
    }
  });

  it('replays exactly, without resync, from a Last-Event-ID at the horizon', async () => {
    const orgId = await server.createOrg();
    const admin = await server.createUser(orgId, ['done-admin']);
    const jobId = randomUUID();
    const seen = await publishJob(orgId, jobId, 'seen');
    await server.context.db
      .update(events)
      .set({ createdAt: new Date(Date.now() - 2 * HOUR_MS) })
      .where(eq(events.id, seen.id));
    await pruneOlderThanAnHour();
    const missed = await publishJob(orgId, jobId, 'missed');

    const client = await stream({ token: admin.token, query: { job_list: jobId }, headers: { 'last-event-id': String(seen.id) } });
    const frame = await client.nextEvent(10_000);
    expect(frame.event).toBe('job_change');
    expect(frame.id).toBe(String(missed.id));
  });
});
