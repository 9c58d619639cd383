import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, DataFlag } from '@uvd/contracts';
import { deviceSubscriptions } from '../db/schema.ts';
import { startRouteTestServer, type TestServer } from '../testing/harness.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startRouteTestServer();
});
afterAll(async () => {
  await server.close();
});

const deviceToken = () => `fcm-${crypto.randomUUID()}`;

const subscriptionsOf = (token: string) =>
  server.context.db
    .select({ userId: deviceSubscriptions.userId, topic: deviceSubscriptions.topic, orgId: deviceSubscriptions.orgId })
    .from(deviceSubscriptions)
    .where(eq(deviceSubscriptions.token, token))
    .orderBy(deviceSubscriptions.topic);

describe('POST /api/subscribe', () => {
  it("stores the device's subscriptions to the user topic and the realm topic, once each", async () => {
    const org = await server.createOrg();
    const user = await server.createUser(org, ['done-teleoperator']);
    const token = deviceToken();
    for (const topic of [user.id, org, org]) {
      const response = await server.request('POST', '/api/subscribe', { token: user.token, body: { token, topic } });
      expect(response.status).toBe(200);
      expect(DataFlag.parse(response.body)).toEqual({ data: true });
    }
    const rows = await subscriptionsOf(token);
    expect(rows).toHaveLength(2);
    expect(rows.map((row) => row.topic).sort()).toEqual([org, user.id].sort());
    expect(rows.every((row) => row.userId === user.id && row.orgId === org)).toBe(true);
  });

  it('moves a device token handed to another user of the organization', async () => {
    const org = await server.createOrg();
    const first = await server.createUser(org, ['done-teleoperator']);
    const second = await server.createUser(org, ['done-teleoperator']);
    const token = deviceToken();
    await server.request('POST', '/api/subscribe', { token: first.token, body: { token, topic: org } });
    await server.request('POST', '/api/subscribe', { token: second.token, body: { token, topic: org } });
    expect(await subscriptionsOf(token)).toEqual([{ userId: second.id, topic: org, orgId: org }]);
  });

  it('answers 400 naming the field for a missing token or topic', async () => {
    const org = await server.createOrg();
    const user = await server.createUser(org, ['done-teleoperator']);
    const noToken = await server.request('POST', '/api/subscribe', { token: user.token, body: { token: ' ', topic: org } });
    expect(noToken.status).toBe(400);
    expect(ApiError.parse(noToken.body).message).toBe('Invalid body field "token": A device token is required');
    const noTopic = await server.request('POST', '/api/subscribe', { token: user.token, body: { token: deviceToken() } });
    expect(noTopic.status).toBe(400);
    expect(ApiError.parse(noTopic.body).message).toContain('"topic"');
  });

  it('answers 401 without a token', async () => {
    expect((await server.request('POST', '/api/subscribe', { body: { token: deviceToken(), topic: 'x' } })).status).toBe(401);
  });

  it("answers 403 for another user's topic or another organization's topic", async () => {
    const org = await server.createOrg();
    const user = await server.createUser(org, ['done-admin']);
    const colleague = await server.createUser(org, ['done-teleoperator']);
    const otherOrg = await server.createOrg();
    const token = deviceToken();
    for (const topic of [colleague.id, otherOrg]) {
      const response = await server.request('POST', '/api/subscribe', { token: user.token, body: { token, topic } });
      expect(response.status).toBe(403);
      expect(ApiError.parse(response.body).error).toBe('forbidden');
    }
    expect(await subscriptionsOf(token)).toEqual([]);
  });
});

describe('POST /api/unsubscribe', () => {
  it('removes that one subscription of the caller and keeps the other', async () => {
    const org = await server.createOrg();
    const user = await server.createUser(org, ['done-teleoperator']);
    const token = deviceToken();
    await server.request('POST', '/api/subscribe', { token: user.token, body: { token, topic: user.id } });
    await server.request('POST', '/api/subscribe', { token: user.token, body: { token, topic: org } });
    const response = await server.request('POST', '/api/unsubscribe', { token: user.token, body: { token, topic: user.id } });
    expect(response.status).toBe(200);
    expect(DataFlag.parse(response.body)).toEqual({ data: true });
    expect((await subscriptionsOf(token)).map((row) => row.topic)).toEqual([org]);
    const again = await server.request('POST', '/api/unsubscribe', { token: user.token, body: { token, topic: user.id } });
    expect(again.status).toBe(200);
  });

  it("leaves another user's subscription alone", async () => {
    const org = await server.createOrg();
    const owner = await server.createUser(org, ['done-teleoperator']);
    const other = await server.createUser(org, ['done-admin']);
    const token = deviceToken();
    await server.request('POST', '/api/subscribe', { token: owner.token, body: { token, topic: org } });
    await server.request('POST', '/api/unsubscribe', { token: other.token, body: { token, topic: org } });
    expect(await subscriptionsOf(token)).toHaveLength(1);
  });

  it('answers 400 naming the field and 401 without a token', async () => {
    const user = await server.createUser(await server.createOrg(), ['done-teleoperator']);
    const bad = await server.request('POST', '/api/unsubscribe', { token: user.token, body: { topic: user.id } });
    expect(bad.status).toBe(400);
    expect(ApiError.parse(bad.body).message).toContain('"token"');
    expect((await server.request('POST', '/api/unsubscribe', { body: { token: 'x', topic: 'y' } })).status).toBe(401);
  });
});

describe('DELETE /api/remove', () => {
  it("removes every subscription of the caller's device token", async () => {
    const org = await server.createOrg();
    const user = await server.createUser(org, ['done-teleoperator']);
    const token = deviceToken();
    const kept = deviceToken();
    await server.request('POST', '/api/subscribe', { token: user.token, body: { token, topic: user.id } });
    await server.request('POST', '/api/subscribe', { token: user.token, body: { token, topic: org } });
    await server.request('POST', '/api/subscribe', { token: user.token, body: { token: kept, topic: org } });
    const response = await server.request('DELETE', '/api/remove', { token: user.token, body: { deviceToken: token, userId: user.id } });
    expect(response.status).toBe(200);
    expect(DataFlag.parse(response.body)).toEqual({ data: true });
    expect(await subscriptionsOf(token)).toEqual([]);
    expect(await subscriptionsOf(kept)).toHaveLength(1);
  });

  it("lets an admin remove another user's device", async () => {
    const org = await server.createOrg();
    const user = await server.createUser(org, ['done-teleoperator']);
    const admin = await server.createUser(org, ['done-admin']);
    const token = deviceToken();
    await server.request('POST', '/api/subscribe', { token: user.token, body: { token, topic: org } });
    const response = await server.request('DELETE', '/api/remove', { token: admin.token, body: { deviceToken: token, userId: user.id } });
    expect(response.status).toBe(200);
    expect(await subscriptionsOf(token)).toEqual([]);
  });

  it('answers 400 naming the field for a missing device token or a malformed user id', async () => {
    const user = await server.createUser(await server.createOrg(), ['done-teleoperator']);
    const noDevice = await server.request('DELETE', '/api/remove', { token: user.token, body: { userId: user.id } });
    expect(noDevice.status).toBe(400);
    expect(ApiError.parse(noDevice.body).message).toContain('"deviceToken"');
    const badUser = await server.request('DELETE', '/api/remove', { token: user.token, body: { deviceToken: deviceToken(), userId: 'me' } });
    expect(badUser.status).toBe(400);
    expect(ApiError.parse(badUser.body).message).toContain('"userId"');
  });

  it("answers 401 without a token and 403 when a teleoperator names another user's device", async () => {
    const org = await server.createOrg();
    const user = await server.createUser(org, ['done-teleoperator']);
    const colleague = await server.createUser(org, ['done-teleoperator']);
    const token = deviceToken();
    await server.request('POST', '/api/subscribe', { token: colleague.token, body: { token, topic: org } });
    expect((await server.request('DELETE', '/api/remove', { body: { deviceToken: token, userId: user.id } })).status).toBe(401);
    const response = await server.request('DELETE', '/api/remove', { token: user.token, body: { deviceToken: token, userId: colleague.id } });
    expect(response.status).toBe(403);
    expect(await subscriptionsOf(token)).toHaveLength(1);
  });

  it("answers 404 for another organization's user, whatever the caller's role", async () => {
    const foreignOrg = await server.createOrg();
    const foreign = await server.createUser(foreignOrg, ['done-teleoperator']);
    const token = deviceToken();
    await server.request('POST', '/api/subscribe', { token: foreign.token, body: { token, topic: foreignOrg } });
    const org = await server.createOrg();
    for (const roles of [['done-admin'], ['done-teleoperator']] as const) {
      const caller = await server.createUser(org, [...roles]);
      const response = await server.request('DELETE', '/api/remove', { token: caller.token, body: { deviceToken: token, userId: foreign.id } });
      expect(response.status).toBe(404);
    }
    expect(await subscriptionsOf(token)).toHaveLength(1);
  });
});
