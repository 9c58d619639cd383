#!/usr/bin/env node
// `npm start`: build the web console, run the server (which serves it next to the API) and, beside it, the demo
// fleet: simulated robots for the seeded organizations and the demo activity that gives them jobs
// (apps/robot-sim/src/demo). The demo is a client of the server like any other: MQTT and the public HTTP API.
//
// A failed build does not keep the API from starting: the server then answers the console's pages with a 503
// that says how to build it. SKIP_WEB_BUILD=true starts the server on the last build (or none).
// SIM_FLEET=true|false runs the demo or not (default: only with the embedded broker, i.e. MQTT_URL unset);
// SIM_TIME_FACTOR and DEMO_ACTIVITY are read by the demo process (apps/robot-sim/README.md "Demo").
// VARIANT=logistics (default disinfection) goes to both: the server seeds the delivery robots and the logistics
// users and shows deliveries only; the demo plays the delivery robots and runs the delivery activity
// (README.md "The logistics variant").
// SIGINT/SIGTERM stop the demo first (it sets the rooms it made not ready ready again), then the server.
//
// The terminal is for a person: the server's pino JSON lines are shown as short text lines (time, level, message,
// a few fields; LOG_FORMAT=json passes them on as they are), and its per-request lines are logged at debug
// (REQUEST_LOG_LEVEL, unless set), below the default LOG_LEVEL=info. `npm run serve` keeps JSON and request lines.
import { spawn, spawnSync } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { SERVER_MALLOC_ENV, SERVER_NODE_FLAGS } from './server-memory.mjs';

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const STARTUP_TIMEOUT_MS = 120_000;
const STOP_TIMEOUT_MS = 15_000;

const VARIANTS = ['disinfection', 'logistics'];
const variant = process.env.VARIANT === undefined || process.env.VARIANT === '' ? 'disinfection' : process.env.VARIANT;
if (!VARIANTS.includes(variant)) {
  console.error(`VARIANT must be ${VARIANTS.join(' or ')}, not "${variant}".`);
  process.exit(2);
}
console.log(`Variant: ${variant}${variant === 'logistics' ? ' (deliveries; VARIANT unset or disinfection for the UV-C console)' : ''}.`);
const childEnv = { ...process.env, VARIANT: variant };
const serverEnv = { ...childEnv, REQUEST_LOG_LEVEL: process.env.REQUEST_LOG_LEVEL || 'debug' };
const jsonLog = process.env.LOG_FORMAT === 'json';

if (process.env.SKIP_WEB_BUILD === 'true') {
  console.log('SKIP_WEB_BUILD=true: starting the server on the existing web build.');
} else {
  console.log('Building the web console (npm run build -w @uvd/web) …');
  const build = spawnSync(npm, ['run', 'build', '-w', '@uvd/web'], { stdio: 'inherit' });
  if (build.status !== 0) {
    console.warn(
      `\nThe web console did not build (exit ${String(build.status ?? build.signal)}): the server starts anyway and ` +
        'answers its pages with "the web console is not built". Fix the build and run npm run build; no restart is needed.\n',
    );
  }
}

const simFleet = process.env.SIM_FLEET === undefined || process.env.SIM_FLEET === '' ? !process.env.MQTT_URL : process.env.SIM_FLEET === 'true';

// Both children in their own process groups: a Ctrl-C reaches this script only, which stops them in order.
const serverDir = fileURLToPath(new URL('../apps/server/', import.meta.url));
// With the flags and malloc setting that keep its memory down (scripts/server-memory.mjs).
const server = spawn(process.execPath, [...SERVER_NODE_FLAGS, '--import', 'tsx', 'src/server.ts'], {
  cwd: serverDir,
  env: { ...SERVER_MALLOC_ENV, ...serverEnv },
  stdio: ['ignore', 'pipe', 'inherit'],
  detached: true,
});
/** @type {import('node:child_process').ChildProcess | undefined} */
let demo;
let stopping = false;

/** Resolves once the child exited (at once if it already has). */
const exited = (child) =>
  child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise((resolve) => child.once('exit', resolve));

/** SIGTERM, then SIGKILL if the child has not exited in time. */
async function stopChild(child, signal) {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
  child.kill(signal);
  await exited(child);
  clearTimeout(timer);
}

async function stop(signal, code) {
  if (stopping) return;
  stopping = true;
  await stopChild(demo, signal);
  await stopChild(server, signal);
  process.exit(code);
}

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => void stop(signal, 0));
}
process.on('exit', () => {
  // Last resort when this script dies some other way: no orphaned children.
  for (const child of [demo, server]) if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

server.on('exit', (code, signal) => {
  if (stopping) return;
  console.error(`The server exited (${String(code ?? signal)}); stopping the demo.`);
  void stop('SIGTERM', code ?? 1);
});

const LEVELS = { 10: 'trace', 20: 'debug', 30: 'info', 40: 'warn', 50: 'error', 60: 'fatal' };
const color = process.stdout.isTTY && !process.env.NO_COLOR;
const LEVEL_COLORS = { warn: '\x1b[33m', error: '\x1b[31m', fatal: '\x1b[31m' };
/** Fields every line has, or that the text line shows in its own way. */
const SHOWN = new Set(['level', 'time', 'pid', 'hostname', 'msg', 'err', 'reqId', 'req', 'res', 'responseTime']);

/** A field's value, short: text and numbers as they are, anything else as JSON cut at 120 characters. */
function short(value) {
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return String(value);
  const json = JSON.stringify(value) ?? String(value);
  return json.length > 120 ? `${json.slice(0, 119)}…` : json;
}

/**
 * One of the server's pino JSON lines as "14:05:09 info  message key=value", with an error's stack below it; any
 * other line as it is. Fields already in the message (the mail catcher's token, say) are not repeated.
 */
function readable(line) {
  let entry;
  try {
    entry = JSON.parse(line);
  } catch {
    return line;
  }
  if (typeof entry !== 'object' || entry === null || typeof entry.level !== 'number' || typeof entry.msg !== 'string') return line;
  const level = LEVELS[entry.level] ?? String(entry.level);
  const time = new Date(entry.time).toLocaleTimeString('en-GB', { hour12: false });
  const parts = [entry.msg];
  if (entry.req) parts.push(`${entry.req.method} ${entry.req.url}`);
  if (entry.res) parts.push(String(entry.res.statusCode));
  if (typeof entry.responseTime === 'number') parts.push(`${entry.responseTime.toFixed(0)} ms`);
  for (const [key, value] of Object.entries(entry)) {
    if (SHOWN.has(key) || value === undefined || value === null) continue;
    const text = short(value);
    if (!entry.msg.includes(text)) parts.push(`${key}=${text}`);
  }
  const head = color && LEVEL_COLORS[level] ? `${LEVEL_COLORS[level]}${level.padEnd(5)}\x1b[0m` : level.padEnd(5);
  const stack = entry.err ? `\n${String(entry.err.stack ?? entry.err.message ?? short(entry.err))}` : '';
  return `${time} ${head} ${parts.join(' ')}${stack}`;
}

/** The server's address from its log line "Server listening at http://…" (its output is passed on as it comes). */
const listening = new Promise((resolve, reject) => {
  const timer = setTimeout(() => reject(new Error(`the server did not listen within ${STARTUP_TIMEOUT_MS / 1000} s`)), STARTUP_TIMEOUT_MS);
  createInterface({ input: server.stdout }).on('line', (line) => {
    process.stdout.write(`${jsonLog ? line : readable(line)}\n`);
    const match = /Server listening at (https?:\/\/[^\s"]+)/.exec(line);
    if (match?.[1]) {
      clearTimeout(timer);
      resolve(match[1].replace('0.0.0.0', '127.0.0.1').replace('[::]', '127.0.0.1'));
    }
  });
});

// Without a demo nobody waits for it; its timeout must not end the process.
listening.catch(() => undefined);

async function answers(baseUrl) {
  const deadline = Date.now() + STARTUP_TIMEOUT_MS;
  while (Date.now() < deadline) {
    try {
      if ((await fetch(`${baseUrl}/healthz`)).ok) return;
    } catch {
      // not yet
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`${baseUrl}/healthz did not answer`);
}

if (!simFleet) {
  console.log('SIM_FLEET is off (or MQTT_URL is set): no demo fleet. SIM_FLEET=true runs it.');
} else {
  try {
    const baseUrl = await listening;
    await answers(baseUrl);
    if (!stopping) {
      const robotSimDir = fileURLToPath(new URL('../apps/robot-sim/', import.meta.url));
      demo = spawn(process.execPath, ['--import', 'tsx', 'src/demo/cli.ts'], {
        cwd: robotSimDir,
        env: { ...childEnv, DEMO_SERVER_URL: baseUrl },
        stdio: 'inherit',
        detached: true,
      });
      demo.on('exit', (code, signal) => {
        if (!stopping) console.warn(`The demo fleet stopped (${String(code ?? signal)}); the server keeps running.`);
      });
    }
  } catch (error) {
    console.warn(`No demo fleet: ${error instanceof Error ? error.message : String(error)}`);
  }
}
