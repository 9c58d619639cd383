/**
 * Brute-force detection and the token endpoint's rate limit, on a server with small thresholds: repeated
 * failures refuse a user's logins for a while (answering exactly like a wrong password), a success resets the
 * count, and too many password grants from one address answer 429.
 */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OAuthError, TokenResponse } from '@uvd/contracts';
import { users } from '../db/schema.ts';
import { startRouteTestServer, type TestServer, type TestUser } from '../testing/harness.ts';
import { lockAfter } from './brute-force.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startRouteTestServer({
    bruteForce: { failureFactor: 3, waitIncrementSeconds: 60, maxWaitSeconds: 900 },
  });
});
afterAll(async () => {
  await server.close();
});

const login = (user: Pick<TestUser, 'orgId' | 'username'>, password: string, headers: Record<string, string> = {}) =>
  server.request('POST', `/idp/realms/${user.orgId}/protocol/openid-connect/token`, {
    form: { grant_type: 'password', client_id: 'uvd-console', username: user.username, password, scope: 'openid' },
    headers,
  });

const refused = { status: 400, body: { error: 'invalid_grant', error_description: 'Invalid user credentials' } };
const outcome = (response: { status: number; body: unknown }) => ({ status: response.status, body: response.body });

describe('brute-force detection', () => {
  it('refuses even the right password after repeated failures, with the same answer as a wrong one', async () => {
    const orgId = await server.createOrg();
    const user = await server.createUser(orgId, ['done-teleoperator']);
    for (let i = 0; i < 3; i++) expect(outcome(await login(user, 'wrong'))).toEqual(refused);
    expect(outcome(await login(user, user.password))).toEqual(refused);

    const [row] = await server.context.db.select().from(users).where(eq(users.id, user.id));
    expect(row?.failedLogins).toBe(3);
    const waitMs = (row?.lockedUntil?.getTime() ?? 0) - Date.now();
    expect(waitMs).toBeGreaterThan(50_000);
    expect(waitMs).toBeLessThanOrEqual(60_000);

    // Attempts while refused do not stretch the wait.
    await login(user, 'wrong');
    const [after] = await server.context.db.select().from(users).where(eq(users.id, user.id));
    expect(after?.failedLogins).toBe(3);

    // Once the wait is over the right password works again and the count starts afresh.
    await server.context.db.update(users).set({ lockedUntil: new Date(Date.now() - 1000) }).where(eq(users.id, user.id));
    const response = await login(user, user.password);
    expect(response.status).toBe(200);
    TokenResponse.parse(response.body);
    const [reset] = await server.context.db.select().from(users).where(eq(users.id, user.id));
    expect(reset).toMatchObject({ failedLogins: 0, lockedUntil: null });
  });

  it('a success before the threshold resets the count', async () => {
    const orgId = await server.createOrg();
    const user = await server.createUser(orgId, ['done-teleoperator']);
    for (let i = 0; i < 2; i++) await login(user, 'wrong');
    expect((await login(user, user.password)).status).toBe(200);
    for (let i = 0; i < 2; i++) await login(user, 'wrong');
    expect((await login(user, user.password)).status).toBe(200);
  });

  it('locks only the attacked user', async () => {
    const orgId = await server.createOrg();
    const victim = await server.createUser(orgId, ['done-admin']);
    const colleague = await server.createUser(orgId, ['done-admin']);
    for (let i = 0; i < 4; i++) await login(victim, 'wrong');
    expect((await login(colleague, colleague.password)).status).toBe(200);
  });

  it('waits double from the increment up to the maximum', () => {
    const policy = { failureFactor: 5, waitIncrementSeconds: 60, maxWaitSeconds: 900 };
    const now = new Date(0);
    const wait = (failures: number) => (lockAfter(failures, policy, now)?.getTime() ?? 0) / 1000;
    expect([4, 5, 6, 7, 8, 9, 20].map(wait)).toEqual([0, 60, 120, 240, 480, 900, 900]);
  });
});

describe('token endpoint rate limit', () => {
  let limited: TestServer;
  beforeAll(async () => {
    limited = await startRouteTestServer({ tokenRateLimitPerMinute: 3 });
  });
  afterAll(async () => {
    await limited.close();
  });

  it('answers 429 after too many password grants from one address, but lets refreshes through', async () => {
    const orgId = await limited.createOrg();
    // createUser's own login is the first of the three allowed.
    const user = await limited.createUser(orgId, ['done-teleoperator']);
    const path = `/idp/realms/${orgId}/protocol/openid-connect/token`;
    const form = { grant_type: 'password', client_id: 'uvd-console', username: user.username, password: user.password };
    const second = await limited.request('POST', path, { form });
    expect(second.status).toBe(200);
    expect((await limited.request('POST', path, { form: { ...form, password: 'wrong' } })).status).toBe(400);

    const blocked = await limited.request('POST', path, { form });
    expect(blocked.status).toBe(429);
    expect(OAuthError.parse(blocked.body).error).toBe('rate_limited');
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);

    const refreshToken = TokenResponse.parse(second.body).refresh_token;
    const refreshed = await limited.request('POST', path, {
      form: { grant_type: 'refresh_token', client_id: 'uvd-console', refresh_token: refreshToken },
    });
    expect(refreshed.status).toBe(200);
  });
});
