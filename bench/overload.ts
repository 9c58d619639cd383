/**
 * The server under more load than it can take: load shedding on against off, and the API while wrong
 * MQTT logins hammer the embedded broker.
 *
 *   npx tsx bench/overload.ts [--seconds 6] [--acceptable-p99 250]
 *
 * 1. Capacity: the real server (apps/server/src/server.ts, its own process, so the load generator here does not
 *    share its event loop) on a fresh PostgreSQL database with the demo organizations; closed-loop clients on the
 *    jobs list at 1, 2, 4 … concurrent requests; the capacity is the best throughput whose p99 stays acceptable.
 * 2. Overload: requests arrive at twice that rate (open loop: each on its schedule, whether or not earlier ones
 *    were answered) for --seconds, against the same server with load shedding on (the defaults) and off.
 * 3. Wrong MQTT logins: jobs list p50/p99 from 4 closed-loop clients, idle, then while 50 MQTT clients log in
 *    with a wrong password for a robot that has one, each retrying at once (the broker's password check is
 *    argon2id), with the login attempts per second the broker answered.
 * DATABASE_URL or postgres://postgres@127.0.0.1:5432/test names the PostgreSQL server; the bench's database is
 * dropped at the end. Loopback only. Prints figures; never fails on them.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { parseArgs } from 'node:util';
import { eq } from 'drizzle-orm';
import mqtt from 'mqtt';
import { z } from 'zod';
import { LOAD_SHEDDING_OFF } from '../apps/server/src/config.ts';
import { createScratchDatabase } from '../apps/server/src/db/scratch-database.ts';
import { robots } from '../apps/server/src/db/schema.ts';
import { hashPassword } from '../apps/server/src/identity/passwords.ts';
import { waitForHealth } from '../e2e/support/server.ts';
import { REPO_ROOT } from '../e2e/support/paths.ts';

const { values: args } = parseArgs({
  options: {
    seconds: { type: 'string', default: '6' },
    'acceptable-p99': { type: 'string', default: '250' },
  },
});
const overloadSeconds = Number(args.seconds);
const acceptableP99Ms = Number(args['acceptable-p99']);
const LIST = '/api/jobs/v2/jobs';
const STEP_MS = 1500;
const MQTT_CLIENTS = 50;
const PHASE_MS = 5000;

interface Stats {
  n: number;
  p50: number;
  p99: number;
  max: number;
}

function stats(samples: readonly number[]): Stats {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? Number.NaN;
  return { n: sorted.length, p50: at(0.5), p99: at(0.99), max: sorted[sorted.length - 1] ?? Number.NaN };
}

const ms = (value: number) => (Number.isNaN(value) ? '–' : value < 10 ? value.toFixed(1) : value.toFixed(0));

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => {
        if (typeof address === 'object' && address) resolve(address.port);
        else reject(new Error('no port'));
      });
    });
  });
}

interface RunningServer {
  base: string;
  mqttUrl: string;
  stop(): Promise<void>;
}

async function startServer(databaseUrl: string, env: Record<string, string>): Promise<RunningServer> {
  const [port, mqttPort] = [await freePort(), await freePort()];
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'apps/server/src/server.ts'], {
    cwd: REPO_ROOT,
    env: {
      ...process.env,
      NODE_ENV: 'production',
      DATABASE_URL: databaseUrl,
      MQTT_URL: '',
      MQTT_PORT: String(mqttPort),
      PORT: String(port),
      HOST: '127.0.0.1',
      SEED_DEMO: 'true',
      LOG_LEVEL: 'error',
      TOKEN_RATE_LIMIT_PER_MINUTE: '0',
      ...env,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const base = `http://127.0.0.1:${port}`;
  await waitForHealth(base);
  return {
    base,
    mqttUrl: `mqtt://127.0.0.1:${mqttPort}`,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) {
          resolve();
          return;
        }
        const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        child.once('exit', () => {
          clearTimeout(timer);
          resolve();
        });
        child.kill('SIGTERM');
      }),
  };
}

const TokenReply = z.object({ access_token: z.string() });

async function adminToken(base: string): Promise<string> {
  const response = await fetch(`${base}/idp/realms/demo/protocol/openid-connect/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'password', client_id: 'uvd-console', username: 'admin', password: 'admin-demo-1', scope: 'openid' }),
  });
  return TokenReply.parse(await response.json()).access_token;
}

interface Answer {
  status: number;
  ms: number;
}

async function timedGet(url: string, token: string): Promise<Answer> {
  const started = performance.now();
  try {
    const response = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
    await response.arrayBuffer();
    return { status: response.status, ms: performance.now() - started };
  } catch {
    // A refused or reset connection: counted apart from HTTP statuses.
    return { status: 0, ms: performance.now() - started };
  }
}

/** `workers` clients, each sending its next request when the last is answered, for `durationMs`. */
async function closedLoop(url: string, token: string, workers: number, durationMs: number): Promise<{ perSecond: number; answers: Answer[] }> {
  const answers: Answer[] = [];
  const ends = performance.now() + durationMs;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: workers }, async () => {
      while (performance.now() < ends) answers.push(await timedGet(url, token));
    }),
  );
  return { perSecond: answers.length / ((performance.now() - started) / 1000), answers };
}

/** Requests arriving at `rate` per second for `durationMs`, each on its schedule; resolves when all are answered. */
async function openLoop(url: string, token: string, rate: number, durationMs: number): Promise<Answer[]> {
  const pending: Promise<Answer>[] = [];
  const started = performance.now();
  while (performance.now() - started < durationMs) {
    const due = Math.floor(((performance.now() - started) / 1000) * rate);
    while (pending.length < due) pending.push(timedGet(url, token));
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return Promise.all(pending);
}

async function findCapacity(base: string, token: string): Promise<number> {
  console.log(`\n1. Capacity of ${LIST} (closed loop, ${STEP_MS / 1000} s per step; acceptable p99 ≤ ${acceptableP99Ms} ms)`);
  console.log(`${'concurrent'.padStart(10)} ${'req/s'.padStart(7)} ${'p50 ms'.padStart(7)} ${'p99 ms'.padStart(7)}`);
  let capacity = 0;
  for (const workers of [1, 2, 4, 8, 16, 32, 64, 128]) {
    const { perSecond, answers } = await closedLoop(`${base}${LIST}`, token, workers, STEP_MS);
    const s = stats(answers.map((answer) => answer.ms));
    const failed = answers.filter((answer) => answer.status !== 200).length;
    console.log(`${String(workers).padStart(10)} ${perSecond.toFixed(0).padStart(7)} ${ms(s.p50).padStart(7)} ${ms(s.p99).padStart(7)}${failed ? `  (${failed} not 200)` : ''}`);
    // Sustained means every request answered: a server that starts shedding is past its capacity.
    if (s.p99 > acceptableP99Ms || failed > 0) break;
    capacity = Math.max(capacity, perSecond);
  }
  console.log(`   capacity: ${capacity.toFixed(0)} requests/s (the best step with every request answered 200 and p99 acceptable)`);
  return capacity;
}

function printOverload(name: string, answers: readonly Answer[]): void {
  const ok = answers.filter((answer) => answer.status === 200);
  const shed = answers.filter((answer) => answer.status === 503);
  const other = answers.length - ok.length - shed.length;
  const all = stats(answers.map((answer) => answer.ms));
  const served = stats(ok.map((answer) => answer.ms));
  console.log(
    `${name.padEnd(22)} ${String(answers.length).padStart(6)} ${`${((100 * shed.length) / answers.length).toFixed(1)} %`.padStart(8)} ${String(other).padStart(6)} ` +
      `${ms(all.p50).padStart(8)} ${ms(all.p99).padStart(8)} ${ms(served.p50).padStart(8)} ${ms(served.p99).padStart(8)} ${ms(all.max).padStart(8)}`,
  );
}

/** Wrong logins as fast as the broker answers them, from `clients` connections at once, until `stop` is called. */
function wrongLogins(url: string, username: string, clients: number): { stop(): Promise<number> } {
  let running = true;
  let attempts = 0;
  const loops = Array.from({ length: clients }, async () => {
    while (running) {
      await new Promise<void>((resolve) => {
        const client = mqtt.connect(url, { username, password: 'not-the-password', reconnectPeriod: 0, connectTimeout: 10_000, clientId: `bench-${Math.random().toString(36).slice(2)}` });
        const done = () => {
          client.end(true);
          resolve();
        };
        client.once('error', done);
        client.once('close', done);
        client.once('connect', done);
      });
      attempts += 1;
    }
  });
  return {
    stop: async () => {
      running = false;
      await Promise.all(loops);
      return attempts;
    },
  };
}

async function main(): Promise<void> {
  const started = performance.now();
  const scratch = await createScratchDatabase(process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test', 'uvd_bench');
  const databaseUrl = scratch.url;
  if (!databaseUrl) throw new Error('the bench needs PostgreSQL');
  console.log(`bench/overload: ${scratch.where}; server and broker in their own process, client here`);
  let servers: RunningServer[] = [];
  try {
    const on = await startServer(databaseUrl, {});
    servers = [on];
    const token = await adminToken(on.base);
    const capacity = await findCapacity(on.base, token);
    const rate = Math.max(10, Math.round(2 * capacity));

    console.log(`\n2. ${LIST} at ${rate} requests/s (2× capacity) for ${overloadSeconds} s, open loop`);
    console.log(
      `${'server'.padEnd(22)} ${'sent'.padStart(6)} ${'503'.padStart(8)} ${'other'.padStart(6)} ${'p50 ms'.padStart(8)} ${'p99 ms'.padStart(8)} ${'200 p50'.padStart(8)} ${'200 p99'.padStart(8)} ${'max ms'.padStart(8)}`,
    );
    printOverload('load shedding on', await openLoop(`${on.base}${LIST}`, token, rate, overloadSeconds * 1000));
    await on.stop();
    const off = await startServer(databaseUrl, LOAD_SHEDDING_OFF);
    servers = [off];
    const offToken = await adminToken(off.base);
    await closedLoop(`${off.base}${LIST}`, offToken, 4, STEP_MS);
    printOverload('load shedding off', await openLoop(`${off.base}${LIST}`, offToken, rate, overloadSeconds * 1000));
    await off.stop();

    // A robot with an MQTT password, so that a wrong one costs the broker a real argon2id check.
    const [robot] = await scratch.database.db.select({ id: robots.id, manufacturer: robots.manufacturer, serialNumber: robots.serialNumber }).from(robots).limit(1);
    if (!robot) throw new Error('no robot in the demo seed');
    await scratch.database.db.update(robots).set({ mqttPasswordHash: await hashPassword('the-robot-password') }).where(eq(robots.id, robot.id));
    const broker = await startServer(databaseUrl, {});
    servers = [broker];
    const brokerToken = await adminToken(broker.base);
    await closedLoop(`${broker.base}${LIST}`, brokerToken, 4, STEP_MS);
    console.log(`\n3. ${LIST} from 4 closed-loop clients, ${PHASE_MS / 1000} s each`);
    console.log(`${'while'.padEnd(34)} ${'req/s'.padStart(7)} ${'p50 ms'.padStart(7)} ${'p99 ms'.padStart(7)} ${'logins/s'.padStart(9)}`);
    const idle = await closedLoop(`${broker.base}${LIST}`, brokerToken, 4, PHASE_MS);
    const idleStats = stats(idle.answers.map((answer) => answer.ms));
    console.log(`${'idle'.padEnd(34)} ${idle.perSecond.toFixed(0).padStart(7)} ${ms(idleStats.p50).padStart(7)} ${ms(idleStats.p99).padStart(7)} ${'–'.padStart(9)}`);
    const logins = wrongLogins(broker.mqttUrl, `${robot.manufacturer}/${robot.serialNumber}`, MQTT_CLIENTS);
    const busyStarted = performance.now();
    const busy = await closedLoop(`${broker.base}${LIST}`, brokerToken, 4, PHASE_MS);
    const attempts = await logins.stop();
    const loginRate = attempts / ((performance.now() - busyStarted) / 1000);
    const busyStats = stats(busy.answers.map((answer) => answer.ms));
    console.log(
      `${`${MQTT_CLIENTS} wrong MQTT logins in parallel`.padEnd(34)} ${busy.perSecond.toFixed(0).padStart(7)} ${ms(busyStats.p50).padStart(7)} ${ms(busyStats.p99).padStart(7)} ${loginRate.toFixed(0).padStart(9)}`,
    );
    const refused = busy.answers.filter((answer) => answer.status !== 200);
    if (refused.length > 0) {
      const statuses = [...new Set(refused.map((answer) => answer.status))].join(', ');
      console.log(`   ${refused.length} of ${busy.answers.length} list requests were answered ${statuses} (load shedding on, the defaults)`);
    }
  } finally {
    for (const server of servers) await server.stop();
    await scratch.drop();
    console.log(`\ndone in ${((performance.now() - started) / 1000).toFixed(0)} s`);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
