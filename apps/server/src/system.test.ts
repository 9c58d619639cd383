import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RuntimeConfig } from '@uvd/contracts';
import { startRouteTestServer, type TestServer } from './testing/harness.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startRouteTestServer();
});
afterAll(async () => {
  await server.close();
});

describe('system routes', () => {
  it('answers /healthz once migrations ran', async () => {
    const response = await server.request('GET', '/healthz');
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ status: 'ok' });
  });

  it('serves the runtime config the web app reads', async () => {
    const response = await server.request('GET', '/config.json');
    expect(response.status).toBe(200);
    const config = RuntimeConfig.parse(response.body);
    expect(config.backends.jobs).toBe(`${server.url}/api`);
    expect(config.identity).toBe(`${server.url}/idp`);
    expect(config.clientId).toBe('uvd-console');
  });

  it('serves the OpenAPI document at /api/docs', async () => {
    const response = await server.request<{ openapi: string; paths: Record<string, unknown> }>('GET', '/api/docs/json');
    expect(response.status).toBe(200);
    expect(response.body.openapi).toMatch(/^3\./);
  });

  it('answers unknown routes with the error shape', async () => {
    const response = await server.request('GET', '/api/no-such-thing');
    expect(response.status).toBe(404);
    expect(response.body).toEqual({ error: 'not_found', message: 'No route GET /api/no-such-thing.' });
  });
});
