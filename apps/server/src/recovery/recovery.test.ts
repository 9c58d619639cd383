import { request as httpRequest } from 'node:http';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ApiError,
  AuditList,
  CaughtMail,
  MAIL_CATCHER_HEADER,
  PasswordResetDone,
  PushMessage,
  SessionUser,
  TokenResponse,
  type OAuthError,
} from '@uvd/contracts';
import { deviceSubscriptions, passwordResetTokens, pushDeliveries, users } from '../db/schema.ts';
import { expectStatus, until } from '../testing/assertions.ts';
import { startRouteTestServer, type TestServer, type TestUser } from '../testing/harness.ts';
import { FORGOT_LIMITS, FORGOT_MIN_RESPONSE_MS } from './routes.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startRouteTestServer();
});
afterAll(async () => {
  await server.close();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const emailOf = (user: TestUser) => `${user.username}@example.test`;

/** The mail the local catcher (a real SMTP server) received for `to`, newest first. */
async function mailTo(to: string): Promise<CaughtMail[]> {
  const response = await server.request('GET', '/api/dev/mail', { query: { to }, headers: { [MAIL_CATCHER_HEADER]: server.context.mail.catcherToken } });
  expectStatus(response, 200);
  return CaughtMail.array().parse((response.body as { data: unknown }).data);
}

const waitForMail = (to: string, count = 1) => until(() => mailTo(to), (mails) => mails.length >= count);

const forgot = (organization: string, email: string, headers: Record<string, string> = {}) =>
  server.request('POST', '/api/user/password/forgot', { body: { organization, email }, headers });

const linkToken = (mail: CaughtMail) => {
  const match = /\/auth\/reset-password\?token=([A-Za-z0-9_-]{43})/.exec(mail.text);
  if (!match?.[1]) throw new Error(`no reset link in: ${mail.text}`);
  return match[1];
};

const reset = (token: string, password: string) => server.request('POST', '/api/user/password/reset', { body: { token, password } });

const signIn = (user: { orgId: string; username: string }, password: string) =>
  server.request<TokenResponse | OAuthError>('POST', `/idp/realms/${user.orgId}/protocol/openid-connect/token`, {
    form: { grant_type: 'password', client_id: server.context.config.clientId, username: user.username, password, scope: 'openid' },
  });

async function tokensOf(user: TestUser, password = user.password): Promise<TokenResponse> {
  const response = await signIn(user, password);
  expect(response.status).toBe(200);
  return TokenResponse.parse(response.body);
}

const profile = (token: string) => server.request('GET', '/api/user/my-profile', { token });

/** Access tokens carry whole seconds (`iat`): a change one second later is unambiguously after them. */
const nextSecond = () => sleep(1100);

describe('forgot password', () => {
  it('answers 202 alike, in no less than the minimum time, for an account, an unknown address and an unknown organization', async () => {
    const org = await server.createOrg();
    const user = await server.createUser(org, ['done-teleoperator']);
    const cases = [
      [org, emailOf(user)],
      [org, 'nobody@example.test'],
      ['no-such-org', emailOf(user)],
    ] as const;
    const replies = [];
    for (const [organization, email] of cases) {
      const started = Date.now();
      const response = await forgot(organization, email, { 'x-forwarded-for': email });
      replies.push({ status: response.status, body: response.body, tookEnough: Date.now() - started >= FORGOT_MIN_RESPONSE_MS - 5 });
    }
    for (const reply of replies) expect(reply).toEqual({ status: 202, body: { status: 'accepted' }, tookEnough: true });
    // Only the real account got a link.
    const rows = await server.context.db.select().from(passwordResetTokens).where(eq(passwordResetTokens.orgId, org));
    expect(rows).toHaveLength(1);
    expect(rows[0]?.userId).toBe(user.id);
    await waitForMail(emailOf(user));
    expect(await mailTo('nobody@example.test')).toEqual([]);
  });

  it('refuses a bad request with 400 naming the field, and keeps only the hash of the token', async () => {
    const bad = await server.request('POST', '/api/user/password/forgot', { body: { organization: '  ', email: 'not-an-email' } });
    expectStatus(bad, 400);
    expect(ApiError.parse(bad.body).message).toMatch(/organization|email/);

    const org = await server.createOrg();
    const user = await server.createUser(org, ['done-teleoperator']);
    expectStatus(await forgot(org.toUpperCase(), emailOf(user).toUpperCase()), 202);
    const [mail] = await waitForMail(emailOf(user));
    if (!mail) throw new Error('no mail');
    const token = linkToken(mail);
    const [row] = await server.context.db.select().from(passwordResetTokens).where(eq(passwordResetTokens.userId, user.id));
    expect(row?.tokenHash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(row)).not.toContain(token);
  });

  it("mails no link built from a stranger's Host header (reset poisoning), and one to this machine for a loopback address", async () => {
    const org = await server.createOrg();
    const user = await server.createUser(org, ['done-teleoperator']);
    // fetch cannot set Host: a raw request, as an attacker's client sends it.
    const forgotWithHost = (host: string) =>
      new Promise<number>((resolve, reject) => {
        const body = JSON.stringify({ organization: org, email: emailOf(user) });
        const target = new URL(server.url);
        const call = httpRequest(
          { host: target.hostname, port: target.port, method: 'POST', path: '/api/user/password/forgot', headers: { host, 'content-type': 'application/json', 'x-forwarded-for': `${host}-client` } },
          (response) => {
            response.resume();
            resolve(response.statusCode ?? 0);
          },
        );
        call.on('error', reject);
        call.end(body);
      });
    expect(await forgotWithHost('attacker.example')).toBe(202);
    expect(await forgotWithHost(`localhost:${new URL(server.url).port}`)).toBe(202);
    const mails = await waitForMail(emailOf(user));
    await sleep(300);
    const all = await mailTo(emailOf(user));
    expect(all.map((mail) => /https?:\/\/[^/\s]+/.exec(mail.text)?.[0])).toEqual([`http://localhost:${new URL(server.url).port}`]);
    expect(mails.every((mail) => !mail.text.includes('attacker.example'))).toBe(true);
  });

  it('limits requests per account and per address with a 429 naming the reason', async () => {
    // A server of its own: every request of this file comes from one address, whose count this test exhausts.
    const limited = await startRouteTestServer({}, server.testDatabase);
    const forgot = (organization: string, email: string) =>
      limited.request('POST', '/api/user/password/forgot', { body: { organization, email } });
    const org = await server.createOrg();
    const user = await server.createUser(org, ['done-teleoperator']);
    const statuses = [];
    for (let i = 0; i <= FORGOT_LIMITS.perAccount; i++) statuses.push((await forgot(org, emailOf(user))).status);
    expect(statuses).toEqual([...Array<number>(FORGOT_LIMITS.perAccount).fill(202), 429]);
    const refusal = await forgot(org, emailOf(user));
    expectStatus(refusal, 429);
    const reason = ApiError.parse(refusal.body);
    expect(reason.error).toBe('rate_limited');
    expect(reason.message).toContain('for this account');
    // An unknown account is limited the same way: a 429 tells nothing about whether it exists.
    for (let i = 0; i < FORGOT_LIMITS.perAccount; i++) expectStatus(await forgot(org, 'ghost@example.test'), 202);
    expectStatus(await forgot(org, 'ghost@example.test'), 429);

    // One address asking for many accounts: this test's requests so far came from it too.
    const fromOneAddress = await Promise.all(
      Array.from({ length: FORGOT_LIMITS.perAddress }, (_, i) => forgot(org, `someone-${i}@example.test`)),
    );
    const refused = fromOneAddress.filter((response) => response.status === 429);
    expect(refused.length).toBeGreaterThan(0);
    expect(ApiError.parse(refused[0]?.body).message).toContain('from this address');
    await limited.close();
  });
});

describe('reset by the mailed link', () => {
  it('sets the new password once, signs out every session, refuses older access tokens, and tells user and admins', async () => {
    const org = await server.createOrg();
    const admin = await server.createUser(org, ['done-admin']);
    const user = await server.createUser(org, ['done-teleoperator']);
    await server.context.db.insert(deviceSubscriptions).values({ orgId: org, userId: admin.id, token: 'fcm-token-of-the-admins-phone-0123456789', topic: org });
    const other = await tokensOf(user); // a second device of the user
    await nextSecond();

    expectStatus(await forgot(org, emailOf(user)), 202);
    const [mail] = await waitForMail(emailOf(user));
    if (!mail) throw new Error('no mail');
    expect(mail.subject).toBe('Reset your UVD Console password');
    expect(mail.text).toContain('15 minutes');
    // The admins hear of it by mail and by push.
    const [adminMail] = await waitForMail(emailOf(admin));
    expect(adminMail?.text).toContain(emailOf(user));
    const push = await until(
      () => server.context.db.select().from(pushDeliveries).where(eq(pushDeliveries.userId, admin.id)),
      (rows) => rows.length > 0,
    );
    expect(PushMessage.parse(push[0]?.message)).toMatchObject({ kind: 'password_reset_requested', type: 'account', related_id: user.id, url: '/admin#users' });

    const token = linkToken(mail);
    const done = await reset(token, 'a brand new secret');
    expectStatus(done, 200);
    expect(PasswordResetDone.parse(done.body)).toEqual({ organization: org, username: user.username });

    // Signed out everywhere: the old access tokens and refresh tokens no longer work.
    expectStatus(await profile(user.token), 401);
    expectStatus(await profile(other.access_token), 401);
    const refreshed = await server.request('POST', `/idp/realms/${org}/protocol/openid-connect/token`, {
      form: { grant_type: 'refresh_token', client_id: server.context.config.clientId, refresh_token: other.refresh_token },
    });
    expect(refreshed.status).toBe(400);
    // The new password signs in; the old one does not.
    const oldPassword = await signIn(user, user.password);
    expect([oldPassword.status, (oldPassword.body as OAuthError).error]).toEqual([400, 'invalid_grant']);
    const fresh = await tokensOf(user, 'a brand new secret');
    expectStatus(await profile(fresh.access_token), 200);

    // The link works once.
    const again = await reset(token, 'another new secret');
    expectStatus(again, 410);
    expect(ApiError.parse(again.body).error).toBe('reset_link_used');
    // The user is told.
    const mails = await waitForMail(emailOf(user), 2);
    expect(mails[0]?.subject).toBe('Your UVD Console password was changed');
    // Once sent, the outbox keeps no reset link.
    const outbox = await server.context.db.query.mailOutbox.findMany();
    expect(outbox.some((row) => row.text.includes(token))).toBe(false);
  });

  it('refuses an expired link (410), an unknown one (404) and a short password (400), changing nothing', async () => {
    const org = await server.createOrg();
    const user = await server.createUser(org, ['done-teleoperator']);
    expectStatus(await forgot(org, emailOf(user)), 202);
    const [mail] = await waitForMail(emailOf(user));
    if (!mail) throw new Error('no mail');
    const token = linkToken(mail);

    const short = await reset(token, 'short');
    expectStatus(short, 400);
    expect(ApiError.parse(short.body).message).toContain('Password should be at least 8 characters long');

    const unknown = await reset('A'.repeat(43), 'long enough password');
    expectStatus(unknown, 404);
    expect(ApiError.parse(unknown.body).error).toBe('reset_link_unknown');

    await server.context.db
      .update(passwordResetTokens)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(passwordResetTokens.userId, user.id));
    const expired = await reset(token, 'long enough password');
    expectStatus(expired, 410);
    expect(ApiError.parse(expired.body).error).toBe('reset_link_expired');
    // The old password still works.
    expect((await signIn(user, user.password)).status).toBe(200);
  });
});

describe('an admin sets a password', () => {
  it('makes the user change it at their next sign-in, ends their sessions, and is in the audit trail', async () => {
    const org = await server.createOrg();
    const admin = await server.createUser(org, ['done-admin']);
    const user = await server.createUser(org, ['done-teleoperator']);
    await nextSecond();

    const operatorTry = await server.request('PUT', `/api/user/user/${admin.id}/password`, { token: user.token, body: { password: 'long enough password' } });
    expectStatus(operatorTry, 403);
    const otherOrg = await server.createOrg();
    const stranger = await server.createUser(otherOrg, ['done-teleoperator']);
    expectStatus(await server.request('PUT', `/api/user/user/${stranger.id}/password`, { token: admin.token, body: { password: 'long enough password' } }), 404);
    expectStatus(await server.request('PUT', `/api/user/user/${user.id}/password`, { token: admin.token, body: { password: 'short' } }), 400);

    expectStatus(await server.request('PUT', `/api/user/user/${user.id}/password`, { token: admin.token, body: { password: 'temporary password' } }), 204);
    expectStatus(await profile(user.token), 401);
    const temporary = await tokensOf(user, 'temporary password');
    const me = await profile(temporary.access_token);
    expectStatus(me, 200);
    expect(SessionUser.parse(me.body).must_change_password).toBe(true);
    const [mail] = await waitForMail(emailOf(user));
    expect(mail?.text).toContain('set by an admin');

    // With the given password the API does nothing else, whatever the client: the console is not the only one.
    const jobs = await server.request('GET', '/api/jobs/v2/jobs', { token: temporary.access_token });
    expectStatus(jobs, 403);
    expect(ApiError.parse(jobs.body)).toMatchObject({ error: 'password_change_required' });
    expect(ApiError.parse(jobs.body).message).toContain('/user/my-password');

    const change = (currentPassword: string, password: string, token = temporary.access_token) =>
      server.request('POST', '/api/user/my-password', { token, body: { currentPassword, password } });
    const wrong = await change('not the password', 'my own password');
    expectStatus(wrong, 400);
    expect(ApiError.parse(wrong.body).error).toBe('wrong_password');
    const same = await change('temporary password', 'temporary password');
    expect(ApiError.parse(same.body).error).toBe('same_password');
    expectStatus(await change('temporary password', 'my own password'), 204);

    const mine = await tokensOf(user, 'my own password');
    expect(SessionUser.parse((await profile(mine.access_token)).body).must_change_password).toBe(false);
    expectStatus(await server.request('GET', '/api/jobs/v2/jobs', { token: mine.access_token }), 200);

    const audit = await until(
      () => server.request('GET', '/api/audit', { token: admin.token, query: { entity: 'user', limit: 50 } }),
      (response) => response.status === 200 && AuditList.parse(response.body).payload.some((entry) => entry.actor === admin.username),
    );
    const entry = AuditList.parse(audit.body).payload.find((row) => row.actor === admin.username && row.entity_id === user.id);
    expect(entry?.after).toMatchObject({ password_hash: '[changed]', must_change_password: true });
    const [row] = await server.context.db.select({ must: users.mustChangePassword }).from(users).where(and(eq(users.id, user.id), eq(users.orgId, org)));
    expect(row?.must).toBe(false);
  });

  it("refuses an admin's own password with 409 naming the call for it, and leaves their password and session as they were", async () => {
    const org = await server.createOrg();
    const admin = await server.createUser(org, ['done-admin']);
    const own = await server.request('PUT', `/api/user/user/${admin.id}/password`, { token: admin.token, body: { password: 'a password of my own' } });
    expectStatus(own, 409);
    expect(ApiError.parse(own.body)).toMatchObject({ error: 'cannot_set_own_password' });
    expect(ApiError.parse(own.body).message).toContain('/user/my-password');
    expectStatus(await profile(admin.token), 200);
    expect(SessionUser.parse((await profile(admin.token)).body).must_change_password).toBe(false);
    const refused = await signIn(admin, 'a password of my own');
    expect([refused.status, (refused.body as OAuthError).error]).toEqual([400, 'invalid_grant']);
    await tokensOf(admin);
  });
});
