import { randomUUID } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ApiError, parseSseFrames, type Role } from '@uvd/contracts';
import { events, jobs, robotGroups } from '../db/schema.ts';
import { realmIssuer, signAccessToken } from '../identity/tokens.ts';
import { startTestServer, type TestServer } from '../testing/harness.ts';
import { eventually, openSse, type SseClient } from '../testing/live-fixtures.ts';
import { createSite } from '../testing/site-fixtures.ts';
import { schedulePruning } from './pruning.ts';
import { createViewer } from './viewer.ts';

const STREAM = '/api/jobs/v2/jobs/stream';
const HEARTBEAT_MS = 200;
const MAX_BUFFERED_BYTES = 256 * 1024;

/** What the jobs module publishes: a job, of which the stream needs only job_id and robot_id. */
const JobChange = z.object({ job_id: z.uuid(), robot_id: z.uuid(), name: z.string() });

let server: TestServer;
const clients: SseClient[] = [];

beforeAll(async () => {
  server = await startTestServer({ liveHeartbeatMs: HEARTBEAT_MS, liveMaxBufferedBytes: MAX_BUFFERED_BYTES });
});
afterAll(async () => {
  // Streams still open: closing the server must end them rather than wait for the clients to hang up.
  const open = clients.filter((client) => client.status === 200);
  await server.close();
  await Promise.all(open.map((client) => client.ended));
});

async function stream(options: Parameters<typeof openSse>[2]): Promise<SseClient> {
  const client = await openSse(server.url, STREAM, options);
  clients.push(client);
  return client;
}

async function adminOf(orgId: string, roles: Role[] = ['done-admin']) {
  return server.createUser(orgId, roles);
}

const publishJob = (orgId: string, jobId: string, robotId: string, name = 'Ward 3 evening') =>
  server.context.bus.publish({
    orgId,
    stream: 'jobs',
    key: jobId,
    type: 'job_change',
    payload: { job_id: jobId, robot_id: robotId, name },
  });

describe('GET /jobs/v2/jobs/stream', () => {
  it('sends a listed job’s change as job_change with the event id, as an unbuffered event stream', async () => {
    const orgId = await server.createOrg();
    const admin = await adminOf(orgId);
    const jobId = randomUUID();
    const robotId = randomUUID();
    const client = await stream({ token: admin.token, query: { job_list: jobId } });
    expect(client.status).toBe(200);
    expect(client.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(client.headers.get('cache-control')).toContain('no-cache');
    expect(client.headers.get('x-accel-buffering')).toBe('no');

    const published = await publishJob(orgId, jobId, robotId);
    const frame = await client.nextEvent();
    expect(frame.event).toBe('job_change');
    expect(frame.id).toBe(String(published.id));
    expect(JobChange.parse(JSON.parse(frame.data))).toEqual({ job_id: jobId, robot_id: robotId, name: 'Ward 3 evening' });
  });

  it('accepts job_list repeated and comma-separated, and skips jobs not listed', async () => {
    const orgId = await server.createOrg();
    const admin = await adminOf(orgId);
    const [a, b, c, unlisted] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
    const robotId = randomUUID();
    const client = await stream({ token: admin.token, query: { job_list: [`${a},${b}`, c] } });

    await publishJob(orgId, unlisted, robotId);
    await publishJob(orgId, b, robotId);
    await publishJob(orgId, c, robotId);
    await publishJob(orgId, a, robotId);
    // Events arrive in order, so had the unlisted job's event been sent, it would have come first.
    const keys = [];
    for (let i = 0; i < 3; i++) keys.push(JobChange.parse(JSON.parse((await client.nextEvent()).data)).job_id);
    expect(keys).toEqual([b, c, a]);
  });

  it('with an empty job_list sends every job of the caller’s organization', async () => {
    const orgId = await server.createOrg();
    const admin = await adminOf(orgId, ['done-superadmin']);
    const client = await stream({ token: admin.token });
    const jobId = randomUUID();
    await publishJob(orgId, jobId, randomUUID());
    expect(JobChange.parse(JSON.parse((await client.nextEvent()).data)).job_id).toBe(jobId);
  });

  it('never sends another organization’s events, even for a listed id', async () => {
    const orgId = await server.createOrg();
    const otherOrgId = await server.createOrg();
    const admin = await adminOf(orgId);
    const sharedId = randomUUID();
    const ownId = randomUUID();
    const listed = await stream({ token: admin.token, query: { job_list: [sharedId, ownId] } });
    const everything = await stream({ token: admin.token });

    await publishJob(otherOrgId, sharedId, randomUUID());
    await publishJob(orgId, ownId, randomUUID());
    expect(JSON.parse((await listed.nextEvent()).data)).toMatchObject({ job_id: ownId });
    expect(JSON.parse((await everything.nextEvent()).data)).toMatchObject({ job_id: ownId });
  });

  it('sends a teleoperator only the jobs of the robots of their groups', async () => {
    const orgId = await server.createOrg();
    const groupId = await server.createGroup(orgId);
    const site = await createSite(server.context.db, orgId, { robots: 2 });
    const [mine, notMine] = site.robotIds;
    if (!mine || !notMine) throw new Error('site without robots');
    await server.context.db.insert(robotGroups).values({ robotId: mine, groupId });
    const operator = await server.createUser(orgId, ['done-teleoperator'], { groupIds: [groupId] });
    const hiddenJobId = randomUUID();
    const visibleJobId = randomUUID();
    // A job whose event names no robot: the stream reads the robot from the jobs table.
    const [stored] = await server.context.db
      .insert(jobs)
      .values({ orgId, robotId: notMine, name: 'Hidden', startTime: new Date(), createdBy: 'test' })
      .returning({ id: jobs.id });
    if (!stored) throw new Error('job not stored');

    const everything = await stream({ token: operator.token });
    const listed = await stream({ token: operator.token, query: { job_list: [hiddenJobId, visibleJobId, stored.id] } });
    await publishJob(orgId, hiddenJobId, notMine);
    await server.context.bus.publish({ orgId, stream: 'jobs', key: stored.id, type: 'job_change', payload: { job_id: stored.id } });
    await publishJob(orgId, visibleJobId, mine);

    for (const client of [everything, listed]) {
      expect(JSON.parse((await client.nextEvent()).data)).toMatchObject({ job_id: visibleJobId });
    }
  });

  it('answers 401 without a token, and 400 naming the field for a bad job_list or Last-Event-ID', async () => {
    const noToken = await stream({});
    expect(noToken.status).toBe(401);
    expect(ApiError.parse(noToken.error).error).toBe('unauthorized');

    const orgId = await server.createOrg();
    const admin = await adminOf(orgId);
    const badList = await stream({ token: admin.token, query: { job_list: `${randomUUID()},not-a-uuid` } });
    expect(badList.status).toBe(400);
    expect(ApiError.parse(badList.error).message).toContain('job_list');

    const badHeader = await stream({ token: admin.token, headers: { 'last-event-id': 'yesterday' } });
    expect(badHeader.status).toBe(400);
    expect(ApiError.parse(badHeader.error).message).toContain('Last-Event-ID');

    const badQuery = await stream({ token: admin.token, query: { last_event_id: -1 } });
    expect(badQuery.status).toBe(400);
    expect(ApiError.parse(badQuery.error).message).toContain('last_event_id');
  });

  it('replays exactly the missed events, in order, after Last-Event-ID, then goes on live', async () => {
    const orgId = await server.createOrg();
    const otherOrgId = await server.createOrg();
    const admin = await adminOf(orgId);
    const jobId = randomUUID();
    const robotId = randomUUID();
    const first = await stream({ token: admin.token, query: { job_list: jobId } });
    await publishJob(orgId, jobId, robotId, 'seen 1');
    await publishJob(orgId, jobId, robotId, 'seen 2');
    await first.nextEvent();
    const lastSeen = await first.nextEvent();
    first.close();

    const missed = [];
    missed.push(await publishJob(orgId, jobId, robotId, 'missed 1'));
    await publishJob(otherOrgId, jobId, robotId, 'other organization');
    await publishJob(orgId, randomUUID(), robotId, 'unlisted job');
    missed.push(await publishJob(orgId, jobId, robotId, 'missed 2'));

    const viaHeader = await stream({
      token: admin.token,
      query: { job_list: jobId },
      headers: { 'last-event-id': lastSeen.id ?? '' },
    });
    const viaQuery = await stream({ token: admin.token, query: { job_list: jobId, last_event_id: lastSeen.id ?? '' } });
    for (const client of [viaHeader, viaQuery]) {
      const replayed = [await client.nextEvent(), await client.nextEvent()];
      expect(replayed.map((frame) => frame.id)).toEqual(missed.map((event) => String(event.id)));
      expect(replayed.map((frame) => JobChange.parse(JSON.parse(frame.data)).name)).toEqual(['missed 1', 'missed 2']);
    }
    const live = await publishJob(orgId, jobId, robotId, 'live');
    for (const client of [viaHeader, viaQuery]) {
      const frame = await client.nextEvent();
      expect(frame.id).toBe(String(live.id));
      expect(JobChange.parse(JSON.parse(frame.data)).name).toBe('live');
    }
  });

  it('sends a heartbeat comment at the configured interval', async () => {
    const orgId = await server.createOrg();
    const admin = await adminOf(orgId);
    const client = await stream({ token: admin.token });
    const started = Date.now();
    await client.waitFor((frame) => frame.comments.includes('ping'), HEARTBEAT_MS * 10);
    expect(Date.now() - started).toBeGreaterThanOrEqual(HEARTBEAT_MS - 50);
    expect(client.frames[0]?.retry).toBeGreaterThan(0);
  });

  it('never delivers an event published in a transaction that rolled back', async () => {
    const orgId = await server.createOrg();
    const admin = await adminOf(orgId);
    const client = await stream({ token: admin.token });
    const rolledBackJob = randomUUID();
    const committedJob = randomUUID();
    let rolledBackId = 0;
    await expect(
      server.context.db.transaction(async (tx) => {
        const event = await server.context.bus.publish(
          { orgId, stream: 'jobs', key: rolledBackJob, type: 'job_change', payload: { job_id: rolledBackJob, robot_id: randomUUID(), name: 'x' } },
          tx,
        );
        rolledBackId = event.id;
        throw new Error('the change failed');
      }),
    ).rejects.toThrow('the change failed');
    // Delivered only at commit: an event of a transaction still open is not sent either.
    let committed = 0;
    await server.context.db.transaction(async (tx) => {
      committed = (
        await server.context.bus.publish(
          { orgId, stream: 'jobs', key: committedJob, type: 'job_change', payload: { job_id: committedJob, robot_id: randomUUID(), name: 'y' } },
          tx,
        )
      ).id;
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(client.frames.some((frame) => frame.id !== undefined)).toBe(false);
    });

    const frame = await client.nextEvent();
    expect(frame.id).toBe(String(committed));
    expect(rolledBackId).toBeGreaterThan(0);
    expect(await server.context.db.select().from(events).where(eq(events.id, rolledBackId))).toEqual([]);
    // Nor is it replayed.
    const replay = await stream({ token: admin.token, headers: { 'last-event-id': String(rolledBackId - 1) } });
    expect((await replay.nextEvent()).id).toBe(String(committed));
  });

  it('delivers payloads larger than a NOTIFY can carry, intact', async () => {
    const orgId = await server.createOrg();
    const admin = await adminOf(orgId);
    const client = await stream({ token: admin.token });
    const jobId = randomUUID();
    const notes = 'ä'.repeat(20_000);
    await publishJob(orgId, jobId, randomUUID(), notes);
    expect(JobChange.parse(JSON.parse((await client.nextEvent()).data)).name).toBe(notes);
  });

  it('removes the listener when the client disconnects', async () => {
    const orgId = await server.createOrg();
    const admin = await adminOf(orgId);
    const before = server.context.bus.listenerCount('jobs');
    const client = await stream({ token: admin.token });
    expect(server.context.bus.listenerCount('jobs')).toBe(before + 1);
    client.close();
    await eventually(() => server.context.bus.listenerCount('jobs') === before);
  });

  it('drops a client that stops reading instead of buffering without bound', async () => {
    const orgId = await server.createOrg();
    const admin = await adminOf(orgId);
    const before = server.context.bus.listenerCount('jobs');
    const { port } = new URL(server.url);
    const socket: Socket = connect(Number(port), '127.0.0.1');
    await new Promise<void>((resolve) => socket.once('connect', resolve));
    const closed = new Promise<void>((resolve) => socket.once('close', () => { resolve(); }));
    socket.on('error', () => undefined);
    socket.write(`GET ${STREAM} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${admin.token}\r\n\r\n`);
    let head = '';
    await new Promise<void>((resolve) => {
      const onData = (chunk: Buffer) => {
        head += chunk.toString();
        if (head.includes(': connected')) {
          socket.off('data', onData);
          resolve();
        }
      };
      socket.on('data', onData);
    });
    expect(head).toMatch(/^HTTP\/1\.1 200/);
    // The client reads no more: its socket buffers fill, then the server's.
    socket.pause();
    expect(server.context.bus.listenerCount('jobs')).toBe(before + 1);

    const name = 'x'.repeat(64 * 1024);
    await server.context.db.transaction(async (tx) => {
      for (let i = 0; i < 300; i++) {
        const jobId = randomUUID();
        await server.context.bus.publish(
          { orgId, stream: 'jobs', key: jobId, type: 'job_change', payload: { job_id: jobId, robot_id: jobId, name } },
          tx,
        );
      }
    });
    await eventually(() => server.context.bus.listenerCount('jobs') === before, 20_000);
    socket.resume();
    await closed;
  });

  it('ends the stream when the access token expires', async () => {
    const orgId = await server.createOrg();
    const admin = await adminOf(orgId);
    const token = await signAccessToken(
      { userId: admin.id, orgId, username: admin.username, roles: admin.roles, firstName: 'T', lastName: 'U', email: 'e@example.test', groups: [] },
      {
        keys: server.context.keys,
        issuer: realmIssuer(`${server.url}/idp`, orgId),
        clientId: server.context.config.clientId,
        ttlSeconds: 1,
        sessionId: randomUUID(),
        scope: 'openid',
      },
    );
    const client = await stream({ token });
    expect(client.status).toBe(200);
    await client.waitFor((frame) => frame.comments.includes('token expired'), 4000);
    await client.ended;
  });

  it('prunes events older than the replay horizon', async () => {
    const orgId = await server.createOrg();
    const old = await publishJob(orgId, randomUUID(), randomUUID());
    const recent = await publishJob(orgId, randomUUID(), randomUUID());
    await server.context.db
      .update(events)
      .set({ createdAt: new Date(Date.now() - 2 * 60 * 60 * 1000) })
      .where(eq(events.id, old.id));
    const pruner = schedulePruning(server.context.bus, { retentionMs: 60 * 60 * 1000, pruneIntervalMs: 60_000 }, () => undefined);
    expect(await pruner.pruneNow()).toBeGreaterThanOrEqual(1);
    await pruner.stop();
    const left = await server.context.bus.replay(orgId, 'jobs', 0);
    expect(left.map((event) => event.id)).toEqual([recent.id]);
  });
});

describe('stream viewer', () => {
  it('reads a teleoperator’s robots once, and again only after the refresh interval', async () => {
    const orgId = await server.createOrg();
    const groupId = await server.createGroup(orgId);
    const operator = await server.createUser(orgId, ['done-teleoperator'], { groupIds: [groupId] });
    const site = await createSite(server.context.db, orgId, { robots: 1 });
    const robotId = site.robotIds[0] ?? '';
    let clock = 0;
    const viewer = createViewer(
      server.context.db,
      { sub: operator.id, orgId, username: operator.username, roles: operator.roles, givenName: 'T', familyName: 'U', email: '', groups: [] },
      1000,
      () => clock,
    );
    expect(await viewer.canSeeRobot(robotId)).toBe(false);
    await server.context.db.insert(robotGroups).values({ robotId, groupId });
    clock = 999;
    expect(await viewer.canSeeRobot(robotId)).toBe(false);
    clock = 1000;
    expect(await viewer.canSeeRobot(robotId)).toBe(true);
  });
});

describe('the stream in the OpenAPI document', () => {
  it('is listed with its query', async () => {
    const response = await server.request<{ paths: Record<string, { get?: { parameters?: { name: string }[] } }> }>(
      'GET',
      '/api/docs/json',
    );
    const names = response.body.paths['/api/jobs/v2/jobs/stream']?.get?.parameters?.map((parameter) => parameter.name);
    expect(names).toEqual(expect.arrayContaining(['job_list', 'last_event_id']));
  });
});

describe('parseSseFrames', () => {
  it('splits frames, keeps the unterminated rest, and reads comments, ids and multi-line data', () => {
    const { frames, rest } = parseSseFrames('retry: 3000\n: hi\n\nid: 7\nevent: job_change\ndata: {"a":\ndata: 1}\n\nid: 8\nda');
    expect(frames).toEqual([
      { id: undefined, event: 'message', data: '', comments: ['hi'], retry: 3000 },
      { id: '7', event: 'job_change', data: '{"a":\n1}', comments: [], retry: undefined },
    ]);
    expect(rest).toBe('id: 8\nda');
  });
});
