#!/usr/bin/env node
// `npm test`: the server's build; the unit and API suite on PGlite and, when DATABASE_URL is set, again on
// PostgreSQL, in one pool of workers; then the browser tests (the built console in Chromium). Lint and type-check
// run beside these steps at the lowest CPU priority. Stops after the first step or check that fails.
import { spawn, spawnSync } from 'node:child_process';
import { findOrInstallChromium, INSTALL_CHROMIUM } from './chromium.mjs';

// They need a Chromium or Chrome: the machine's, or Debian's installed here when apt-get may run (scripts/chromium.mjs).
const chromium = findOrInstallChromium();
if (!chromium) console.log(`No Chromium or Chrome on this machine: the browser tests will stop at once. ${INSTALL_CHROMIUM} gives one.`);
if (!process.env.DATABASE_URL) console.log('DATABASE_URL is not set: the API suite runs on PGlite only.');

/**
 * The checks that read the code without running it. They start with the suite and run beside every step at the
 * lowest CPU priority (`nice -n 19`), so they take only the CPU the tests leave idle: the unit and API step keeps the
 * two cores about 83 % busy and the browser step about 73 %, while the checks, run first on their own, took 108 s
 * before any test started. One that fails stops the suite as a failed step does. Without `nice` (Windows) they run
 * at the usual priority. scripts/typecheck.mjs lists the type-checked projects (server and packages, web, browser
 * tests, mobile shell).
 */
const checks = [
  ['lint', 'npx', ['eslint', '--max-warnings=0', '.']],
  ['type-check', 'npm', ['run', '--silent', 'typecheck']],
];

/** The steps, one after the other. */
const steps = [
  // The server's build (`npm run build:server`, tsc -b) is the one production.test.ts starts: done here, the test's
  // own build finds nothing to do, and no test worker spends half a minute in tsc. It is `build:server:emit`, the
  // same build without type-checking (--noCheck: 14 s of CPU instead of 34), which the type-check does; after a
  // build with a check, a build with one would check again.
  ['build of the server', 'npm', ['run', '--silent', 'build:server:emit']],
  // Three workers (vitest.config.ts) for every file of the unit and API suite on PGlite and, with DATABASE_URL, the
  // server's files on the test database a second time on PostgreSQL (the `postgres` project). Beside the browser
  // tests, the PostgreSQL pass made a machine half as fast as usual so busy (a load average of 13) that tests of
  // time limits failed, on both sides; here it fills the time the PGlite files spend waiting.
  [
    process.env.DATABASE_URL ? 'unit and API tests on PGlite and PostgreSQL' : 'unit and API tests on PGlite',
    'npx',
    ['vitest', 'run'],
    { TEST_DATABASE_URL: process.env.DATABASE_URL ?? '' },
  ],
  // Three workers, each with its Chromium and a server of its own (e2e/vitest.config.ts).
  ['browser tests', 'npx', ['vitest', 'run', '--config', 'e2e/vitest.config.ts'], chromium ? { CHROMIUM_PATH: chromium } : {}],
];

const niceAvailable = process.platform !== 'win32' && spawnSync('nice', ['true']).status === 0;

/** Each step's and check's time, printed again at the end. */
const times = [];

/**
 * Runs a step (its output live on this terminal) or a check (its output kept, shown whole when it ends). Resolves
 * whether it passed; `stop()` ends it early.
 */
function run([name, command, args, env = {}], { check }) {
  const niced = check && niceAvailable;
  console.log(`\n=== ${name}: ${command} ${args.join(' ')}${check ? ` (beside the steps${niced ? ', nice -n 19' : ''}; its output follows when it ends)` : ''}`);
  const started = Date.now();
  const child = spawn(niced ? 'nice' : command, niced ? ['-n', '19', command, ...args] : args, {
    stdio: check ? ['ignore', 'pipe', 'pipe'] : 'inherit',
    env: { ...process.env, ...env },
  });
  const output = [];
  child.stdout?.on('data', (chunk) => output.push(chunk));
  child.stderr?.on('data', (chunk) => output.push(chunk));
  const done = new Promise((resolve) => {
    let finished = false;
    const finish = (status) => {
      if (finished) return;
      finished = true;
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      if (check) process.stdout.write(`\n=== ${name}: output\n${Buffer.concat(output).toString()}`);
      console.log(status === 0 ? `=== ${name}: passed in ${seconds} s` : `=== ${name}: FAILED (exit ${String(status)}) after ${seconds} s`);
      times.push(`${name}: ${status === 0 ? 'passed' : 'FAILED'} in ${seconds} s${check ? ' (beside the steps)' : ''}`);
      resolve(status === 0);
    };
    child.on('error', (error) => {
      output.push(Buffer.from(`${String(error)}\n`));
      finish(error.message);
    });
    child.on('close', (code, signal) => {
      finish(code ?? signal);
    });
  });
  return { done, stop: () => stopTree(child.pid) };
}

/**
 * Ends a process and everything it started (npx starts vitest, which starts its workers and servers). They stay in
 * this session, not a process group of their own: a new session would put them in a scheduling group of their own,
 * and the checks' `nice` would no longer yield to them.
 */
function stopTree(pid) {
  if (pid === undefined) return;
  const children = new Map();
  const listing = spawnSync('ps', ['-e', '-o', 'pid=,ppid='], { encoding: 'utf8' }).stdout ?? '';
  for (const line of listing.split('\n')) {
    const [child, parent] = line.trim().split(/\s+/).map(Number);
    if (child && parent) children.set(parent, [...(children.get(parent) ?? []), child]);
  }
  const tree = [pid];
  for (let index = 0; index < tree.length; index += 1) tree.push(...(children.get(tree[index]) ?? []));
  for (const member of tree) {
    try {
      process.kill(member, 'SIGTERM');
    } catch {
      // Already gone.
    }
  }
}

const suiteStarted = Date.now();
let passed = 0;
let failed = 0;
let current;
const checking = checks.map((check) => {
  const running = run(check, { check: true });
  return running.done.then((ok) => {
    if (ok) passed += 1;
    else {
      failed += 1;
      current?.stop();
    }
  });
});
for (const step of steps) {
  if (failed > 0) break;
  current = run(step, { check: false });
  const ok = await current.done;
  current = undefined;
  if (ok) passed += 1;
  else failed += 1;
}
// After a failed step the checks still finish: what they find is worth having beside the failure.
await Promise.all(checking);
console.log(`\n${times.map((line) => `=== ${line}`).join('\n')}`);
console.log(`\nsteps and checks: ${passed} passed, ${failed} failed, in ${((Date.now() - suiteStarted) / 1000).toFixed(1)} s`);
process.exit(failed === 0 ? 0 : 1);
