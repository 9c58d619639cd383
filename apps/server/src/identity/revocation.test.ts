import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, OAuthError, TokenResponse } from '@uvd/contracts';
import { buildApp, type App } from '../app.ts';
import { openDatabase, type Database } from '../db/client.ts';
import { pgliteImage } from '../db/scratch-database.ts';
import { groups, organizations, users } from '../db/schema.ts';
import { startRouteTestServer, type TestServer, type TestUser } from '../testing/harness.ts';
import { openSse, type SseClient } from '../testing/live-fixtures.ts';
import { testEngine } from '../testing/test-database.ts';
import { STREAM_RECHECK_MS } from './revocation.ts';

const STREAM = '/api/jobs/v2/jobs/stream';
/** Generous for a loaded 2-core machine; a closed stream ends in milliseconds. */
const ENDS_WITHIN_MS = 10_000;

let server: TestServer;
const clients: SseClient[] = [];
beforeAll(async () => {
  server = await startRouteTestServer();
});
afterAll(async () => {
  for (const client of clients) client.close();
  await server.close();
});

const within = <T>(promise: Promise<T>, ms: number, what: string): Promise<T> =>
  Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      setTimeout(() => {
        reject(new Error(`${what}: not within ${ms} ms`));
      }, ms).unref();
    }),
  ]);

const stream = async (target: TestServer | string, user: TestUser) => {
  const client = await openSse(typeof target === 'string' ? target : target.url, STREAM, { token: user.token });
  clients.push(client);
  return client;
};

/** What an admin can do: read the users and create a group (201), or is refused (401). */
async function adminCalls(user: TestUser, url = server.url) {
  const headers = { authorization: `Bearer ${user.token}`, 'content-type': 'application/json' };
  const list = await fetch(`${url}/api/user/users`, { headers });
  const create = await fetch(`${url}/api/group/create`, { method: 'POST', headers, body: JSON.stringify({ name: `g-${randomUUID()}` }) });
  return { list: list.status, create: create.status, createBody: await create.json() };
}

async function passwordGrant(user: TestUser): Promise<TokenResponse> {
  const response = await server.request('POST', `/idp/realms/${user.orgId}/protocol/openid-connect/token`, {
    form: { grant_type: 'password', client_id: server.context.config.clientId, username: user.username, password: user.password },
  });
  expect(response.status).toBe(200);
  return TokenResponse.parse(response.body);
}

const refresh = (user: TestUser, refreshToken: string) =>
  server.request('POST', `/idp/realms/${user.orgId}/protocol/openid-connect/token`, {
    form: { grant_type: 'refresh_token', client_id: server.context.config.clientId, refresh_token: refreshToken },
  });

const setEnabled = (user: TestUser, enabled: boolean) => server.context.db.update(users).set({ enabled }).where(eq(users.id, user.id));

describe('access of a deleted or disabled user ends at once', () => {
  it("refuses a deleted admin's token with 401 on every call, while other users' tokens keep working", async () => {
    const org = await server.createOrg();
    const [deleted, deleter, operator] = await Promise.all([
      server.createUser(org, ['done-admin']),
      server.createUser(org, ['done-admin']),
      server.createUser(org, ['done-teleoperator']),
    ]);
    expect(await adminCalls(deleted)).toMatchObject({ list: 200, create: 201 });

    expect((await server.request('DELETE', `/api/user/delete/${deleted.id}`, { token: deleter.token })).status).toBe(200);
    const after = await adminCalls(deleted);
    expect(after).toMatchObject({ list: 401, create: 401 });
    expect(ApiError.parse(after.createBody).error).toBe('unauthorized');
    expect(await server.context.db.select().from(groups).where(eq(groups.orgId, org))).toHaveLength(1);

    expect(await adminCalls(deleter)).toMatchObject({ list: 200, create: 201 });
    expect((await server.request('GET', '/api/user/my-profile', { token: operator.token })).status).toBe(200);
  });

  it("refuses a disabled user's token with 401 for as long as the user stays disabled", async () => {
    const org = await server.createOrg();
    const [admin, other] = await Promise.all([server.createUser(org, ['done-admin']), server.createUser(org, ['done-admin'])]);
    await setEnabled(admin, false);
    expect(await adminCalls(admin)).toMatchObject({ list: 401, create: 401 });
    expect((await server.request('GET', '/api/user/my-profile', { token: admin.token })).status).toBe(401);
    expect(await adminCalls(other)).toMatchObject({ list: 200, create: 201 });
    // A check of the user as they are now, not a list of revoked tokens: enabled again, the token works again.
    await setEnabled(admin, true);
    expect(await adminCalls(admin)).toMatchObject({ list: 200, create: 201 });
  });

  it('refuses the refresh tokens of a deleted or a disabled user', async () => {
    const org = await server.createOrg();
    const [deleted, disabled, admin] = await Promise.all([
      server.createUser(org, ['done-teleoperator']),
      server.createUser(org, ['done-teleoperator']),
      server.createUser(org, ['done-admin']),
    ]);
    const [deletedTokens, disabledTokens, adminTokens] = await Promise.all([passwordGrant(deleted), passwordGrant(disabled), passwordGrant(admin)]);
    expect((await server.request('DELETE', `/api/user/delete/${deleted.id}`, { token: admin.token })).status).toBe(200);
    await setEnabled(disabled, false);
    for (const [user, tokens] of [
      [deleted, deletedTokens],
      [disabled, disabledTokens],
    ] as const) {
      const response = await refresh(user, tokens.refresh_token);
      expect(response.status).toBe(400);
      expect(OAuthError.parse(response.body).error).toBe('invalid_grant');
    }
    expect((await refresh(admin, adminTokens.refresh_token)).status).toBe(200);
  });

  it("closes the open streams of a deleted user and refuses their reconnect; other users' streams stay open", async () => {
    const org = await server.createOrg();
    const [deleted, deleter] = await Promise.all([server.createUser(org, ['done-admin']), server.createUser(org, ['done-admin'])]);
    const [first, second, bystander] = await Promise.all([stream(server, deleted), stream(server, deleted), stream(server, deleter)]);
    expect([first.status, second.status, bystander.status]).toEqual([200, 200, 200]);

    expect((await server.request('DELETE', `/api/user/delete/${deleted.id}`, { token: deleter.token })).status).toBe(200);
    await within(Promise.all([first.ended, second.ended]), ENDS_WITHIN_MS, "the deleted user's streams end");
    const again = await stream(server, deleted);
    expect(again.status).toBe(401);

    // The bystander's stream still carries events.
    const jobId = randomUUID();
    await server.context.bus.publish({ orgId: org, stream: 'jobs', key: jobId, type: 'job_change', payload: { job_id: jobId, robot_id: randomUUID() } });
    expect((await bystander.nextEvent(ENDS_WITHIN_MS)).event).toBe('job_change');
  });

  it('closes the open stream of a user disabled in the database directly (no API call announces it)', async () => {
    const org = await server.createOrg();
    const user = await server.createUser(org, ['done-admin']);
    const client = await stream(server, user);
    expect(client.status).toBe(200);
    await setEnabled(user, false);
    // Found by the periodic check of the users with open streams (seconds), not by a notification.
    await within(client.ended, 3 * STREAM_RECHECK_MS, "the disabled user's stream ends");
    expect((await stream(server, user)).status).toBe(401);
  }, 40_000);
});

describe('with an external identity provider (IDP_ISSUER_BASE), whose users need no local row', () => {
  let external: App;
  let externalDatabase: Database;
  let externalUrl = '';
  let admin: TestUser;

  beforeAll(async () => {
    admin = await server.createUser(await server.createOrg(), ['done-admin']);
    // This test server's own provider plays the Keycloak; the second app trusts it and has its own database (in memory,
    // from the migrated image the test databases start from).
    externalDatabase = await openDatabase({ pgliteImage: await pgliteImage() });
    external = await buildApp({ config: { ...server.context.config, idpIssuerBase: `${server.url}/idp` }, database: externalDatabase });
    await external.app.listen({ port: 0, host: '127.0.0.1' });
    externalUrl = `http://127.0.0.1:${String((external.app.server.address() as AddressInfo).port)}`;
  });
  afterAll(async () => {
    await external.app.close();
    await externalDatabase.close();
  });

  it('accepts the token of a subject it has no row for, and refuses it once a local row says disabled', async () => {
    const org = admin.orgId;
    await externalDatabase.db.insert(organizations).values({ id: org, name: org });
    expect(await adminCalls(admin, externalUrl)).toMatchObject({ list: 200, create: 201 });
    const profile = await fetch(`${externalUrl}/api/user/my-profile`, { headers: { authorization: `Bearer ${admin.token}` } });
    expect(profile.status).toBe(200);

    await externalDatabase.db
      .insert(users)
      .values({ id: admin.id, orgId: org, username: admin.username, passwordHash: '-', roles: admin.roles, enabled: false });
    expect(await adminCalls(admin, externalUrl)).toMatchObject({ list: 401, create: 401 });
  });
});

// Two server processes on one PostgreSQL (docs/architecture.md#decisions): a deletion through one must end the streams on the other.
describe.skipIf(testEngine() !== 'postgres')('across server processes (needs TEST_DATABASE_URL)', () => {
  let databaseB: Database;
  let processB: App;
  let urlB = '';

  beforeAll(async () => {
    const url = server.testDatabase.url;
    if (!url) throw new Error('not on PostgreSQL');
    databaseB = await openDatabase({ databaseUrl: url });
    processB = await buildApp({ config: server.context.config, database: databaseB });
    await processB.app.listen({ port: 0, host: '127.0.0.1' });
    urlB = `http://127.0.0.1:${String((processB.app.server.address() as AddressInfo).port)}`;
  });
  afterAll(async () => {
    await processB.app.close();
    await databaseB.close();
  });

  it('closes at once on process B the stream of a user deleted through process A, and B refuses the token', async () => {
    const org = await server.createOrg();
    const [deleted, deleter] = await Promise.all([server.createUser(org, ['done-admin']), server.createUser(org, ['done-admin'])]);
    const onB = await stream(urlB, deleted);
    expect(onB.status).toBe(200);
    expect((await server.request('DELETE', `/api/user/delete/${deleted.id}`, { token: deleter.token })).status).toBe(200);
    // Well under the periodic check's interval: the notification, not the sweep, ends it.
    await within(onB.ended, STREAM_RECHECK_MS / 2, 'the stream on process B ends');
    expect(await adminCalls(deleted, urlB)).toMatchObject({ list: 401, create: 401 });
    expect(await adminCalls(deleter, urlB)).toMatchObject({ list: 200, create: 201 });
  });
});
