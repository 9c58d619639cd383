import * as contracts from '@uvd/contracts';
import { commandJob, createGroup, getAction, getJob, getMyProfile, listJobs } from '@uvd/contracts';
import type { RouteContract } from '@uvd/contracts';
import { describe, expect, it } from 'vitest';
import { FakeNetwork } from '../testing/fake-network.ts';
import { ORIGIN, sessionUser, testConfig } from '../testing/fixtures.ts';
import { backendOf, createApiClient } from './api-client.ts';
import { commandParts, newCommandKey } from './command.ts';
import { ApiRequestError } from './api-error.ts';

const JOB_ID = '0b8f3a52-51d4-4e0c-9d0f-2a6c7d8e9f01';
const ROBOT_A = '3c2d1e0f-aaaa-4bbb-8ccc-0d1e2f3a4b5c';
const ROBOT_B = '3c2d1e0f-bbbb-4bbb-8ccc-0d1e2f3a4b5c';

const client = (network: FakeNetwork, token: string | null = 'token-1') =>
  createApiClient(testConfig(), { fetch: network.fetch, getAccessToken: () => token });

const failure = async (promise: Promise<unknown>): Promise<ApiRequestError> => {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ApiRequestError) return error;
    throw error;
  }
  throw new Error('expected the call to fail');
};

describe('api client', () => {
  it('builds the URL from the contract: path parameters, repeated list parameters, the backend base address', async () => {
    const network = new FakeNetwork().on(listJobs, { status: 200, body: { count: 0, payload: [] } });
    const reply = await client(network).request(listJobs, {
      query: { offset: 10, limit: 10, robot_id: [ROBOT_A, ROBOT_B], from_date: '2025-01-01' },
    });
    expect(reply).toEqual({ count: 0, payload: [] });
    const [call] = network.callsTo(listJobs);
    expect(`${call?.url.origin ?? ''}${call?.url.pathname ?? ''}`).toBe(`${ORIGIN}/api/jobs/v2/jobs`);
    expect(call?.url.searchParams.getAll('robot_id')).toEqual([ROBOT_A, ROBOT_B]);
    expect(call?.url.searchParams.get('offset')).toBe('10');
    expect(call?.url.searchParams.get('from_date')).toBe('2025-01-01');
    expect(call?.url.searchParams.has('to_date')).toBe(false);
  });

  it('substitutes path parameters, sends the query and the body as JSON, parses a 201 reply', async () => {
    const network = new FakeNetwork()
      .on(commandJob, { status: 200, body: { data: true } })
      .on(createGroup, (request) => ({ status: 201, body: { id: JOB_ID, name: request.body.includes('Ward C') ? 'Ward C' : 'unexpected' } }));
    const api = client(network);
    await expect(api.request(commandJob, { params: { job_id: JOB_ID }, query: { command: 'pause' } })).resolves.toEqual({ data: true });
    const [command] = network.callsTo(commandJob);
    expect(command?.url.pathname).toBe(`/api/command/job/${JOB_ID}`);
    expect(command?.url.search).toBe('?command=pause');

    await expect(api.request(createGroup, { body: { name: 'Ward C' } })).resolves.toEqual({ id: JOB_ID, name: 'Ward C' });
    const [create] = network.callsTo(createGroup);
    expect(JSON.parse(create?.body ?? '')).toEqual({ name: 'Ward C' });
    expect(create?.headers.get('content-type')).toContain('application/json');
  });

  it('sends the bearer token of the session and echoes the XSRF-TOKEN cookie as X-XSRF-TOKEN', async () => {
    document.cookie = 'XSRF-TOKEN=anti-forgery-1; path=/';
    const network = new FakeNetwork().on(getMyProfile, { status: 200, body: sessionUser() });
    await client(network, 'token-7').request(getMyProfile, {});
    const [call] = network.callsTo(getMyProfile);
    expect(call?.headers.get('authorization')).toBe('Bearer token-7');
    expect(call?.headers.get('x-xsrf-token')).toBe('anti-forgery-1');
  });

  it('sends no Authorization header without a session', async () => {
    const network = new FakeNetwork().on(getMyProfile, { status: 200, body: sessionUser() });
    await client(network, null).request(getMyProfile, {});
    expect(network.callsTo(getMyProfile)[0]?.headers.has('authorization')).toBe(false);
  });

  it('parses the reply with the contract: a 204 is the contract null, a shape the contract does not allow is an error', async () => {
    const network = new FakeNetwork().on(getAction, { status: 204 });
    await expect(client(network).request(getAction, { query: { job_id: JOB_ID } })).resolves.toBeNull();

    // The fake network refuses replies that break their contract, so this server is a bare fetch on purpose.
    const skewed: typeof fetch = async () =>
      new Response(JSON.stringify({ sub: 'x' }), { status: 200, headers: { 'content-type': 'application/json' } });
    const error = await failure(createApiClient(testConfig(), { fetch: skewed }).request(getMyProfile, {}));
    expect(error.kind).toBe('invalid-reply');
  });

  it("keeps the server's {error, message} of a status outside 200-299", async () => {
    const network = new FakeNetwork().on(getJob, { status: 404, body: { error: 'not_found', message: 'Job not found' } });
    const error = await failure(client(network).request(getJob, { params: { id: JOB_ID }, query: { extra_room_data: 'true' } }));
    expect(error).toMatchObject({ kind: 'status', status: 404, code: 'not_found', message: 'Job not found' });
  });

  it('maps a network failure and an aborted call to their kinds', async () => {
    const network = new FakeNetwork().on(getMyProfile, { networkError: true });
    expect((await failure(client(network).request(getMyProfile, {}))).kind).toBe('network');

    const hanging = new FakeNetwork().on(getMyProfile, { hang: true });
    const controller = new AbortController();
    const pending = client(hanging).request(getMyProfile, { signal: controller.signal });
    controller.abort();
    expect((await failure(pending)).kind).toBe('aborted');
  });

  it('maps timeout and unsupported-protocol transport errors (behaviour §8)', async () => {
    // The client sets no timeout (behaviour §9); a caller's signal that times out is reported as one.
    const hanging = new FakeNetwork().on(getMyProfile, { hang: true });
    expect((await failure(client(hanging).request(getMyProfile, { signal: AbortSignal.timeout(20) }))).kind).toBe('timeout');

    const network = new FakeNetwork().on(getMyProfile, { status: 200, body: sessionUser() });
    const ftp = createApiClient(testConfig({ backends: { ...testConfig().backends, users: 'ftp://files.example/api' } }), { fetch: network.fetch });
    expect((await failure(ftp.request(getMyProfile, {}))).kind).toBe('unsupported-protocol');
    expect(network.requests).toHaveLength(0);
  });

  it('knows which backend of the runtime config serves every API contract', () => {
    const exported: unknown[] = Object.values(contracts);
    const apiContracts = exported.filter(
      (value): value is RouteContract =>
        typeof value === 'object' &&
        value !== null &&
        'path' in value &&
        typeof value.path === 'string' &&
        'tags' in value &&
        Array.isArray(value.tags) &&
        'response' in value,
    );
    const served = apiContracts.filter((contract) => !contract.tags.includes('identity') && !contract.tags.includes('system'));
    expect(served.length).toBeGreaterThan(50);
    for (const contract of served) expect(() => backendOf(contract.path), contract.path).not.toThrow();
    expect(backendOf(listJobs.path)).toBe('jobs');
    expect(backendOf('/admin/robot/robots')).toBe('robots');
    expect(backendOf('/admin/rooms/room')).toBe('rooms');
    expect(backendOf('/contact/profile/contacts')).toBe('users');
  });
});

describe('commands (an Idempotency-Key, retried)', () => {
  const refusedBusy = (retryAfter: string) => ({ status: 503, body: { error: 'overloaded', message: 'Busy' }, headers: { 'Retry-After': retryAfter } });

  it('are not retried unless marked so, nor after a Retry-After too long to wait, nor after a refusal', async () => {
    const network = new FakeNetwork().on(commandJob, { networkError: true });
    const api = client(network);
    expect((await failure(api.request(commandJob, { params: { job_id: JOB_ID }, query: { command: 'pause' } }))).kind).toBe('network');
    expect(network.callsTo(commandJob)).toHaveLength(1);

    network.on(commandJob, refusedBusy('60'));
    const key = 'key-1';
    expect((await failure(api.request(commandJob, { params: { job_id: JOB_ID }, query: { command: 'pause' }, ...commandParts(key) }))).status).toBe(503);
    expect(network.callsTo(commandJob)).toHaveLength(2);

    network.on(commandJob, { status: 409, body: { error: 'job_state', message: 'The job has ended.' } });
    expect((await failure(api.request(commandJob, { params: { job_id: JOB_ID }, query: { command: 'pause' }, ...commandParts(key) }))).status).toBe(409);
    expect(network.callsTo(commandJob)).toHaveLength(3);
    expect(network.callsTo(commandJob).at(-1)?.headers.get('Idempotency-Key')).toBe(key);
  });

  it('give up after three attempts with the same key', async () => {
    const network = new FakeNetwork().on(commandJob, refusedBusy('0'));
    const key = 'key-2';
    const error = await failure(client(network).request(commandJob, { params: { job_id: JOB_ID }, query: { command: 'stop' }, ...commandParts(key) }));
    expect(error.status).toBe(503);
    expect(network.callsTo(commandJob).map((call) => call.headers.get('Idempotency-Key'))).toEqual([key, key, key]);
  });

  it('get a UUID, or 128 random bits in hex where the page is no secure context (no crypto.randomUUID)', () => {
    expect(newCommandKey()).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const insecure: Pick<Crypto, 'getRandomValues'> = { getRandomValues: crypto.getRandomValues.bind(crypto) };
    const [a, b] = [newCommandKey(insecure), newCommandKey(insecure)];
    expect(a).toMatch(/^[0-9a-f]{32}$/);
    expect(a).not.toBe(b);
  });
});
