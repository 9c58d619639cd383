/**
 * Slowloris-style clients: a request whose headers or body never finish arriving is cut by the server within the
 * configured time, while a live stream (a long response to a request that did arrive) stays open.
 */
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from './config.ts';
import { startTestServer, type TestServer, type TestUser } from './testing/harness.ts';

const HEADERS_TIMEOUT_MS = 1000;
const REQUEST_TIMEOUT_MS = 2000;
/**
 * How long a stalled request may stay open before the test fails: far below Node's defaults (headers 60 s,
 * request 300 s), far above the configured timeouts plus a loaded machine's delays; the 408 says which cut it.
 */
const WAIT_LIMIT_MS = 12_000;

let server: TestServer;
let operator: TestUser;

beforeAll(async () => {
  server = await startTestServer({
    http: { ...loadConfig({}).http, headersTimeoutMs: HEADERS_TIMEOUT_MS, requestTimeoutMs: REQUEST_TIMEOUT_MS },
    liveHeartbeatMs: 250,
  });
  operator = await server.createUser(await server.createOrg(), ['done-admin']);
});
afterAll(async () => {
  await server.close();
});

interface Cut {
  reply: string;
}

/** Sends `text` on a raw connection and stalls; resolves when the server closes it, rejects after WAIT_LIMIT_MS. */
function sendAndStall(text: string): Promise<Cut> {
  const { hostname, port } = new URL(server.url);
  return new Promise((resolve, reject) => {
    const socket: Socket = connect({ host: hostname, port: Number(port) });
    let reply = '';
    const limit = setTimeout(() => {
      socket.destroy();
      reject(new Error(`the server kept a stalled request open for ${WAIT_LIMIT_MS} ms`));
    }, WAIT_LIMIT_MS);
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (reply += chunk));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(limit);
      resolve({ reply });
    });
    socket.on('connect', () => {
      socket.write(text);
    });
  });
}

describe('slow clients', () => {
  it('cuts (408) a request whose headers stall half-way, at the headers timeout', async () => {
    const cut = await sendAndStall(`GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: `);
    expect(cut.reply).toMatch(/^HTTP\/1\.1 408/);
  });

  it('cuts (408) a request whose body stalls half-way, at the request timeout', async () => {
    const body = JSON.stringify({ name: 'never finished' });
    const cut = await sendAndStall(
      `POST /api/group/create HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${operator.token}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 5)}`,
    );
    expect(cut.reply).toMatch(/^HTTP\/1\.1 408/);
  });

  it('keeps a live stream open beyond the request timeout: it is a long response, not a long request', async () => {
    const abort = new AbortController();
    const response = await fetch(`${server.url}/api/jobs/v2/jobs/stream`, {
      headers: { authorization: `Bearer ${operator.token}` },
      signal: abort.signal,
    });
    expect(response.status).toBe(200);
    const body = response.body;
    if (!body) throw new Error('no stream body');
    const reader = body.pipeThrough(new TextDecoderStream()).getReader();
    const openedAt = Date.now();
    try {
      // Heartbeats keep coming after the time a stalled request would have been cut.
      let lastFrameAt = openedAt;
      while (lastFrameAt - openedAt < 2 * REQUEST_TIMEOUT_MS) {
        const { done } = await reader.read();
        expect(done).toBe(false);
        lastFrameAt = Date.now();
      }
    } finally {
      abort.abort();
    }
  });
});
