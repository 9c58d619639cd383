/**
 * Login throughput: password grants per second and refreshes per second through the real
 * token endpoint, beside a raw argon2id verify loop with the same parameters in the same process, so the
 * figures say how much of a login is the hash and how much the rest.
 *
 *   npx tsx bench/login.ts [--engine pglite|postgres] [--users N] [--seconds S] [--grant-concurrency C] [--refresh-concurrency C]
 *
 * The server runs in this process on PGlite in memory (default) or on a fresh database of the PostgreSQL at
 * DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test), with the token rate limit off. The HTTP clients
 * run in a worker thread, so they take the second core rather than the server's event loop. Prints figures;
 * never fails on them.
 */
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { availableParallelism } from 'node:os';
import { parseArgs } from 'node:util';
import { Worker } from 'node:worker_threads';
import { z } from 'zod';
import { buildApp } from '../apps/server/src/app.ts';
import { loadConfig } from '../apps/server/src/config.ts';
import { createScratchDatabase, type ScratchDatabase } from '../apps/server/src/db/scratch-database.ts';
import { organizations, users } from '../apps/server/src/db/schema.ts';
import { ARGON2_PARAMS, hashPassword, verifyPassword } from '../apps/server/src/identity/passwords.ts';

const { values: args } = parseArgs({
  options: {
    engine: { type: 'string', default: 'pglite' },
    users: { type: 'string', default: '64' },
    seconds: { type: 'string', default: '10' },
    'grant-concurrency': { type: 'string', default: '8' },
    'refresh-concurrency': { type: 'string', default: '32' },
  },
});
const engine = args.engine === 'postgres' ? 'postgres' : 'pglite';
const userCount = Number(args.users);
const seconds = Number(args.seconds);
const grantConcurrency = Number(args['grant-concurrency']);
const refreshConcurrency = Number(args['refresh-concurrency']);
const CLIENT_ID = 'uvd-console';

interface PhaseResult {
  ok: number;
  failed: number;
  /** Refused by the load shedder (503 with Retry-After), not timed. */
  shed: number;
  seconds: number;
  latenciesMs: number[];
}

async function openBenchDatabase(): Promise<ScratchDatabase> {
  return createScratchDatabase(
    engine === 'postgres' ? (process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test') : undefined,
    'uvd_bench',
  );
}

/** Raw argon2id verifications per second at `concurrency`, same parameters and thread pool as the server. */
async function argon2Loop(concurrency: number): Promise<PhaseResult> {
  const password = 'correct horse battery staple';
  const hash = await hashPassword(password);
  const latenciesMs: number[] = [];
  let ok = 0;
  const start = performance.now();
  const deadline = start + seconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < deadline) {
        const t = performance.now();
        if (await verifyPassword(hash, password)) ok++;
        latenciesMs.push(performance.now() - t);
      }
    }),
  );
  return { ok, failed: 0, shed: 0, seconds: (performance.now() - start) / 1000, latenciesMs };
}

/**
 * The load generator, in plain JavaScript so the worker needs no TypeScript loader. `grant` phases log users
 * in round-robin; `refresh` phases log each slot in once, then rotate its refresh token as fast as answered.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { tokenUrl, clientId, users, phase, seconds, concurrency } = workerData;
const post = (form) => fetch(tokenUrl, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form).toString() });
const grant = (user) => post({ grant_type: 'password', client_id: clientId, username: user.username, password: user.password, scope: 'openid' });
(async () => {
  let ok = 0, failed = 0, shed = 0, next = 0;
  const latenciesMs = [];
  const tokens = [];
  if (phase === 'refresh') {
    for (let i = 0; i < concurrency; i++) tokens.push((await (await grant(users[i % users.length])).json()).refresh_token);
  }
  const start = performance.now();
  const deadline = start + seconds * 1000;
  await Promise.all(Array.from({ length: concurrency }, async (_, slot) => {
    while (performance.now() < deadline) {
      const t = performance.now();
      const response = phase === 'grant'
        ? await grant(users[next++ % users.length])
        : await post({ grant_type: 'refresh_token', client_id: clientId, refresh_token: tokens[slot] });
      const body = await response.json();
      // Shed (503 with Retry-After): not timed; the slot waits it out, as the console does, within the phase.
      if (response.status === 503 && response.headers.has('retry-after')) {
        shed++;
        const waitMs = Math.min(Number(response.headers.get('retry-after')) * 1000, deadline - performance.now());
        if (waitMs > 0) await new Promise((resolve) => setTimeout(resolve, waitMs));
        continue;
      }
      if (response.status === 200) {
        ok++;
        if (phase === 'refresh') tokens[slot] = body.refresh_token;
      } else failed++;
      latenciesMs.push(performance.now() - t);
    }
  }));
  parentPort.postMessage({ ok, failed, shed, seconds: (performance.now() - start) / 1000, latenciesMs });
})().catch((error) => { throw error; });
`;

const PhaseResultSchema = z.object({
  ok: z.number(),
  failed: z.number(),
  shed: z.number(),
  seconds: z.number(),
  latenciesMs: z.array(z.number()),
});

function runClients(
  tokenUrl: string,
  benchUsers: { username: string; password: string }[],
  phase: 'grant' | 'refresh',
  concurrency: number,
): Promise<PhaseResult> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { tokenUrl, clientId: CLIENT_ID, users: benchUsers, phase, seconds, concurrency },
    });
    worker.once('message', (message: unknown) => {
      resolve(PhaseResultSchema.parse(message));
      void worker.terminate();
    });
    worker.once('error', reject);
  });
}

const percentile = (values: number[], p: number): number => {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
};

async function main(): Promise<void> {
  const { database, drop, where } = await openBenchDatabase();
  const config = {
    // The server's own load shedding, as deployed: the bench measures how many grants and refreshes the token
    // endpoint completes at whatever concurrency it is driven with, past its capacity too (argon2id saturates the
    // thread pool, the rest the loop). What the shedder refuses is counted ("shed") and not timed.
    ...loadConfig({ LOG_LEVEL: 'silent', SEED_DEMO: 'false', TOKEN_RATE_LIMIT_PER_MINUTE: '0' }),
    port: 0,
    host: '127.0.0.1',
  };
  const { app } = await buildApp({ config, database });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as AddressInfo;
  const orgId = `bench-${randomBytes(3).toString('hex')}`;
  const tokenUrl = `http://127.0.0.1:${port}/idp/realms/${orgId}/protocol/openid-connect/token`;

  try {
    await database.db.insert(organizations).values({ id: orgId, name: orgId });
    const benchUsers = Array.from({ length: userCount }, (_, i) => ({ username: `user-${i}`, password: `pw-${randomBytes(6).toString('hex')}` }));
    const hashes = await Promise.all(benchUsers.map((user) => hashPassword(user.password)));
    await database.db.insert(users).values(
      benchUsers.map((user, i) => ({
        orgId,
        username: user.username,
        firstName: 'Bench',
        lastName: `User ${i}`,
        email: `${user.username}@example.test`,
        passwordHash: hashes[i] ?? '',
        roles: ['done-teleoperator'],
      })),
    );

    const threadPool = Number(process.env.UV_THREADPOOL_SIZE ?? 4);
    console.log(
      `login bench: ${where}, ${availableParallelism()} cores, ${userCount} users, ${seconds} s per phase, ` +
        `argon2id m=${ARGON2_PARAMS.memoryCost} KiB t=${ARGON2_PARAMS.timeCost} p=${ARGON2_PARAMS.parallelism}, libuv pool ${threadPool}`,
    );
    // Warm-up: JIT, connection pool, statement caches.
    await runClients(tokenUrl, benchUsers, 'grant', 2).catch(() => undefined);

    const raw = await argon2Loop(threadPool);
    const grants = await runClients(tokenUrl, benchUsers, 'grant', grantConcurrency);
    const refreshes = await runClients(tokenUrl, benchUsers, 'refresh', refreshConcurrency);

    const rows = [
      ['raw argon2id verify', threadPool, raw],
      ['password grant (HTTP)', grantConcurrency, grants],
      ['refresh grant (HTTP)', refreshConcurrency, refreshes],
    ] as const;
    const rate = (r: PhaseResult) => r.ok / r.seconds;
    console.log('');
    console.log('| what | concurrency | ok | failed | shed | per second | p50 ms | p95 ms | p99 ms |');
    console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|');
    for (const [name, concurrency, r] of rows) {
      console.log(
        `| ${name} | ${concurrency} | ${r.ok} | ${r.failed} | ${r.shed} | ${rate(r).toFixed(1)} | ${percentile(r.latenciesMs, 50).toFixed(1)} | ` +
          `${percentile(r.latenciesMs, 95).toFixed(1)} | ${percentile(r.latenciesMs, 99).toFixed(1)} |`,
      );
    }
    console.log('');
    console.log(`password grants / raw argon2 verifies: ${(rate(grants) / rate(raw)).toFixed(2)} (1.00 = the hash is the whole cost)`);
    console.log(`refreshes / password grants: ${(rate(refreshes) / rate(grants)).toFixed(1)}`);
    console.log(`aims: >= 30 grants/s (${rate(grants) >= 30 ? 'met' : 'missed'}), >= 1000 refreshes/s (${rate(refreshes) >= 1000 ? 'met' : 'missed'})`);
    const vcpus = availableParallelism();
    console.log(
      `Keycloak sizing guide for ${vcpus} vCPU: ${15 * vcpus} logins/s, ${120 * vcpus} refreshes/s ` +
        `→ ratios ${(rate(grants) / (15 * vcpus)).toFixed(1)}× and ${(rate(refreshes) / (120 * vcpus)).toFixed(1)}×`,
    );
  } finally {
    await app.close();
    await drop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
