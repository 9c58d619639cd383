/**
 * Targeted probes of bad input: text PostgreSQL cannot store (U+0000, unpaired surrogates, index rows
 * over the btree limit) and dates outside years 1–9999 in UTC are 400s naming the field, never 500s or silently
 * altered rows. The fuzz suite (routes.fuzz.test.ts) covers every route; these pin each text family and date form.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, Job, OAuthError } from '@uvd/contracts';
import { expectFieldError } from '../testing/assertions.ts';
import { createJobFor, executionWorld, type ExecutionWorld } from '../testing/execution-fixtures.ts';
import { startRouteTestServer, type TestServer } from '../testing/harness.ts';

let server: TestServer;
let world: ExecutionWorld;
beforeAll(async () => {
  server = await startRouteTestServer();
  world = await executionWorld(server);
});
afterAll(async () => {
  await server.close();
});

const NUL = 'ward\u0000a';
const LONE_SURROGATE = 'ward \uD800 a';
const token = () => world.admin.token;

const jobBody = (overrides: Record<string, unknown> = {}) => ({
  name: 'Ward round',
  notes: '',
  start_time: '2030-05-04T18:30:00Z',
  rooms: world.roomIds.map((room_id, order_no) => ({ room_id, order_no, dose: 10 })),
  ...overrides,
});

describe('text a request sends', () => {
  it.each([
    ['name', NUL],
    ['notes', NUL],
    ['name', LONE_SURROGATE],
    ['notes', `notes \uDC00`],
  ])('job %s with %j is a 400 naming the field', async (field, value) => {
    const response = await server.request('POST', `/api/jobs/jobs/${world.robotId}`, { token: token(), body: jobBody({ [field]: value }) });
    expectFieldError(response, field);
  });

  it('job and log notes with U+0000 are 400s naming notes', async () => {
    const job = await createJobFor(server, world);
    expectFieldError(await server.request('PATCH', `/api/jobs/job/${job.job_id}/notes`, { token: token(), body: { notes: NUL } }), 'notes');
    expectFieldError(await server.request('PATCH', `/api/log/${job.job_id}/notes`, { token: token(), body: { notes: NUL } }), 'notes');
    expectFieldError(await server.request('PUT', `/api/jobs/jobs/${job.job_id}`, { token: token(), body: jobBody({ name: NUL }) }), 'name');
  });

  it('emoji, right-to-left text and paired surrogates are stored as sent', async () => {
    const name = 'جناح 🧪 Ward';
    const response = await server.request('POST', `/api/jobs/jobs/${world.robotId}`, { token: token(), body: jobBody({ name, notes: '𝔘𝔙' }) });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(Job.parse(response.body)).toMatchObject({ name, notes: '𝔘𝔙' });
  });

  it.each([
    ['firstName', NUL],
    ['lastName', LONE_SURROGATE],
  ])('user %s with %j is a 400 naming the field', async (field, value) => {
    const body = { firstName: 'Maija', lastName: 'M', email: 'maija@hospital.test', password: 'long enough', [field]: value };
    expectFieldError(await server.request('POST', '/api/user/create', { token: token(), body }), field);
  });

  it('a group name with U+0000 is a 400 naming name', async () => {
    expectFieldError(await server.request('POST', '/api/group/create', { token: token(), body: { name: NUL } }), 'name');
  });

  it.each(['title', 'name', 'phone'])('contact %s with U+0000 is a 400 naming the field', async (field) => {
    const body = { title: 'Nurse', name: 'Maija', phone: '+358 40 1', email: 'maija@hospital.test', [field]: NUL };
    expectFieldError(await server.request('POST', '/api/contact/admin/profile/contacts', { token: token(), body }), field);
  });

  it('notification topics with U+0000 and device tokens over the index limit are 400s naming the field', async () => {
    const fcm = `fcm-${'a'.repeat(60)}`;
    expectFieldError(await server.request('POST', '/api/unsubscribe', { token: token(), body: { token: fcm, topic: NUL } }), 'topic');
    expectFieldError(await server.request('POST', '/api/subscribe', { token: token(), body: { token: fcm, topic: `${world.orgId}\u0000` } }), 'topic');
    // A btree index row holds at most 2704 bytes: the (token, topic) key of a 4000-character token cannot be stored.
    const huge = `fcm-${'x7'.repeat(1998)}`;
    expectFieldError(await server.request('POST', '/api/subscribe', { token: token(), body: { token: huge, topic: world.orgId } }), 'token');
  });
});

describe("the identity provider's form and realm", () => {
  const tokenPath = (realm: string) => `/idp/realms/${encodeURIComponent(realm)}/protocol/openid-connect/token`;

  it.each([
    ['username', { username: NUL }],
    ['password', { password: NUL }],
    ['client_id', { client_id: NUL }],
  ])('a token request with U+0000 in %s is a 400 invalid_request', async (field, form) => {
    const response = await server.request('POST', tokenPath(world.orgId), {
      form: { grant_type: 'password', client_id: server.context.config.clientId, username: world.admin.username, password: 'x', ...form },
    });
    expect(response.status, JSON.stringify(response.body)).toBe(400);
    const error = OAuthError.parse(response.body);
    expect(error.error).toBe('invalid_request');
    expect(error.error_description).toContain(field);
  });

  it.each([
    ['/.well-known/openid-configuration', 'GET'],
    ['/protocol/openid-connect/certs', 'GET'],
    ['/protocol/openid-connect/userinfo', 'GET'],
    ['/protocol/openid-connect/token', 'POST'],
    ['/protocol/openid-connect/revoke', 'POST'],
    ['/protocol/openid-connect/logout', 'POST'],
  ])('a realm with U+0000 in %s is a 400 invalid_request naming organization', async (suffix, method) => {
    const response = await server.request(method, `/idp/realms/${encodeURIComponent(NUL)}${suffix}`, {
      ...(method === 'POST' ? { form: { client_id: server.context.config.clientId, token: 'x', grant_type: 'password' } } : {}),
    });
    expect(response.status, JSON.stringify(response.body)).toBe(400);
    expect(OAuthError.parse(response.body).error_description).toContain('organization');
  });
});

describe('dates and timestamps', () => {
  it.each([
    ['from_date', '0000-01-01'],
    ['to_date', '0000-12-31'],
    ['from_date', '9999-12-31T23:59:00-23:59'],
    ['to_date', '0001-01-01T00:00:00+00:01'],
    ['from_date', '10000-01-01'],
  ])('the jobs and logs lists answer %s=%s with a 400 naming it', async (field, value) => {
    for (const path of ['/api/jobs/v2/jobs', '/api/log']) {
      expectFieldError(await server.request('GET', path, { token: token(), query: { [field]: value } }), field);
    }
  });

  it.each([
    ['0001-01-01', '9999-12-31'],
    ['0001-01-01T00:00:00Z', '9999-12-31T23:59:59.999Z'],
    ['0001-01-01T01:00:00+01:00', '9999-12-31T00:00:00-23:59'],
  ])('the lists accept the edges of years 1–9999: %s … %s', async (from_date, to_date) => {
    for (const path of ['/api/jobs/v2/jobs', '/api/log']) {
      const response = await server.request('GET', path, { token: token(), query: { from_date, to_date } });
      expect(response.status, JSON.stringify(response.body)).toBe(200);
    }
  });

  it.each(['0000-01-01T00:00:00Z', '9999-12-31T23:59:00-23:59', '0001-01-01T00:30:00+01:00'])(
    'a job start_time of %s is a 400 naming start_time',
    async (start_time) => {
      expectFieldError(
        await server.request('POST', `/api/jobs/jobs/${world.robotId}`, { token: token(), body: jobBody({ start_time }) }),
        'start_time',
      );
    },
  );

  it('a job may start late in year 9999', async () => {
    const response = await server.request('POST', `/api/jobs/jobs/${world.robotId}`, {
      token: token(),
      body: jobBody({ start_time: '9999-12-31T23:59:00+01:00' }),
    });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(ApiError.safeParse(response.body).success).toBe(false);
  });
});
