import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OAuthError } from '@uvd/contracts';
import { loadConfig } from '../config.ts';
import { startTestServer, type TestServer } from '../testing/harness.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({
    loadShedding: { ...loadConfig({}).loadShedding, maxInFlight: 1, maxEventLoopDelayMs: 0, retryAfterSeconds: 3 },
  });
});
afterAll(async () => {
  await server.close();
});

/** A request in flight from its headers on (its body never completes) until `end()` hangs up. */
async function holdRequest(): Promise<{ end(): void }> {
  const { hostname, port } = new URL(server.url);
  const socket = connect({ host: hostname, port: Number(port) });
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  socket.write(`POST /idp/realms/nowhere/protocol/openid-connect/token HTTP/1.1\r\nHost: ${hostname}\r\n` +
    'Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 100\r\n\r\ngrant');
  return { end: () => socket.destroy() };
}

describe('the identity provider under load shedding', () => {
  it('answers a shed token request 503 temporarily_unavailable with Retry-After, not 500', async () => {
    const held = await holdRequest();
    try {
      const answer = await (async () => {
        // The held request counts from its headers on; wait until it does.
        for (let attempt = 0; attempt < 100; attempt += 1) {
          const response = await server.request('POST', '/idp/realms/nowhere/protocol/openid-connect/token', {
            form: { grant_type: 'password', client_id: server.context.config.clientId, username: 'u', password: 'p' },
          });
          if (response.status !== 404) return response;
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        throw new Error('the held request never counted');
      })();
      expect(answer.status).toBe(503);
      expect(answer.headers.get('retry-after')).toBe('3');
      expect(OAuthError.parse(answer.body).error).toBe('temporarily_unavailable');
    } finally {
      held.end();
    }
  });
});
