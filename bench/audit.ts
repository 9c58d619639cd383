/**
 * The audit trail's cost on a write path: POST /api/jobs/jobs/{robot} (a job of 5 rooms: 6 audited rows) over real
 * HTTP, with the audit triggers on and off in alternating rounds (so that the machine's load hits both alike),
 * and the cost of the one statement every transaction of a state-changing request gains (handing its author to
 * the triggers), which stays when the triggers are off.
 *
 *   npx tsx bench/audit.ts [--rounds R] [--per-round N]      (TEST_DATABASE_URL=postgres://… for PostgreSQL)
 *
 * Prints figures; never fails on them.
 */
import { parseArgs } from 'node:util';
import { sql } from 'drizzle-orm';
import { createJobFor, executionWorld } from '../apps/server/src/testing/execution-fixtures.ts';
import { startTestServer } from '../apps/server/src/testing/harness.ts';

const { values: args } = parseArgs({ options: { rounds: { type: 'string', default: '6' }, 'per-round': { type: 'string', default: '40' } } });
const rounds = Number(args.rounds);
const perRound = Number(args['per-round']);

const server = await startTestServer();
const world = await executionWorld(server, 5);
const db = server.context.db;
const triggers = [
  ['jobs', 'audit_jobs'],
  ['job_rooms', 'audit_job_rooms_planned'],
] as const;
const setTriggers = async (on: boolean) => {
  for (const [table, trigger] of triggers) await db.execute(sql.raw(`ALTER TABLE ${table} ${on ? 'ENABLE' : 'DISABLE'} TRIGGER ${trigger}`));
};

const timings = { on: [] as number[], off: [] as number[] };
const createJobs = async (into: number[] | undefined) => {
  for (let i = 0; i < perRound; i++) {
    const started = performance.now();
    await createJobFor(server, world);
    into?.push(performance.now() - started);
  }
};
await createJobs(undefined); // warm-up
for (let round = 0; round < rounds; round++) {
  for (const mode of round % 2 === 0 ? (['on', 'off'] as const) : (['off', 'on'] as const)) {
    await setTriggers(mode === 'on');
    await createJobs(timings[mode]);
  }
}
await setTriggers(true);

const setConfig: number[] = [];
for (let i = 0; i < 500; i++) {
  const started = performance.now();
  await db.execute(sql`SELECT set_config('uvd.audit', ${JSON.stringify({ source: 'api', actor: 'admin', ip: '127.0.0.1', request: 'POST /api/jobs/jobs/:robotId' })}, true)`);
  setConfig.push(performance.now() - started);
}

const quantile = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
};
const line = (name: string, values: number[]) =>
  `${name.padEnd(34)} n=${String(values.length).padStart(4)}  mean ${(values.reduce((a, b) => a + b, 0) / values.length).toFixed(2)} ms  p50 ${quantile(values, 0.5).toFixed(2)} ms  p95 ${quantile(values, 0.95).toFixed(2)} ms`;
console.log(`engine: ${server.testDatabase.where}`);
console.log(line('create job, audit triggers on', timings.on));
console.log(line('create job, audit triggers off', timings.off));
console.log(line('set_config (the author, per tx)', setConfig));
await server.close();
