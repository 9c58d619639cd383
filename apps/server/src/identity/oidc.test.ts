/**
 * The identity provider through a standard OIDC client (openid-client) and plain HTTP: discovery, JWKS,
 * password grant, refresh with rotation and reuse detection, revocation, logout, userinfo, and the RFC 6749
 * error answers.
 */
import { eq } from 'drizzle-orm';
import { createRemoteJWKSet, decodeJwt, jwtVerify } from 'jose';
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Jwks, OAuthError, OpenIdConfiguration, TokenResponse, UserInfo } from '@uvd/contracts';
import { refreshTokens, users } from '../db/schema.ts';
import { startRouteTestServer, type TestServer, type TestUser } from '../testing/harness.ts';
import { openReply } from './reissue.ts';
import { localVerifier } from './verifier.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startRouteTestServer();
});
afterAll(async () => {
  await server.close();
});

const CLIENT_ID = 'uvd-console';
const realmUrl = (orgId: string) => `${server.url}/idp/realms/${orgId}`;
const oidcPath = (orgId: string, endpoint: string) => `/idp/realms/${orgId}/protocol/openid-connect/${endpoint}`;

// The test server speaks plain HTTP on loopback; openid-client insists on HTTPS unless told otherwise.
// eslint-disable-next-line @typescript-eslint/no-deprecated
const insecure = { execute: [oidc.allowInsecureRequests] };

const discover = (orgId: string) =>
  oidc.discovery(new URL(realmUrl(orgId)), CLIENT_ID, { id_token_signed_response_alg: 'ES256' }, oidc.None(), insecure);

async function passwordGrant(config: oidc.Configuration, user: TestUser, scope = 'openid') {
  return oidc.genericGrantRequest(config, 'password', { username: user.username, password: user.password, scope });
}

/** The OAuth error an openid-client call was refused with. */
async function refusal(promise: Promise<unknown>): Promise<{ status: number; error: string }> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof oidc.ResponseBodyError) return { status: error.status, error: error.error };
    throw error;
  }
  throw new Error('expected the call to be refused');
}

const tokenRequest = (orgId: string, form: Record<string, string>, query?: Record<string, string>) =>
  server.request('POST', oidcPath(orgId, 'token'), { form, ...(query ? { query } : {}) });

/** As if `refreshToken` had been exchanged `seconds` ago. */
const usedSecondsAgo = async (refreshToken: string, seconds: number) => {
  const { jti } = decodeJwt(refreshToken);
  await server.context.db
    .update(refreshTokens)
    .set({ usedAt: new Date(Date.now() - seconds * 1000) })
    .where(eq(refreshTokens.id, jti ?? ''));
};

describe('discovery and keys', () => {
  it('serves the discovery document of a realm, with its issuer and endpoints', async () => {
    const orgId = await server.createOrg();
    const response = await server.request('GET', `/idp/realms/${orgId}/.well-known/openid-configuration`);
    expect(response.status).toBe(200);
    const document = OpenIdConfiguration.parse(response.body);
    expect(document.issuer).toBe(realmUrl(orgId));
    expect(document.token_endpoint).toBe(`${server.url}${oidcPath(orgId, 'token')}`);
    expect(document.grant_types_supported).toEqual(['password', 'refresh_token']);
    expect(document.id_token_signing_alg_values_supported).toEqual(['ES256']);

    const config = await discover(orgId);
    expect(config.serverMetadata().issuer).toBe(realmUrl(orgId));
  });

  it('serves the realm JWKS', async () => {
    const orgId = await server.createOrg();
    const response = await server.request('GET', oidcPath(orgId, 'certs'));
    expect(response.status).toBe(200);
    const jwks = Jwks.parse(response.body);
    expect(jwks.keys[0]).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig' });
    expect(jwks.keys[0]).not.toHaveProperty('d');
  });

  it('answers 404 for a realm that does not exist', async () => {
    for (const path of ['/idp/realms/no-such-realm/.well-known/openid-configuration', oidcPath('no-such-realm', 'certs')]) {
      const response = await server.request('GET', path);
      expect(response.status).toBe(404);
      expect(OAuthError.parse(response.body).error).toBe('Realm does not exist');
    }
    const token = await tokenRequest('no-such-realm', { grant_type: 'password', client_id: CLIENT_ID, username: 'a', password: 'b' });
    expect(token.status).toBe(404);
  });
});

describe('password grant', () => {
  it('issues Keycloak-shaped tokens that verify through the JWKS and that the API accepts', async () => {
    const orgId = await server.createOrg();
    const groupId = await server.createGroup(orgId, 'Ward 3');
    const user = await server.createUser(orgId, ['done-admin'], { groupIds: [groupId] });
    const config = await discover(orgId);
    const tokens = await passwordGrant(config, user);
    expect(tokens.token_type).toBe('bearer'); // openid-client lowercases it; the raw reply is parsed below
    expect(tokens.expires_in).toBe(900);
    expect(tokens.scope?.split(' ')).toEqual(expect.arrayContaining(['openid', 'profile', 'email']));

    const idClaims = tokens.claims();
    expect(idClaims).toMatchObject({ iss: realmUrl(orgId), sub: user.id, aud: CLIENT_ID, preferred_username: user.username });

    const jwks = createRemoteJWKSet(new URL(config.serverMetadata().jwks_uri ?? ''));
    const { payload } = await jwtVerify(tokens.access_token, jwks, { issuer: realmUrl(orgId), algorithms: ['ES256'] });
    expect(payload).toMatchObject({
      sub: user.id,
      typ: 'Bearer',
      preferred_username: user.username,
      given_name: 'Test',
      family_name: user.username,
      email: `${user.username}@example.test`,
      realm_access: { roles: ['done-admin'] },
      groups: ['Ward 3'],
      sid: tokens.session_state,
    });
    expect((payload.exp ?? 0) - (payload.iat ?? 0)).toBe(900);

    // The API's own verifier (the auth plugin's) accepts it, with the token's realm as organization.
    const principal = await localVerifier(server.context.keys)(tokens.access_token);
    expect(principal).toMatchObject({ sub: user.id, orgId, roles: ['done-admin'], groups: ['Ward 3'] });
  });

  it('matches usernames case-insensitively, as Keycloak stores them lowercase', async () => {
    const orgId = await server.createOrg();
    const user = await server.createUser(orgId, ['done-teleoperator']);
    const response = await tokenRequest(orgId, {
      grant_type: 'password',
      client_id: CLIENT_ID,
      username: ` ${user.username.toUpperCase()} `,
      password: user.password,
    });
    expect(response.status).toBe(200);
  });

  it('omits the id token without the openid scope', async () => {
    const orgId = await server.createOrg();
    const user = await server.createUser(orgId, ['done-teleoperator']);
    const response = await tokenRequest(orgId, { grant_type: 'password', client_id: CLIENT_ID, username: user.username, password: user.password });
    expect(response.status).toBe(200);
    expect(TokenResponse.parse(response.body).id_token).toBeUndefined();
  });

  it('starts an offline session with the long lifetime for ?scope=offline_access (behaviour §7)', async () => {
    const orgId = await server.createOrg();
    const user = await server.createUser(orgId, ['done-teleoperator']);
    const form = { grant_type: 'password', client_id: CLIENT_ID, username: user.username, password: user.password, scope: 'openid' };
    const online = TokenResponse.parse((await tokenRequest(orgId, form)).body);
    expect(online.refresh_expires_in).toBeLessThanOrEqual(1800);
    expect(decodeJwt(online.refresh_token).typ).toBe('Refresh');

    const response = await tokenRequest(orgId, form, { scope: 'offline_access' });
    expect(response.status).toBe(200);
    const offline = TokenResponse.parse(response.body);
    expect(offline.scope.split(' ')).toEqual(expect.arrayContaining(['openid', 'offline_access']));
    expect(offline.refresh_expires_in).toBeGreaterThan(29 * 24 * 3600);
    expect(decodeJwt(offline.refresh_token).typ).toBe('Offline');
    expect(offline.id_token).toBeDefined();
  });

  it('answers a wrong password, an unknown user and a disabled user the same way', async () => {
    const orgId = await server.createOrg();
    const user = await server.createUser(orgId, ['done-teleoperator']);
    const disabled = await server.createUser(orgId, ['done-teleoperator']);
    await server.context.db.update(users).set({ enabled: false }).where(eq(users.id, disabled.id));
    const attempts = [
      { username: user.username, password: 'wrong-password' },
      { username: 'nobody-here', password: 'wrong-password' },
      { username: disabled.username, password: disabled.password },
    ];
    const replies = [];
    for (const credentials of attempts) {
      const response = await tokenRequest(orgId, { grant_type: 'password', client_id: CLIENT_ID, ...credentials });
      replies.push({ status: response.status, body: response.body });
    }
    for (const reply of replies) {
      expect(reply).toEqual({ status: 400, body: { error: 'invalid_grant', error_description: 'Invalid user credentials' } });
    }
    const config = await discover(orgId);
    expect(await refusal(passwordGrant(config, { ...user, password: 'wrong-password' }))).toEqual({ status: 400, error: 'invalid_grant' });
  });

  it('refuses any client but the console', async () => {
    const orgId = await server.createOrg();
    const user = await server.createUser(orgId, ['done-admin']);
    const other = await oidc.discovery(new URL(realmUrl(orgId)), 'another-client', undefined, oidc.None(), insecure);
    expect(await refusal(passwordGrant(other, user))).toEqual({ status: 401, error: 'invalid_client' });
    const missing = await tokenRequest(orgId, { grant_type: 'password', username: user.username, password: user.password });
    expect(missing.status).toBe(401);
    expect(OAuthError.parse(missing.body).error).toBe('invalid_client');
  });

  it('answers RFC 6749 errors naming what is missing or unsupported', async () => {
    const orgId = await server.createOrg();
    const cases: [Record<string, string>, number, string, RegExp][] = [
      [{ client_id: CLIENT_ID }, 400, 'invalid_request', /grant_type/],
      [{ client_id: CLIENT_ID, grant_type: 'client_credentials' }, 400, 'unsupported_grant_type', /client_credentials/],
      [{ client_id: CLIENT_ID, grant_type: 'password', password: 'x' }, 400, 'invalid_request', /username/],
      [{ client_id: CLIENT_ID, grant_type: 'password', username: 'x' }, 400, 'invalid_request', /password/],
      [{ client_id: CLIENT_ID, grant_type: 'refresh_token' }, 400, 'invalid_request', /refresh_token/],
      [{ client_id: CLIENT_ID, grant_type: 'refresh_token', refresh_token: 'not-a-token' }, 400, 'invalid_grant', /refresh token/],
    ];
    for (const [form, status, error, description] of cases) {
      const response = await tokenRequest(orgId, form);
      expect(response.status).toBe(status);
      const body = OAuthError.parse(response.body);
      expect(body.error).toBe(error);
      expect(body.error_description).toMatch(description);
    }
    const repeated = await fetch(`${server.url}${oidcPath(orgId, 'token')}`, {
      method: 'POST',
      body: new URLSearchParams([
        ['grant_type', 'password'],
        ['grant_type', 'refresh_token'],
        ['client_id', CLIENT_ID],
      ]),
    });
    expect(repeated.status).toBe(400);
    expect(OAuthError.parse(await repeated.json())).toMatchObject({ error: 'invalid_request', error_description: expect.stringMatching(/grant_type/) as string });
  });
});

describe('refresh', () => {
  it('rotates the refresh token and issues a new access token', async () => {
    const orgId = await server.createOrg();
    const user = await server.createUser(orgId, ['done-teleoperator']);
    const config = await discover(orgId);
    const first = await passwordGrant(config, user);
    const second = await oidc.refreshTokenGrant(config, first.refresh_token ?? '');
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect(second.access_token).not.toBe(first.access_token);
    expect(second.session_state).toBe(first.session_state);
    expect(second.claims()?.sub).toBe(user.id);
    const third = await oidc.refreshTokenGrant(config, second.refresh_token ?? '');
    expect(third.access_token).toBeTruthy();
  });

  it('refuses a refresh token reused after the grace window and ends the whole session', async () => {
    const orgId = await server.createOrg();
    const user = await server.createUser(orgId, ['done-teleoperator']);
    const config = await discover(orgId);
    const first = await passwordGrant(config, user);
    const second = await oidc.refreshTokenGrant(config, first.refresh_token ?? '');
    await usedSecondsAgo(first.refresh_token ?? '', server.context.config.refreshTokenGraceSeconds + 1);

    // An attacker (or a stale tab) presents the already used token: refused…
    expect(await refusal(oidc.refreshTokenGrant(config, first.refresh_token ?? ''))).toEqual({ status: 400, error: 'invalid_grant' });
    // …and the legitimate holder's newer token is dead too, as is userinfo for the session's access token.
    expect(await refusal(oidc.refreshTokenGrant(config, second.refresh_token ?? ''))).toEqual({ status: 400, error: 'invalid_grant' });
    const info = await server.request('GET', oidcPath(orgId, 'userinfo'), { token: second.access_token });
    expect(info.status).toBe(401);

    // Other sessions of the same user are untouched.
    const other = await passwordGrant(config, user);
    expect((await oidc.refreshTokenGrant(config, other.refresh_token ?? '')).access_token).toBeTruthy();
  });

  it('answers two simultaneous exchanges of one token with the same new tokens, and the session goes on', async () => {
    const orgId = await server.createOrg();
    const user = await server.createUser(orgId, ['done-teleoperator']);
    const config = await discover(orgId);
    const { refresh_token: token = '' } = await passwordGrant(config, user);
    const form = { grant_type: 'refresh_token', client_id: CLIENT_ID, refresh_token: token };
    const replies = await Promise.all([tokenRequest(orgId, form), tokenRequest(orgId, form)]);
    expect(replies.map((reply) => reply.status)).toEqual([200, 200]);
    const [one, two] = replies.map((reply) => TokenResponse.parse(reply.body));
    expect(two).toEqual(one);
    expect((await oidc.refreshTokenGrant(config, one?.refresh_token ?? '')).access_token).toBeTruthy();
  });

  it('exchanges the refresh tokens of many sessions at once, each getting its own', async () => {
    const orgId = await server.createOrg();
    const groupId = await server.createGroup(orgId, 'Night shift');
    const user = await server.createUser(orgId, ['done-teleoperator'], { groupIds: [groupId] });
    const config = await discover(orgId);
    const sessions = await Promise.all(Array.from({ length: 12 }, () => passwordGrant(config, user)));
    const refreshed = await Promise.all(sessions.map((tokens) => oidc.refreshTokenGrant(config, tokens.refresh_token ?? '')));
    refreshed.forEach((tokens, i) => {
      expect(tokens.session_state).toBe(sessions[i]?.session_state);
      expect(decodeJwt(tokens.access_token)).toMatchObject({ sid: sessions[i]?.session_state, groups: ['Night shift'] });
    });
    expect(new Set(refreshed.map((tokens) => tokens.refresh_token)).size).toBe(12);
  });

  it('refuses a refresh token of another realm, of a disabled user, or from another client', async () => {
    const orgId = await server.createOrg();
    const otherOrg = await server.createOrg();
    const user = await server.createUser(orgId, ['done-teleoperator']);
    const config = await discover(orgId);
    const tokens = await passwordGrant(config, user);
    const refreshToken = tokens.refresh_token ?? '';

    const elsewhere = await tokenRequest(otherOrg, { grant_type: 'refresh_token', client_id: CLIENT_ID, refresh_token: refreshToken });
    expect(elsewhere.status).toBe(400);
    expect(OAuthError.parse(elsewhere.body).error).toBe('invalid_grant');

    const wrongClient = await tokenRequest(orgId, { grant_type: 'refresh_token', client_id: 'another-client', refresh_token: refreshToken });
    expect(wrongClient.status).toBe(401);

    await server.context.db.update(users).set({ enabled: false }).where(eq(users.id, user.id));
    expect(await refusal(oidc.refreshTokenGrant(config, refreshToken))).toEqual({ status: 400, error: 'invalid_grant' });
  });
});

describe('refresh grace window (REFRESH_TOKEN_GRACE_SECONDS)', () => {
  const refreshForm = (token: string) => ({ grant_type: 'refresh_token', client_id: CLIENT_ID, refresh_token: token });
  const exchange = async (orgId: string, token: string) => {
    const reply = await tokenRequest(orgId, refreshForm(token));
    return { status: reply.status, body: reply.status === 200 ? TokenResponse.parse(reply.body) : OAuthError.parse(reply.body) };
  };

  it('answers a token exchanged again within the window with the same new tokens, and the session goes on', async () => {
    const orgId = await server.createOrg();
    const user = await server.createUser(orgId, ['done-teleoperator']);
    const config = await discover(orgId);
    const first = await passwordGrant(config, user);
    const token = first.refresh_token ?? '';

    // A page reloaded while its refresh was in flight never saw this reply…
    const lost = await exchange(orgId, token);
    expect(lost.status).toBe(200);
    // …and presents the same token again, a few seconds later: the very same tokens.
    await usedSecondsAgo(token, server.context.config.refreshTokenGraceSeconds - 5);
    const again = await exchange(orgId, token);
    expect(again).toEqual(lost);
    const next = TokenResponse.parse(again.body);
    expect((await server.request('GET', oidcPath(orgId, 'userinfo'), { token: next.access_token })).status).toBe(200);
    expect((await exchange(orgId, next.refresh_token)).status).toBe(200);
  });

  it('serves only the immediately preceding token: an older one ends the session even within the window', async () => {
    const orgId = await server.createOrg();
    const user = await server.createUser(orgId, ['done-teleoperator']);
    const config = await discover(orgId);
    const first = await passwordGrant(config, user);
    const second = TokenResponse.parse((await exchange(orgId, first.refresh_token ?? '')).body);
    const third = TokenResponse.parse((await exchange(orgId, second.refresh_token)).body);

    expect(await exchange(orgId, first.refresh_token ?? '')).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect(await exchange(orgId, third.refresh_token)).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect((await server.request('GET', oidcPath(orgId, 'userinfo'), { token: third.access_token })).status).toBe(401);
  });

  it('does not serve a token of a session that ended meanwhile', async () => {
    const orgId = await server.createOrg();
    const user = await server.createUser(orgId, ['done-teleoperator']);
    const config = await discover(orgId);
    const first = await passwordGrant(config, user);
    const second = TokenResponse.parse((await exchange(orgId, first.refresh_token ?? '')).body);
    const logout = await server.request('POST', oidcPath(orgId, 'logout'), {
      form: { client_id: CLIENT_ID, refresh_token: second.refresh_token },
      token: second.access_token,
    });
    expect(logout.status).toBe(204);
    expect(await exchange(orgId, first.refresh_token ?? '')).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
  });

  it('keeps no usable token in the database: the kept reply opens only with the token that was exchanged', async () => {
    const orgId = await server.createOrg();
    const user = await server.createUser(orgId, ['done-teleoperator']);
    const config = await discover(orgId);
    const first = await passwordGrant(config, user);
    const token = first.refresh_token ?? '';
    const reply = TokenResponse.parse((await exchange(orgId, token)).body);
    const [row] = await server.context.db
      .select({ kept: refreshTokens.successorReply })
      .from(refreshTokens)
      .where(eq(refreshTokens.id, decodeJwt(token).jti ?? ''));
    const kept = row?.kept ?? '';
    expect(kept).not.toBe('');
    for (const part of [reply.access_token, reply.refresh_token, reply.id_token ?? '', ...reply.access_token.split('.')]) {
      expect(kept).not.toContain(part);
    }
    expect(openReply(kept, token, server.context.keys.refreshSecret)).toEqual(reply);
    expect(openReply(kept, reply.refresh_token, server.context.keys.refreshSecret)).toBeUndefined();
  });

  it('with the window switched off (0), a token exchanged twice ends its session at once', async () => {
    const strict = await startRouteTestServer({ refreshTokenGraceSeconds: 0 });
    try {
      const orgId = await strict.createOrg();
      const user = await strict.createUser(orgId, ['done-teleoperator']);
      const login = await strict.request('POST', oidcPath(orgId, 'token'), {
        form: { grant_type: 'password', client_id: CLIENT_ID, username: user.username, password: user.password },
      });
      const token = TokenResponse.parse(login.body).refresh_token;
      const once = await strict.request('POST', oidcPath(orgId, 'token'), { form: refreshForm(token) });
      expect(once.status).toBe(200);
      const twice = await strict.request('POST', oidcPath(orgId, 'token'), { form: refreshForm(token) });
      expect(twice).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
      const next = await strict.request('POST', oidcPath(orgId, 'token'), { form: refreshForm(TokenResponse.parse(once.body).refresh_token) });
      expect(next.status).toBe(400);
    } finally {
      await strict.close();
    }
  });
});

describe('revoke and logout', () => {
  it('revoking a refresh token ends its session; unknown tokens answer 200', async () => {
    const orgId = await server.createOrg();
    const user = await server.createUser(orgId, ['done-teleoperator']);
    const config = await discover(orgId);
    const tokens = await passwordGrant(config, user);
    await oidc.tokenRevocation(config, tokens.refresh_token ?? '', { token_type_hint: 'refresh_token' });
    expect(await refusal(oidc.refreshTokenGrant(config, tokens.refresh_token ?? ''))).toEqual({ status: 400, error: 'invalid_grant' });
    await oidc.tokenRevocation(config, 'no-such-token');
    const again = await server.request('POST', oidcPath(orgId, 'revoke'), {
      form: { client_id: CLIENT_ID, token: tokens.refresh_token ?? '', token_type_hint: 'refresh_token' },
    });
    expect(again.status).toBe(200);
  });

  it('revoking an access token (as the console does) ends its session so no refresh follows', async () => {
    const orgId = await server.createOrg();
    const user = await server.createUser(orgId, ['done-teleoperator']);
    const config = await discover(orgId);
    const tokens = await passwordGrant(config, user);
    const response = await server.request('POST', oidcPath(orgId, 'revoke'), {
      form: { client_id: CLIENT_ID, token: tokens.access_token, token_type_hint: 'access_token' },
    });
    expect(response.status).toBe(200);
    expect(await refusal(oidc.refreshTokenGrant(config, tokens.refresh_token ?? ''))).toEqual({ status: 400, error: 'invalid_grant' });
  });

  it('revoke needs the console client and a token', async () => {
    const orgId = await server.createOrg();
    const noClient = await server.request('POST', oidcPath(orgId, 'revoke'), { form: { token: 'x' } });
    expect(noClient.status).toBe(401);
    expect(OAuthError.parse(noClient.body).error).toBe('invalid_client');
    const noToken = await server.request('POST', oidcPath(orgId, 'revoke'), { form: { client_id: CLIENT_ID } });
    expect(noToken.status).toBe(400);
    expect(OAuthError.parse(noToken.body)).toMatchObject({ error: 'invalid_request', error_description: expect.stringMatching(/token/) as string });
  });

  it('logout with bearer and refresh token (behaviour §7) ends the session: 204', async () => {
    const orgId = await server.createOrg();
    const user = await server.createUser(orgId, ['done-teleoperator']);
    const config = await discover(orgId);
    const tokens = await passwordGrant(config, user);
    const response = await server.request('POST', oidcPath(orgId, 'logout'), {
      token: tokens.access_token,
      form: { client_id: CLIENT_ID, refresh_token: tokens.refresh_token ?? '' },
    });
    expect(response.status).toBe(204);
    expect(await refusal(oidc.refreshTokenGrant(config, tokens.refresh_token ?? ''))).toEqual({ status: 400, error: 'invalid_grant' });
    const info = await server.request('GET', oidcPath(orgId, 'userinfo'), { token: tokens.access_token });
    expect(info.status).toBe(401);
  });

  it('logout with only the bearer ends its session; a bad refresh token is invalid_grant', async () => {
    const orgId = await server.createOrg();
    const user = await server.createUser(orgId, ['done-teleoperator']);
    const config = await discover(orgId);
    const tokens = await passwordGrant(config, user);
    const bad = await server.request('POST', oidcPath(orgId, 'logout'), { form: { client_id: CLIENT_ID, refresh_token: 'garbage' } });
    expect(bad.status).toBe(400);
    expect(OAuthError.parse(bad.body).error).toBe('invalid_grant');
    const nothing = await server.request('POST', oidcPath(orgId, 'logout'), { form: { client_id: CLIENT_ID } });
    expect(nothing.status).toBe(400);
    expect(OAuthError.parse(nothing.body)).toMatchObject({ error: 'invalid_request', error_description: expect.stringMatching(/refresh_token/) as string });
    const response = await server.request('POST', oidcPath(orgId, 'logout'), { token: tokens.access_token, form: { client_id: CLIENT_ID } });
    expect(response.status).toBe(204);
    expect(await refusal(oidc.refreshTokenGrant(config, tokens.refresh_token ?? ''))).toEqual({ status: 400, error: 'invalid_grant' });
  });
});

describe('userinfo', () => {
  it('answers the claims of the bearer', async () => {
    const orgId = await server.createOrg();
    const groupId = await server.createGroup(orgId, 'Surgery');
    const user = await server.createUser(orgId, ['done-teleoperator'], { groupIds: [groupId] });
    const config = await discover(orgId);
    const tokens = await passwordGrant(config, user);
    const info = UserInfo.parse(await oidc.fetchUserInfo(config, tokens.access_token, user.id));
    expect(info).toEqual({
      sub: user.id,
      preferred_username: user.username,
      given_name: 'Test',
      family_name: user.username,
      name: `Test ${user.username}`,
      email: `${user.username}@example.test`,
      email_verified: false,
      realm_access: { roles: ['done-teleoperator'] },
      groups: ['Surgery'],
    });
  });

  it('refuses a missing, malformed or other realm token with 401 invalid_token', async () => {
    const orgId = await server.createOrg();
    const otherOrg = await server.createOrg();
    const stranger = await server.createUser(otherOrg, ['done-superadmin']);
    for (const token of [undefined, 'not-a-jwt', stranger.token]) {
      const response = await server.request('GET', oidcPath(orgId, 'userinfo'), { token });
      expect(response.status).toBe(401);
      expect(OAuthError.parse(response.body).error).toBe('invalid_token');
      expect(response.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_token"/);
    }
    // The same token is fine in its own realm.
    const own = await server.request('GET', oidcPath(otherOrg, 'userinfo'), { token: stranger.token });
    expect(own.status).toBe(200);
  });
});
