/**
 * The production start (README.md "Production"): `npm run build` compiles the server and the contracts to
 * JavaScript, `npm run serve` runs that output with plain node and `npm run serve:cluster` runs it in two processes
 * on one PostgreSQL and one MQTT broker. The suite's global setup builds the server as `npm run build` does
 * (testing/built-server.ts; the web console is not built, a stand-in index.html is served instead), and these
 * tests start the launchers with the flags of the npm scripts, as a deployment would.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { organizations, users } from './db/schema.ts';
import { hashPassword } from './identity/passwords.ts';
import { DIST_NODE_FLAGS } from './testing/built-server.ts';
import { brokerAnswers } from './testing/execution-fixtures.ts';
import { createTestDatabase, testEngine, type TestDatabase } from './testing/test-database.ts';

const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const STARTUP_TIMEOUT_MS = 90_000;
const MOSQUITTO = 'mqtt://127.0.0.1:1883';

const LogLine = z.object({
  level: z.number(),
  pid: z.number(),
  msg: z.string(),
  req: z.object({ url: z.string() }).optional(),
});
const parseLogLine = (line: string) => LogLine.parse(JSON.parse(line));
const accessToken = (reply: Reply) => z.object({ access_token: z.string() }).parse(JSON.parse(reply.body.toString())).access_token;

/** A launcher started with node: its stdout lines as they come, its stderr kept for failure messages. */
class Launched {
  readonly lines: string[] = [];
  stderr = '';
  readonly exited: Promise<number | null>;
  private readonly child: ChildProcess;
  private readonly waiters: (() => void)[] = [];

  constructor(script: string, env: Record<string, string>) {
    // Their defaults, whatever the surrounding environment says (NODE_ENV: vitest's `test` is not a deployment's).
    const { NODE_ENV: _nodeEnv, SEED_DEMO: _seedDemo, REQUEST_LOG_LEVEL: _requestLogLevel, ...inherited } = process.env;
    const child = spawn(process.execPath, [...DIST_NODE_FLAGS, join(REPO_ROOT, 'scripts', script)], {
      cwd: REPO_ROOT,
      env: { ...inherited, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    const { stdout, stderr } = child;
    createInterface({ input: stdout }).on('line', (line) => {
      this.lines.push(line);
      for (const wake of this.waiters.splice(0)) wake();
    });
    stderr.on('data', (chunk: Buffer) => (this.stderr += chunk.toString()));
    this.exited = new Promise((resolve) =>
      this.child.once('exit', (code) => {
        resolve(code);
        for (const wake of this.waiters.splice(0)) wake();
      }),
    );
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** What `found` makes of the lines so far once it makes something (a line may come after the reply it logs). */
  async waitFor<T>(what: string, found: (lines: readonly string[]) => T | undefined, timeoutMs = 10_000): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const result = found(this.lines);
      if (result !== undefined) return result;
      if (!this.running) throw new Error(`exited before ${what}:\n${this.lines.join('\n')}\n${this.stderr}`);
      if (Date.now() > deadline) throw new Error(`no ${what} in time:\n${this.lines.join('\n')}\n${this.stderr}`);
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 1000);
      });
    }
  }

  /** The addresses of the first `count` "Server listening at" lines. */
  listening(count: number): Promise<string[]> {
    return this.waitFor(
      'listening',
      (lines) => {
        const addresses = lines.flatMap((line) => /Server listening at (http:\/\/[^\s"]+)/.exec(line)?.[1] ?? []);
        return addresses.length >= count ? addresses : undefined;
      },
      STARTUP_TIMEOUT_MS,
    );
  }

  async stop(): Promise<number | null> {
    if (this.running) this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 20_000);
    const code = await this.exited;
    clearTimeout(timer);
    return code;
  }
}

interface Reply {
  status: number;
  type: string;
  body: Buffer;
}

/** One request on a connection of its own (no keep-alive), so that each may reach another server process. */
function get(url: string, headers: Record<string, string> = {}, method = 'GET', body?: string): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(url, { method, headers, agent: false }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        resolve({ status: response.statusCode ?? 0, type: response.headers['content-type'] ?? '', body: Buffer.concat(chunks) });
      });
      response.on('error', reject);
    });
    request.on('error', reject);
    request.end(body);
  });
}

function passwordGrant(baseUrl: string, realm: string, username: string, password: string): Promise<Reply> {
  const form = new URLSearchParams({ grant_type: 'password', client_id: 'uvd-console', username, password, scope: 'openid' });
  return get(`${baseUrl}/idp/realms/${realm}/protocol/openid-connect/token`, { 'content-type': 'application/x-www-form-urlencoded' }, 'POST', form.toString());
}

const temporary: string[] = [];

afterAll(() => {
  for (const dir of temporary) rmSync(dir, { recursive: true, force: true });
});

/** A folder standing in for apps/web/dist: the server serves whatever index.html it holds. */
function webDist(): string {
  const dir = mkdtempSync(join(tmpdir(), 'uvd-serve-web-'));
  temporary.push(dir);
  writeFileSync(join(dir, 'index.html'), '<!doctype html><title>UVD console stand-in</title>');
  return dir;
}

describe('npm run serve: the built server with plain node, on the embedded database', () => {
  let server: Launched;
  let baseUrl = '';

  beforeAll(async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'uvd-serve-'));
    temporary.push(dataDir);
    server = new Launched('serve.mjs', {
      PORT: '0',
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      DATABASE_URL: '',
      MQTT_URL: '',
      MQTT_PORT: '0',
      WEB_DIST: webDist(),
    });
    [baseUrl = ''] = await server.listening(1);
  }, STARTUP_TIMEOUT_MS);
  afterAll(async () => {
    await server.stop();
  });

  it('answers its health check, its runtime settings and the console', async () => {
    const health = await get(`${baseUrl}/healthz`);
    expect(health.status).toBe(200);
    expect(JSON.parse(health.body.toString())).toEqual({ status: 'ok', database: 'pglite' });
    expect((await get(`${baseUrl}/config.json`)).status).toBe(200);
    const page = await get(`${baseUrl}/jobs`, { accept: 'text/html' });
    expect(page.status).toBe(200);
    expect(page.body.toString()).toContain('UVD console stand-in');
  });

  it('seeds no demo organization when SEED_DEMO is unset', async () => {
    expect((await passwordGrant(baseUrl, 'demo', 'admin', 'admin-demo-1')).status).toBe(404);
  });

  it('logs JSON lines, each request among them', async () => {
    await get(`${baseUrl}/healthz?probe=json-lines`);
    const logged = (lines: readonly string[]) =>
      lines.map(parseLogLine).find((entry) => entry.msg === 'incoming request' && entry.req?.url === '/healthz?probe=json-lines');
    expect(await server.waitFor('the request logged', logged)).toMatchObject({ level: 30 });
    expect(server.stderr).toBe('');
  });

  it('stops cleanly on SIGTERM', async () => {
    expect(await server.stop()).toBe(0);
  });
});

/** What the cluster test needs and does not have: it runs on the suite's PostgreSQL pass with Mosquitto up. */
async function missingForCluster(): Promise<string[]> {
  const missing: string[] = [];
  const url = process.env.TEST_DATABASE_URL;
  if (testEngine() !== 'postgres' || !url) missing.push('TEST_DATABASE_URL (PostgreSQL)');
  else {
    const { hostname, port } = new URL(url);
    const [host, portNumber] = [hostname || '127.0.0.1', Number(port || '5432')];
    if (!(await brokerAnswers(host, portNumber))) missing.push(`PostgreSQL answering on ${host}:${portNumber}`);
  }
  if (!(await brokerAnswers())) missing.push(`Mosquitto on ${MOSQUITTO}`);
  return missing;
}
const missing = await missingForCluster();

describe.skipIf(missing.length > 0)(
  `npm run serve:cluster: two built server processes on one PostgreSQL and Mosquitto${missing.length > 0 ? ` (skipped: needs ${missing.join(' and ')})` : ''}`,
  () => {
    let scratch: TestDatabase;
    let cluster: Launched;
    let baseUrl = '';
    const orgId = `cluster-${randomBytes(3).toString('hex')}`;
    const password = `pw-${randomBytes(6).toString('hex')}`;

    beforeAll(async () => {
      scratch = await createTestDatabase();
      const db = scratch.database.db;
      await db.insert(organizations).values({ id: orgId, name: orgId });
      await db.insert(users).values({
        orgId,
        username: 'admin',
        firstName: 'Cluster',
        lastName: 'Admin',
        email: 'admin@example.test',
        passwordHash: await hashPassword(password),
        roles: ['done-admin'],
      });
      cluster = new Launched('serve-cluster.mjs', {
        PORT: '0',
        HOST: '127.0.0.1',
        DATABASE_URL: scratch.url ?? '',
        MQTT_URL: MOSQUITTO,
        // A deployment of its own on the shared broker (config.ts MQTT_SHARE_GROUP).
        MQTT_SHARE_GROUP: `uvd-cluster-test-${randomBytes(4).toString('hex')}`,
        CLUSTER_PROCESSES: '2',
        TOKEN_RATE_LIMIT_PER_MINUTE: '0',
        WEB_DIST: webDist(),
      });
      const addresses = await cluster.listening(2);
      // node:cluster: both processes listen on one port.
      expect(new Set(addresses).size).toBe(1);
      [baseUrl = ''] = addresses;
    }, STARTUP_TIMEOUT_MS);
    afterAll(async () => {
      await cluster.stop();
      await scratch.drop();
    });

    it('runs two processes, both answering with a token either of them issued, on the same database', async () => {
      const grant = await passwordGrant(baseUrl, orgId, 'admin', password);
      expect(grant.status).toBe(200);
      const token = accessToken(grant);
      for (let i = 0; i < 8; i += 1) {
        const reply = await get(`${baseUrl}/api/reports/period?from_date=2026-01-01&to_date=2026-01-31&probe=${i}`, { authorization: `Bearer ${token}` });
        expect(reply.status, reply.body.toString()).toBe(200);
      }
      // The kernel spreads new connections over both processes.
      const handledBy = (lines: readonly string[]) => {
        const probes = lines.map(parseLogLine).filter((entry) => entry.msg === 'incoming request' && entry.req?.url.includes('probe='));
        return probes.length === 8 ? new Set(probes.map((entry) => entry.pid)) : undefined;
      };
      expect((await cluster.waitFor('the requests logged', handledBy)).size).toBe(2);
      const health = await get(`${baseUrl}/healthz`);
      expect(JSON.parse(health.body.toString())).toEqual({ status: 'ok', database: 'postgres' });
    });

    it('draws a PDF report in the built worker thread', async () => {
      const grant = await passwordGrant(baseUrl, orgId, 'admin', password);
      const token = accessToken(grant);
      const pdf = await get(`${baseUrl}/api/reports/period/pdf?from_date=2026-01-01&to_date=2026-01-31`, { authorization: `Bearer ${token}` });
      expect(pdf.status, pdf.body.toString()).toBe(200);
      expect(pdf.type).toContain('application/pdf');
      expect(pdf.body.subarray(0, 5).toString()).toBe('%PDF-');
    });

    it('stops both processes on SIGTERM and exits 0', async () => {
      expect(await cluster.stop()).toBe(0);
      const stopped = cluster.lines.map(parseLogLine).filter((entry) => entry.msg === 'shutting down');
      expect(new Set(stopped.map((entry) => entry.pid)).size).toBe(2);
    });
  },
);
