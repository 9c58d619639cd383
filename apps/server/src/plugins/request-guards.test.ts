import { SignJWT, generateKeyPair } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, Group } from '@uvd/contracts';
import { startRouteTestServer, type TestServer, type TestUser } from '../testing/harness.ts';

let server: TestServer;
let admin: TestUser;
let operator: TestUser;

beforeAll(async () => {
  server = await startRouteTestServer();
  const orgId = await server.createOrg();
  admin = await server.createUser(orgId, ['done-admin']);
  operator = await server.createUser(orgId, ['done-teleoperator']);
});
afterAll(async () => {
  await server.close();
});

const groupNames = async () => {
  const response = await server.request<unknown[]>('GET', '/api/group/groups', { token: admin.token });
  return Group.array().parse(response.body).map((group) => group.name);
};

describe('anti-forgery (behaviour §9: cookie XSRF-TOKEN, header X-XSRF-TOKEN)', () => {
  it('issues the XSRF-TOKEN cookie to a client that has none', async () => {
    const response = await server.request('GET', '/config.json');
    expect(response.headers.get('set-cookie')).toMatch(/^XSRF-TOKEN=[\w-]{20,}; Path=\/; SameSite=Strict/);
  });

  it('refuses a state-changing request that carries the cookie without the matching header, and changes nothing', async () => {
    const noHeader = await server.request('POST', '/api/group/create', {
      token: admin.token,
      body: { name: 'forged-1' },
      headers: { cookie: 'XSRF-TOKEN=abcdefghijklmnopqrstuvwx' },
    });
    expect(noHeader.status).toBe(403);
    expect(ApiError.parse(noHeader.body).error).toBe('xsrf_token_mismatch');

    const wrongHeader = await server.request('POST', '/api/group/create', {
      token: admin.token,
      body: { name: 'forged-2' },
      headers: { cookie: 'XSRF-TOKEN=abcdefghijklmnopqrstuvwx', 'x-xsrf-token': 'abcdefghijklmnopqrstuvwy' },
    });
    expect(wrongHeader.status).toBe(403);
    expect(await groupNames()).not.toContain('forged-1');
    expect(await groupNames()).not.toContain('forged-2');
  });

  it('accepts the request when the header echoes the cookie, and a bearer-only client without the cookie', async () => {
    const echoed = await server.request('POST', '/api/group/create', {
      token: admin.token,
      body: { name: 'echoed' },
      headers: { cookie: 'XSRF-TOKEN=abcdefghijklmnopqrstuvwx', 'x-xsrf-token': 'abcdefghijklmnopqrstuvwx' },
    });
    expect(echoed.status).toBe(201);
    const bearerOnly = await server.request('POST', '/api/group/create', { token: admin.token, body: { name: 'bearer-only' } });
    expect(bearerOnly.status).toBe(201);
    expect(await groupNames()).toEqual(expect.arrayContaining(['echoed', 'bearer-only']));
  });

  it('lets safe methods through with the cookie alone', async () => {
    const response = await server.request('GET', '/api/group/groups', {
      token: admin.token,
      headers: { cookie: 'XSRF-TOKEN=abcdefghijklmnopqrstuvwx' },
    });
    expect(response.status).toBe(200);
  });
});

describe('authentication before validation', () => {
  const badBody = { name: '' };

  it('answers 401 to a caller without a token even when the body is bad', async () => {
    const response = await server.request('POST', '/api/group/create', { body: badBody });
    expect(response.status).toBe(401);
    expect(ApiError.parse(response.body).error).toBe('unauthorized');
  });

  it('answers 403 to the wrong role even when the body is bad', async () => {
    const response = await server.request('POST', '/api/group/create', { token: operator.token, body: badBody });
    expect(response.status).toBe(403);
  });

  it('answers 400 naming the field to the right role', async () => {
    const response = await server.request('POST', '/api/group/create', { token: admin.token, body: badBody });
    expect(response.status).toBe(400);
    expect(ApiError.parse(response.body).message).toContain('name');
  });

  it('refuses a tampered token, a token signed by another key, and a non-bearer scheme', async () => {
    const [head, payload] = admin.token.split('.');
    const claims = JSON.parse(Buffer.from(payload ?? '', 'base64url').toString()) as Record<string, unknown>;
    const elevated = Buffer.from(JSON.stringify({ ...claims, realm_access: { roles: ['done-superadmin'] } })).toString('base64url');
    const tampered = `${head ?? ''}.${elevated}.${admin.token.split('.')[2] ?? ''}`;
    expect((await server.request('GET', '/api/group/groups', { token: tampered })).status).toBe(401);

    const { privateKey } = await generateKeyPair('ES256');
    const foreign = await new SignJWT(claims).setProtectedHeader({ alg: 'ES256', kid: 'foreign' }).sign(privateKey);
    expect((await server.request('GET', '/api/group/groups', { token: foreign })).status).toBe(401);

    const basic = await server.request('GET', '/api/group/groups', { headers: { authorization: 'Basic YWRtaW46YWRtaW4=' } });
    expect(basic.status).toBe(401);
  });
});
