#!/usr/bin/env node
// `npm run serve:cluster`: the built server (`npm run build`) in several processes on one machine, for more than
// one core: CLUSTER_PROCESSES (default 2) processes of scripts/serve.mjs, made by node:cluster, share one port
// (PORT, the kernel hands each new connection to one of them) and must share everything else: one PostgreSQL
// (DATABASE_URL) and one external MQTT broker (MQTT_URL). Each process is a whole server; what crosses processes
// (live events, a robot's commands, pushes, mail, webhooks, scheduled jobs) goes through the database, as with
// processes on several machines behind a load balancer (README.md "Production").
//
// A process that exits after it listened is started again; one that exits before it ever listened stops them all
// (a wrong setting would only fail again). SIGINT/SIGTERM stop every process (each closes its connections and its
// database pool) and then this one. This process's own lines are JSON lines as the servers' are (pino's fields).
import cluster from 'node:cluster';
import { hostname } from 'node:os';
import { fileURLToPath } from 'node:url';
import { SERVER_MALLOC_ENV, SERVER_NODE_FLAGS } from './server-memory.mjs';

const STOP_TIMEOUT_MS = 15_000;
const RESTART_DELAY_MS = 1_000;

/** A line in pino's shape, so the log stays one JSON object a line (30 info, 40 warn, 50 error). */
function log(level, msg, fields = {}) {
  process.stdout.write(`${JSON.stringify({ level, time: Date.now(), pid: process.pid, hostname: hostname(), ...fields, msg })}\n`);
}

const missing = ['DATABASE_URL', 'MQTT_URL'].filter((name) => !process.env[name]);
if (missing.length > 0) {
  log(
    50,
    `serve:cluster needs ${missing.join(' and ')}: processes share one PostgreSQL and one MQTT broker ` +
      '(the embedded database and broker belong to one process).',
  );
  process.exit(2);
}
const processes = Number(process.env.CLUSTER_PROCESSES || '2');
if (!Number.isInteger(processes) || processes < 1) {
  log(50, `CLUSTER_PROCESSES must be a whole number of at least 1, not "${process.env.CLUSTER_PROCESSES}"`);
  process.exit(2);
}

// Each worker runs serve.mjs with this process's flags (--conditions=uvd-dist: the built contracts) and the memory
// settings of scripts/server-memory.mjs (the flag when this process was not given it already).
const execArgv = [...SERVER_NODE_FLAGS.filter((flag) => !process.execArgv.some((given) => given.startsWith(flag.split('=')[0]))), ...process.execArgv];
cluster.setupPrimary({ exec: fileURLToPath(new URL('./serve.mjs', import.meta.url)), execArgv });

let stopping = false;
/** This process's exit code once every server process stopped. */
let stopCode = 0;
/** Workers that listened at least once. */
const listened = new WeakSet();

function start() {
  const worker = cluster.fork({ ...SERVER_MALLOC_ENV, ...process.env });
  worker.once('listening', () => listened.add(worker));
}

cluster.on('exit', (worker, code, signal) => {
  if (stopping) {
    if (Object.keys(cluster.workers ?? {}).length === 0) {
      log(30, 'every server process stopped');
      process.exit(stopCode);
    }
    return;
  }
  const status = String(code ?? signal);
  if (!listened.has(worker)) {
    log(50, `server process ${worker.process.pid} exited (${status}) before it listened: stopping the others`);
    stop(1);
    return;
  }
  log(40, `server process ${worker.process.pid} exited (${status}): starting another`);
  setTimeout(() => {
    if (!stopping) start();
  }, RESTART_DELAY_MS);
});

function stop(code) {
  if (stopping) return;
  stopping = true;
  stopCode = code;
  const workers = Object.values(cluster.workers ?? {}).filter((worker) => worker !== undefined);
  if (workers.length === 0) process.exit(code);
  const timer = setTimeout(() => {
    log(40, `server processes still running after ${STOP_TIMEOUT_MS / 1000} s: killing them`);
    for (const worker of workers) worker.process.kill('SIGKILL');
  }, STOP_TIMEOUT_MS);
  timer.unref();
  // Each server shuts down on SIGTERM (server.ts); 'exit' above ends this process once all have.
  for (const worker of workers) worker.process.kill('SIGTERM');
}

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    log(30, `${signal}: stopping the server processes`);
    stop(0);
  });
}

log(30, `starting ${processes} server processes on one port`, { processes });
for (let i = 0; i < processes; i += 1) start();
