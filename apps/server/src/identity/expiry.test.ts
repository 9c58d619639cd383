/** Expired tokens, on a server whose tokens are born expired (past the verifier's 5 s clock tolerance). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OAuthError, TokenResponse } from '@uvd/contracts';
import { startRouteTestServer, type TestServer } from '../testing/harness.ts';
import { localVerifier } from './verifier.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startRouteTestServer({ accessTokenTtlSeconds: -60, refreshTokenTtlSeconds: -60 });
});
afterAll(async () => {
  await server.close();
});

describe('expired tokens', () => {
  it('refuses an expired access token at userinfo and in the API verifier, and an expired refresh token', async () => {
    const orgId = await server.createOrg();
    const user = await server.createUser(orgId, ['done-admin']);
    const info = await server.request('GET', `/idp/realms/${orgId}/protocol/openid-connect/userinfo`, { token: user.token });
    expect(info.status).toBe(401);
    expect(OAuthError.parse(info.body).error).toBe('invalid_token');
    await expect(localVerifier(server.context.keys)(user.token)).rejects.toMatchObject({ statusCode: 401 });

    const path = `/idp/realms/${orgId}/protocol/openid-connect/token`;
    const grant = await server.request('POST', path, {
      form: { grant_type: 'password', client_id: 'uvd-console', username: user.username, password: user.password },
    });
    const { refresh_token } = TokenResponse.parse(grant.body);
    const refresh = await server.request('POST', path, { form: { grant_type: 'refresh_token', client_id: 'uvd-console', refresh_token } });
    expect(refresh.status).toBe(400);
    expect(OAuthError.parse(refresh.body).error).toBe('invalid_grant');
  });
});
