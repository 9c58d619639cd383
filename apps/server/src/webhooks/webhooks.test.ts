/**
 * Signed webhooks end to end with real parts: the admin API over HTTP, jobs run by a simulated robot over the
 * embedded MQTT broker, and a local receiver (testing/webhook-receiver.ts) that verifies every signature with the
 * `standardwebhooks` library and with README.md's node:crypto code.
 */
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SimRobot } from '@uvd/robot-sim';
import { ApiError, CreatedWebhook, DeliveryStatus, Job, LogEntry, Webhook, WebhookList, WEBHOOK_MESSAGES, type WebhookInput } from '@uvd/contracts';
import { webhookDeliveries, webhooks } from '../db/schema.ts';
import { lockDelivery, updateDelivery } from '../deliveries/lifecycle.ts';
import { queueDelivery } from '../testing/delivery-fixtures.ts';
import { createJobFor, executionWorld, playWorldRobot, waitUntil, type ExecutionWorld } from '../testing/execution-fixtures.ts';
import { startTestServer, type TestServer, type TestUser } from '../testing/harness.ts';
import { createSite } from '../testing/site-fixtures.ts';
import { startWebhookReceiver, type ReceivedWebhook, type WebhookReceiver } from '../testing/webhook-receiver.ts';
import { isPrivateAddress, urlProblem } from './url.ts';

const GIVE_UP_MS = 4000;

let receiver: WebhookReceiver;
let server: TestServer;
const sims: SimRobot[] = [];
beforeAll(async () => {
  receiver = await startWebhookReceiver();
  server = await startTestServer({
    schedulerPollMs: 50,
    webhooks: { hosts: ['127.0.0.1'], giveUpMs: GIVE_UP_MS, retryBaseMs: 50, sendTimeoutMs: 1000 },
  });
});
afterAll(async () => {
  await Promise.all(sims.map((sim) => sim.stop()));
  await server.close();
  await receiver.close();
});

let pathCount = 0;
const newPath = (name: string) => `${name}-${(pathCount += 1)}`;

/** A webhook of `admin`'s organization to a new path of the receiver, which verifies with its secret. */
async function register(admin: TestUser, input: Partial<WebhookInput> & { path?: string } = {}): Promise<CreatedWebhook & { path: string }> {
  const path = input.path ?? newPath('hook');
  const response = await server.request('POST', '/api/webhooks', {
    token: admin.token,
    body: { url: receiver.url(path), events: ['log.created', 'job.failed', 'delivery.delivered'], ...input, path: undefined },
  });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  const created = CreatedWebhook.parse(response.body);
  receiver.expectSecret(path, created.secret);
  return { ...created, path };
}

const to = (path: string): ReceivedWebhook[] => receiver.received.filter((request) => request.path === path);
const typesTo = (path: string) => receiver.delivered(path).map((request) => request.payload?.type);

const list = async (user: TestUser) => {
  const response = await server.request('GET', '/api/webhooks', { token: user.token });
  expect(response.status).toBe(200);
  return WebhookList.parse(response.body).data;
};

const deliveryRows = (webhookId: string) => server.context.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.webhookId, webhookId));

describe('webhook URLs', () => {
  it('take https to public addresses, and http or private addresses only for hosts in WEBHOOK_HOSTS', () => {
    const hosts = ['127.0.0.1', 'integration.ward.local'];
    expect(urlProblem('https://hooks.example.com/uvd', hosts)).toBeUndefined();
    expect(urlProblem('https://93.184.216.34:8443/x', hosts)).toBeUndefined();
    expect(urlProblem('http://127.0.0.1:9000/x', hosts)).toBeUndefined();
    expect(urlProblem('http://integration.ward.local/x', hosts)).toBeUndefined();
    expect(urlProblem('http://hooks.example.com/uvd', hosts)).toBe(WEBHOOK_MESSAGES.url);
    expect(urlProblem('ftp://127.0.0.1/x', hosts)).toBe(WEBHOOK_MESSAGES.url);
    expect(urlProblem('javascript:alert(1)', hosts)).toBe(WEBHOOK_MESSAGES.url);
    for (const url of ['https://10.1.2.3/', 'https://192.168.0.10/', 'https://172.20.0.1/', 'https://169.254.169.254/latest', 'https://[::1]/', 'https://[fd00::1]/', 'https://[::ffff:10.0.0.1]/', 'https://localhost/', 'https://api.localhost/', 'https://2130706434/']) {
      expect(urlProblem(url, hosts), url).toMatch(/private or local address/);
    }
    expect(isPrivateAddress('8.8.8.8')).toBe(false);
    expect(isPrivateAddress('2606:4700::1111')).toBe(false);
    expect(isPrivateAddress('100.64.1.1')).toBe(true);
  });
});

describe('the admin API', () => {
  it('creates a webhook with its whsec_ secret shown once, lists, changes and deletes it', async () => {
    const orgId = await server.createOrg('hooks');
    const admin = await server.createUser(orgId, ['done-admin']);
    const created = await register(admin, { events: ['job.failed', 'job.failed'], description: 'Infection prevention' });
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(created).toMatchObject({ events: ['job.failed'], enabled: true, description: 'Infection prevention', last_delivery: null });

    const listed = await server.request('GET', '/api/webhooks', { token: admin.token });
    expect(JSON.stringify(listed.body)).not.toContain(created.secret);
    expect(WebhookList.parse(listed.body).data.map((webhook) => webhook.id)).toEqual([created.id]);

    const changed = await server.request('PATCH', `/api/webhooks/${created.id}`, {
      token: admin.token,
      body: { enabled: false, events: ['log.created', 'delivery.delivered'] },
    });
    expect(changed.status).toBe(200);
    expect(Webhook.parse(changed.body)).toMatchObject({ url: created.url, enabled: false, events: ['log.created', 'delivery.delivered'], description: 'Infection prevention' });
    expect(JSON.stringify(changed.body)).not.toContain(created.secret);
    // A field left out stays as it is (no default of the create applies to a change).
    const described = await server.request('PATCH', `/api/webhooks/${created.id}`, { token: admin.token, body: { description: 'IPC team' } });
    expect(Webhook.parse(described.body)).toMatchObject({ enabled: false, events: ['log.created', 'delivery.delivered'], description: 'IPC team' });

    const deleted = await server.request('DELETE', `/api/webhooks/${created.id}`, { token: admin.token });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ data: { [created.id]: true } });
    expect(await list(admin)).toEqual([]);
    expect((await server.request('DELETE', `/api/webhooks/${created.id}`, { token: admin.token })).status).toBe(404);
  });

  it('refuses bad URLs and events with a 400 naming the field, and writes nothing', async () => {
    const orgId = await server.createOrg('hooks');
    const admin = await server.createUser(orgId, ['done-admin']);
    const kept = await register(admin);
    const bad: { body: Record<string, unknown>; field: string; message?: RegExp }[] = [
      { body: { url: 'http://hooks.example.com/uvd', events: ['log.created'] }, field: 'url', message: /https URL/ },
      { body: { url: 'https://10.0.0.7/hook', events: ['log.created'] }, field: 'url', message: /private or local address/ },
      { body: { url: 'https://localhost/hook', events: ['log.created'] }, field: 'url', message: /private or local address/ },
      { body: { url: 'not a url', events: ['log.created'] }, field: 'url' },
      { body: { url: 'https://hooks.example.com/\u0000', events: ['log.created'] }, field: 'url' },
      { body: { url: `https://hooks.example.com/${'a'.repeat(2001)}`, events: ['log.created'] }, field: 'url' },
      { body: { url: 'https://hooks.example.com/uvd', events: [] }, field: 'events', message: /at least one of/ },
      { body: { url: 'https://hooks.example.com/uvd', events: ['job.started'] }, field: 'events.0' },
      { body: { url: 'https://hooks.example.com/uvd' }, field: 'events' },
      { body: { url: 'https://hooks.example.com/uvd', events: ['log.created'], description: 'x'.repeat(201) }, field: 'description' },
    ];
    for (const { body, field, message } of bad) {
      const response = await server.request('POST', '/api/webhooks', { token: admin.token, body });
      expect(response.status, JSON.stringify(body)).toBe(400);
      const error = ApiError.parse(response.body);
      expect(error.message, JSON.stringify(body)).toContain(`"${field}"`);
      if (message) expect(error.message).toMatch(message);
    }
    const patch = await server.request('PATCH', `/api/webhooks/${kept.id}`, { token: admin.token, body: { url: 'http://hooks.example.com/x' } });
    expect(patch.status).toBe(400);
    expect(ApiError.parse(patch.body).message).toContain('"url"');
    expect((await server.request('PATCH', `/api/webhooks/${kept.id}`, { token: admin.token, body: { events: [] } })).status).toBe(400);
    expect((await server.request('PATCH', '/api/webhooks/not-a-uuid', { token: admin.token, body: {} })).status).toBe(400);
    const rows = await server.context.db.select().from(webhooks).where(eq(webhooks.orgId, orgId));
    expect(rows.map((row) => ({ id: row.id, url: row.url, events: row.events }))).toEqual([{ id: kept.id, url: kept.url, events: kept.events }]);
  });

  it("is for the organization's admins only; another organization's webhook is 404 and never listed", async () => {
    const orgId = await server.createOrg('hooks');
    const groupId = await server.createGroup(orgId);
    const admin = await server.createUser(orgId, ['done-admin']);
    const operator = await server.createUser(orgId, ['done-teleoperator'], { groupIds: [groupId] });
    const otherOrg = await server.createOrg('hooks-other');
    const otherAdmin = await server.createUser(otherOrg, ['done-admin']);
    const webhook = await register(admin);

    expect((await server.request('GET', '/api/webhooks', { token: operator.token })).status).toBe(403);
    expect((await server.request('POST', '/api/webhooks', { token: operator.token, body: { url: receiver.url('x'), events: ['log.created'] } })).status).toBe(403);
    expect((await server.request('POST', `/api/webhooks/${webhook.id}/test`, { token: operator.token })).status).toBe(403);
    expect((await server.request('GET', '/api/webhooks')).status).toBe(401);

    expect(await list(otherAdmin)).toEqual([]);
    expect((await server.request('PATCH', `/api/webhooks/${webhook.id}`, { token: otherAdmin.token, body: { enabled: false } })).status).toBe(404);
    expect((await server.request('DELETE', `/api/webhooks/${webhook.id}`, { token: otherAdmin.token })).status).toBe(404);
    expect((await server.request('POST', `/api/webhooks/${webhook.id}/test`, { token: otherAdmin.token })).status).toBe(404);
    const [row] = await server.context.db.select().from(webhooks).where(eq(webhooks.id, webhook.id));
    expect(row?.enabled).toBe(true);
    expect(await deliveryRows(webhook.id)).toEqual([]);
  });
});

describe('sending', () => {
  it('sends a signed test event that the library and README.md verify, and lists it as the last delivery', async () => {
    const orgId = await server.createOrg('hooks');
    const admin = await server.createUser(orgId, ['done-admin']);
    const webhook = await register(admin, { events: ['job.failed', 'log.created'], enabled: false });
    const queued = await server.request('POST', `/api/webhooks/${webhook.id}/test`, { token: admin.token });
    expect(queued.status).toBe(202);
    expect(queued.body).toEqual({ queued: true });
    await receiver.waitFor(() => to(webhook.path).length === 1);
    const [test] = to(webhook.path);
    expect(test).toMatchObject({ verifiedByLibrary: true, verifiedByHand: true, answered: 200 });
    expect(test?.payload).toMatchObject({ type: 'job.failed', data: { test: true } });
    expect(Math.abs(Number(test?.timestamp) * 1000 - Date.now())).toBeLessThan(60_000);
    expect(test?.signature).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    // A wrong secret does not verify: the check is real.
    receiver.expectSecret(webhook.path, 'whsec_' + Buffer.alloc(32, 1).toString('base64'));
    await server.request('POST', `/api/webhooks/${webhook.id}/test`, { token: admin.token });
    await receiver.waitFor(() => to(webhook.path).length === 2);
    expect(to(webhook.path)[1]).toMatchObject({ verifiedByLibrary: false, verifiedByHand: false });

    const [listed] = await waitUntil(async () => {
      const webhooks = await list(admin);
      return webhooks[0]?.last_delivery?.status === 'sent' ? webhooks : undefined;
    }, 5000, 'the last delivery recorded');
    expect(listed?.last_delivery).toMatchObject({ status: 'sent', http_status: 200 });
  });

  it('retries a receiver answering 500 and 429 until it answers 200, with the same webhook-id, each attempt signed anew', async () => {
    const orgId = await server.createOrg('hooks');
    const admin = await server.createUser(orgId, ['done-admin']);
    const webhook = await register(admin);
    receiver.answer(webhook.path, [500, 429]);
    await server.request('POST', `/api/webhooks/${webhook.id}/test`, { token: admin.token });
    await receiver.waitFor(() => receiver.delivered(webhook.path).length === 1);
    const attempts = to(webhook.path);
    expect(attempts.map((attempt) => attempt.answered)).toEqual([500, 429, 200]);
    expect(new Set(attempts.map((attempt) => attempt.id)).size).toBe(1);
    expect(attempts.every((attempt) => attempt.verifiedByLibrary && attempt.verifiedByHand)).toBe(true);
    expect(new Set(attempts.map((attempt) => attempt.body)).size).toBe(1);
    const [row] = await waitUntil(async () => {
      const rows = await deliveryRows(webhook.id);
      return rows[0]?.status === 'sent' ? rows : undefined;
    }, 5000, 'the delivery recorded as sent');
    expect(row).toMatchObject({ id: attempts[0]?.id, attempts: 3, lastHttpStatus: 200 });
  });

  it('retries a receiver that does not answer (connection refused), and gives up after WEBHOOK_GIVE_UP_SECONDS', async () => {
    const orgId = await server.createOrg('hooks');
    const admin = await server.createUser(orgId, ['done-admin']);
    const webhook = await register(admin);
    receiver.answer(webhook.path, Array.from({ length: 1000 }, () => 503));
    const started = Date.now();
    await server.request('POST', `/api/webhooks/${webhook.id}/test`, { token: admin.token });
    const [failed] = await waitUntil(async () => {
      const rows = await deliveryRows(webhook.id);
      return rows[0]?.status === 'failed' ? rows : undefined;
    }, GIVE_UP_MS + 10_000, 'the delivery given up');
    // Tried until the deadline (the event's time + GIVE_UP_MS, after `started`), not given up when the next wait would pass it.
    expect(Date.now() - started).toBeGreaterThanOrEqual(GIVE_UP_MS);
    expect(failed?.attempts).toBeGreaterThan(2);
    expect(failed?.lastError).toMatch(/given up after \d+ attempts: answered 503/);
    const count = to(webhook.path).length;
    expect(count).toBe(failed?.attempts);
    expect((await list(admin))[0]?.last_delivery).toMatchObject({ status: 'failed', http_status: 503 });

    // Nobody listening: a network error is retried like a 5xx.
    const closed = await register(admin, { path: 'unused' });
    await server.context.db.update(webhooks).set({ url: 'http://127.0.0.1:1/nobody' }).where(eq(webhooks.id, closed.id));
    await server.request('POST', `/api/webhooks/${closed.id}/test`, { token: admin.token });
    const [retrying] = await waitUntil(async () => {
      const rows = await deliveryRows(closed.id);
      return (rows[0]?.attempts ?? 0) >= 2 ? rows : undefined;
    }, 5000, 'two attempts to a closed port');
    expect(retrying?.lastHttpStatus).toBeNull();
    expect(retrying?.lastError).toMatch(/ECONNREFUSED/);
  });

  it('refuses, at sending, a host name that resolves to a private address (a URL saved before the rules, or rebinding DNS)', async () => {
    const orgId = await server.createOrg('hooks');
    const admin = await server.createUser(orgId, ['done-admin']);
    const webhook = await register(admin);
    // "localhost" resolves to 127.0.0.1, which WEBHOOK_HOSTS allows only by that address, not by this name.
    const port = new URL(webhook.url).port;
    await server.context.db.update(webhooks).set({ url: `https://localhost:${port}/${webhook.path}` }).where(eq(webhooks.id, webhook.id));
    await server.request('POST', `/api/webhooks/${webhook.id}/test`, { token: admin.token });
    const [failed] = await waitUntil(async () => {
      const rows = await deliveryRows(webhook.id);
      return rows[0]?.status === 'failed' ? rows : undefined;
    }, 5000, 'the delivery refused');
    expect(failed?.lastError).toMatch(/localhost resolves to (127\.0\.0\.1|::1), a private or local address/);
    expect(failed?.attempts).toBe(1);
    expect(to(webhook.path)).toEqual([]);
  });
});

describe('events', () => {
  let w: ExecutionWorld;
  beforeAll(async () => {
    w = await executionWorld(server);
  });

  const runJob = async (options: { unreachable?: string[] } = {}): Promise<Job> => {
    await Promise.all(sims.splice(0).map((sim) => sim.stop()));
    await playWorldRobot(server, w, sims, options.unreachable ? { unreachableNodes: options.unreachable } : {});
    const job = await createJobFor(server, w);
    const start = await server.request('POST', `/api/command/job/${job.job_id}`, { token: w.operator.token, query: { command: 'start' } });
    expect(start.status).toBe(200);
    await waitUntil(async () => {
      const current = Job.parse((await server.request('GET', `/api/jobs/job/${job.job_id}`, { token: w.admin.token })).body);
      return current.status === 'Completed' ? true : undefined;
    }, 30_000, 'the job to end');
    return job;
  };

  it('a job run by a simulated robot yields log.created with its log entry; job.failed only when it failed; never to a disabled webhook or another organization', async () => {
    const all = await register(w.admin);
    const failedOnly = await register(w.admin, { events: ['job.failed'] });
    const disabled = await register(w.admin, { enabled: false });
    const disabledLater = await register(w.admin);
    expect((await server.request('PATCH', `/api/webhooks/${disabledLater.id}`, { token: w.admin.token, body: { enabled: false } })).status).toBe(200);
    const otherOrg = await server.createOrg('hooks-other');
    const foreign = await register(await server.createUser(otherOrg, ['done-admin']));

    const completed = await runJob();
    await receiver.waitFor(() => receiver.delivered(all.path).length === 1, 15_000);
    const [created] = receiver.delivered(all.path);
    expect(created).toMatchObject({ verifiedByLibrary: true, verifiedByHand: true });
    expect(created?.payload?.type).toBe('log.created');
    const entry = LogEntry.parse(created?.payload?.data);
    expect(entry).toMatchObject({ job_id: completed.job_id, completion_status: 'completed', robot_id: w.robotId, job_name: 'Ward round' });
    expect(entry.attributes.rooms.map((room) => room.state)).toEqual(['done', 'done', 'done']);
    expect(created?.payload?.data).not.toHaveProperty('trajectory');
    // The same entry as the API's.
    const log = LogEntry.parse((await server.request('GET', `/api/log/${completed.job_id}`, { token: w.admin.token })).body);
    expect(entry).toEqual({ ...log, trajectory: undefined });

    const failed = await runJob({ unreachable: [w.roomIds[1] ?? ''] });
    await receiver.waitFor(() => receiver.delivered(all.path).length === 3 && receiver.delivered(failedOnly.path).length === 1, 15_000);
    const types = receiver.delivered(all.path).map((request) => `${request.payload?.type} ${String(request.payload?.data.job_id)}`);
    expect(types.slice(1).sort()).toEqual([`job.failed ${failed.job_id}`, `log.created ${failed.job_id}`]);
    const jobFailed = receiver.delivered(failedOnly.path)[0];
    expect(jobFailed?.payload?.type).toBe('job.failed');
    expect(LogEntry.parse(jobFailed?.payload?.data)).toMatchObject({ job_id: failed.job_id, completion_status: 'failed' });
    expect(receiver.delivered(all.path).every((request) => request.verifiedByLibrary && request.verifiedByHand)).toBe(true);
    expect(new Set(receiver.delivered(all.path).map((request) => request.id)).size).toBe(3);

    // Give a stray delivery the time to show up before judging.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(to(disabled.path)).toEqual([]);
    expect(to(disabledLater.path)).toEqual([]);
    expect(to(foreign.path)).toEqual([]);
    expect(await deliveryRows(disabled.id)).toEqual([]);
  });

  it('a delivery reaching Delivered yields delivery.delivered once, with the delivery', async () => {
    const orgId = await server.createOrg('hooks-dlv');
    const admin = await server.createUser(orgId, ['done-admin']);
    const site = await createSite(server.context.db, orgId, { roomsPerFloor: 2, robots: 1 });
    const [pickupRoomId = '', dropoffRoomId = ''] = site.floors[0]?.roomIds ?? [];
    const webhook = await register(admin, { events: ['delivery.delivered'] });
    const queued = await queueDelivery(server, orgId, { pickupRoomId, dropoffRoomId });
    // As the hand-off does it: the status written and delivery_change published in one transaction; then a later
    // change of the Delivered delivery (publishing it again) is no second event.
    for (let i = 0; i < 2; i += 1) {
      await server.context.db.transaction(async (tx) => {
        const locked = await lockDelivery(tx, orgId, queued.id);
        if (!locked) throw new Error('delivery missing');
        await updateDelivery(server.context, tx, locked, { status: DeliveryStatus.delivered, deliveredAt: new Date(), notes: `change ${i}` });
      });
    }
    await receiver.waitFor(() => receiver.delivered(webhook.path).length === 1);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(typesTo(webhook.path)).toEqual(['delivery.delivered']);
    const [delivered] = receiver.delivered(webhook.path);
    expect(delivered?.verifiedByLibrary).toBe(true);
    expect(delivered?.payload?.data).toMatchObject({ delivery_id: queued.id, status: DeliveryStatus.delivered, pickup: { room_id: pickupRoomId } });
    expect(delivered?.payload?.data).not.toHaveProperty('pin');
    const rows = await server.context.db
      .select()
      .from(webhookDeliveries)
      .where(and(eq(webhookDeliveries.webhookId, webhook.id), eq(webhookDeliveries.eventType, 'delivery.delivered')));
    expect(rows).toHaveLength(1);
  });
});
