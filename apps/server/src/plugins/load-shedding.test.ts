import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, ErrorCode } from '@uvd/contracts';
import { loadConfig } from '../config.ts';
import { startTestServer, type TestServer, type TestUser } from '../testing/harness.ts';

const MAX_IN_FLIGHT = 4;
const FLOOD = 200;

let server: TestServer;
let operator: TestUser;

beforeAll(async () => {
  server = await startTestServer({
    loadShedding: { ...loadConfig({}).loadShedding, maxInFlight: MAX_IN_FLIGHT, maxEventLoopDelayMs: 0, maxEventLoopUtilization: 0, retryAfterSeconds: 3 },
  });
  const orgId = await server.createOrg();
  operator = await server.createUser(orgId, ['done-admin']);
});
afterAll(async () => {
  await server.close();
});

interface Answer {
  status: number;
  retryAfter: string | null;
  body: unknown;
}

const listJobs = async (): Promise<Answer> => {
  const response = await fetch(`${server.url}/api/jobs/v2/jobs`, { headers: { authorization: `Bearer ${operator.token}` } });
  const text = await response.text();
  return { status: response.status, retryAfter: response.headers.get('retry-after'), body: text ? JSON.parse(text) : null };
};

/** A group creation whose body is sent in two parts: in flight from its headers until `end()` sends the rest. */
interface Upload {
  /** Sends the rest of the body. */
  end(): void;
  answered: Promise<void>;
  /** The status line of the server's reply so far, empty while none came. */
  reply(): string;
}
const startUpload = async (): Promise<Upload> => {
  const body = JSON.stringify({ name: `upload-${Math.random().toString(36).slice(2)}` });
  const { hostname, port } = new URL(server.url);
  const socket = connect({ host: hostname, port: Number(port) });
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  let reply = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => (reply += chunk));
  socket.on('error', () => undefined);
  const answered = new Promise<void>((resolve) => socket.once('close', () => {
    resolve();
  }));
  socket.write(
    `POST /api/group/create HTTP/1.1\r\nHost: ${hostname}\r\nAuthorization: Bearer ${operator.token}\r\nConnection: close\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 4)}`,
  );
  // Not socket.end(): a client that half-closes may lose its reply (the server closes on the end of input).
  return { end: () => socket.write(body.slice(4)), answered, reply: () => reply.split('\r\n')[0] ?? '' };
};

/** Opens a live stream and resolves once its head arrived; the returned function hangs up. */
const openStream = async (path: string): Promise<() => void> => {
  const abort = new AbortController();
  const response = await fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${operator.token}` }, signal: abort.signal });
  expect(response.status).toBe(200);
  return () => {
    abort.abort();
  };
};

describe('load shedding on requests in flight', () => {
  it('answers a flood beyond the in-flight limit with 503, Retry-After and the error shape, and no other 5xx', async () => {
    // Requests whose bodies are still arriving are in flight for as long as the client wants: they fill the limit
    // deterministically, whatever the database engine (PGlite answers a small list without yielding).
    // One upload more than the limit, and nothing else: the server refuses exactly one, and its 503 says that the
    // others hold every place (a probe request would hold one itself).
    const uploads = await Promise.all(Array.from({ length: MAX_IN_FLIGHT + 1 }, () => startUpload()));
    let answers: Answer[];
    let fromShell: Response;
    let unshed: number[];
    try {
      const deadline = Date.now() + 20_000;
      while (uploads.every((upload) => upload.reply() === '') && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(uploads.map((upload) => upload.reply()).filter((reply) => reply !== '')).toEqual(['HTTP/1.1 503 Service Unavailable']);
      answers = await Promise.all(Array.from({ length: FLOOD }, () => listJobs()));
      // Live streams have their own limit: they open while every in-flight place is held.
      const hangUps = await Promise.all(Array.from({ length: 3 }, () => openStream('/api/jobs/v2/jobs/stream')));
      for (const hangUp of hangUps) hangUp();
      // The mobile shell (another origin) can read the 503 and when to come back.
      fromShell = await fetch(`${server.url}/api/jobs/v2/jobs`, { headers: { authorization: `Bearer ${operator.token}`, origin: 'capacitor://localhost' } });
      // The API is full; the health check and the web console's files are still served.
      unshed = [(await fetch(`${server.url}/healthz`)).status, (await fetch(`${server.url}/config.json`)).status];
    } finally {
      for (const upload of uploads) upload.end();
    }
    expect(answers.filter((answer) => answer.status === 503).length).toBe(FLOOD);
    expect(fromShell.status).toBe(503);
    expect(fromShell.headers.get('access-control-allow-origin')).toBe('capacitor://localhost');
    expect(fromShell.headers.get('access-control-expose-headers')?.toLowerCase()).toContain('retry-after');
    expect(unshed).toEqual([200, 200]);
    for (const answer of answers) {
      expect(answer.retryAfter).toBe('3');
      expect(ApiError.parse(answer.body).error).toBe(ErrorCode.overloaded);
    }
    // Once the uploads are answered, their places are free again; a flood gets answers or 503s, never another 5xx.
    await Promise.all(uploads.map((upload) => upload.answered));
    expect(uploads.map((upload) => upload.reply()).filter((reply) => !/^HTTP\/1\.1 (201|503) /.test(reply))).toEqual([]);
    const second = await Promise.all(Array.from({ length: FLOOD }, () => listJobs()));
    expect(second.filter((answer) => answer.status >= 500 && answer.status !== 503)).toEqual([]);
    expect(second.some((answer) => answer.status === 200)).toBe(true);
    expect((await listJobs()).status).toBe(200);
  });

  it('does not count live streams or health checks as requests in flight', async () => {
    const hangUps: (() => void)[] = [];
    try {
      for (const path of ['/api/jobs/v2/jobs/stream', '/api/action/action/stream', '/api/robot/stream', '/api/jobs/v2/jobs/stream', '/api/robot/stream']) {
        hangUps.push(await openStream(path));
      }
      expect(hangUps.length).toBeGreaterThan(MAX_IN_FLIGHT);
      expect((await listJobs()).status).toBe(200);
      const health = await Promise.all(Array.from({ length: FLOOD }, () => fetch(`${server.url}/healthz`).then((response) => response.status)));
      expect(new Set(health)).toEqual(new Set([200]));
    } finally {
      for (const hangUp of hangUps) hangUp();
    }
  });
});

describe('the live stream limit (LIVE_MAX_STREAMS)', () => {
  const MAX_STREAMS = 3;
  let limited: TestServer;
  let token: string;
  beforeAll(async () => {
    limited = await startTestServer({ liveMaxStreams: MAX_STREAMS });
    token = (await limited.createUser(await limited.createOrg(), ['done-admin'])).token;
  });
  afterAll(async () => {
    await limited.close();
  });

  const stream = (path = '/api/robot/stream') => {
    const abort = new AbortController();
    const opened = fetch(`${limited.url}${path}`, { headers: { authorization: `Bearer ${token}` }, signal: abort.signal });
    return { opened, hangUp: () => { abort.abort(); } };
  };

  it('admits streams up to the limit, refuses the next with 503, Retry-After and the error shape, and admits again once one closes', async () => {
    const open = Array.from({ length: MAX_STREAMS }, (_, index) => stream(index % 2 === 0 ? '/api/robot/stream' : '/api/jobs/v2/jobs/stream'));
    try {
      expect((await Promise.all(open.map(({ opened }) => opened))).map((response) => response.status)).toEqual([200, 200, 200]);
      const refused = await stream('/api/action/action/stream').opened;
      expect(refused.status).toBe(503);
      expect(refused.headers.get('retry-after')).toBe(String(loadConfig({}).loadShedding.retryAfterSeconds));
      expect(ApiError.parse(await refused.json()).error).toBe(ErrorCode.overloaded);
      // The API is not the streams' limit.
      expect((await limited.request('GET', '/api/jobs/v2/jobs', { token })).status).toBe(200);

      open[0]?.hangUp();
      // The server hears of the hang-up a moment later.
      const deadline = Date.now() + 10_000;
      let again = await stream().opened;
      while (again.status === 503 && Date.now() < deadline) {
        await again.body?.cancel();
        await new Promise((resolve) => setTimeout(resolve, 50));
        again = await stream().opened;
      }
      expect(again.status).toBe(200);
      await again.body?.cancel();
    } finally {
      for (const { hangUp } of open) hangUp();
    }
  });
});

/**
 * The server runs in this process: keeping the loop busy here is what CPU-bound handlers would do. Long turns make
 * the delay (a mean over a second of 10 ms samples) high; short ones keep it low while the loop is never idle.
 */
describe.each([
  { signal: 'delay', turnMs: 300, loadShedding: { maxInFlight: 0, maxEventLoopDelayMs: 200, maxEventLoopUtilization: 0, retryAfterSeconds: 2 } },
  { signal: 'utilization', turnMs: 5, loadShedding: { maxInFlight: 0, maxEventLoopDelayMs: 0, maxEventLoopUtilization: 0.9, retryAfterSeconds: 2 } },
])('load shedding on event loop $signal', ({ turnMs, loadShedding }) => {
  let lagging: TestServer;
  let user: TestUser;
  beforeAll(async () => {
    lagging = await startTestServer({ loadShedding });
    user = await lagging.createUser(await lagging.createOrg(), ['done-admin']);
  });
  afterAll(async () => {
    await lagging.close();
  });

  const list = async (): Promise<Answer> => {
    const response = await fetch(`${lagging.url}/api/jobs/v2/jobs`, { headers: { authorization: `Bearer ${user.token}` } });
    const text = await response.text();
    return { status: response.status, retryAfter: response.headers.get('retry-after'), body: text ? JSON.parse(text) : null };
  };

  /** Asks until `status` comes back, or gives up after a generous while and returns the last answer. */
  const until = async (status: number) => {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const answer = await list();
      if (answer.status === status || Date.now() > deadline) return answer;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };

  it('answers 503 with Retry-After while the event loop is overloaded, and serves again once it recovers', async () => {
    let busy = true;
    const blocking = (async () => {
      while (busy) {
        const turnEnds = Date.now() + turnMs;
        while (Date.now() < turnEnds) {
          // busy
        }
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    // The loop is sampled once a second: the next sample sheds.
    const shed = await until(503);
    // A live stream is not shed for the loop: consoles reconnecting after a restart come when it is busiest.
    const abort = new AbortController();
    const streamed = await fetch(`${lagging.url}/api/robot/stream`, { headers: { authorization: `Bearer ${user.token}` }, signal: abort.signal });
    abort.abort();
    const stillShed = await list();
    busy = false;
    await blocking;
    expect(streamed.status).toBe(200);
    expect(stillShed.status).toBe(503);
    expect(shed.status).toBe(503);
    expect(shed.retryAfter).toBe('2');
    expect(ApiError.parse(shed.body).error).toBe(ErrorCode.overloaded);
    expect((await until(200)).status).toBe(200);
    expect((await lagging.request('GET', '/healthz')).status).toBe(200);
  });
});
