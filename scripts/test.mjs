#!/usr/bin/env node
// `npm test`: the unit and API suite on PGlite and, when DATABASE_URL is set, again on PostgreSQL, in one pool of
// workers, with lint and the type-check beside it in the background; then the browser tests (the built console in
// Chromium), beside lint or the type-check if either is still running. A step starts only when every command it
// waits for has passed; lint and the type-check are waited for, and their results counted, at the end.
import { spawn } from 'node:child_process';
import { constants, setPriority } from 'node:os';
import { findOrInstallChromium, INSTALL_CHROMIUM } from './chromium.mjs';

// They need a Chromium or Chrome: the machine's, or Debian's installed here when apt-get may run (scripts/chromium.mjs).
const chromium = findOrInstallChromium();
if (!chromium) console.log(`No Chromium or Chrome on this machine: the browser tests will stop at once. ${INSTALL_CHROMIUM} gives one.`);
if (!process.env.DATABASE_URL) console.log('DATABASE_URL is not set: the API suite runs on PGlite only.');

/**
 * The browser tests' environment. Their workers are four (e2e/vitest.config.ts) unless E2E_WORKERS says otherwise, or
 * the unit step showed a machine too slow for four: see `SLOW_UNIT_STEP_S` below.
 */
const browserEnv = { E2E_SKIP_BUILD: 'true', ...(chromium ? { CHROMIUM_PATH: chromium } : {}) };

/**
 * A unit step longer than this (seconds) means a machine too slow for four browser workers: they then run in two.
 * The unit step took 416-467 s on this project's usual two-core machine, where four browser workers pass in 250-280 s.
 * On one that ran the same suite at half that speed (its unit step 916 s), four browser workers kept the machine so
 * busy that pages took longer than the tests' 15 s to show what they waited for, and a server's first start did not
 * listen within 150 s: two tests failed in each of two runs, which took 835 and 887 s. Two workers took 692 s there,
 * with less of the machine's time lost to four Chromiums taking turns (1 375 s of CPU against 1 660-1 766).
 */
const SLOW_UNIT_STEP_S = 700;

/**
 * A step is one command, or several run side by side: the first writes to this terminal as it goes, the others'
 * output is kept and shown whole when each ends. A command marked `background` runs at the lowest CPU priority: it
 * takes only the CPU the others leave idle. One marked `untilEnd` holds up no later step: the next step starts as
 * soon as the rest of its own has ended, and the suite waits for it at the end.
 */
const steps = [
  // The unit and API suite: four workers (vitest.config.ts) for every file on PGlite and, with DATABASE_URL, the
  // server's files on the test database a second time on PostgreSQL (the `postgres` project). Its global setup builds
  // the server's JavaScript first (`build:server:emit`, without type-checking), which its process tests start. Its
  // tests mostly wait (a robot's next state, a retry, a timer): beside them, lint and the type-check
  // (scripts/typecheck.mjs lists the projects) run in the background on the CPU the tests leave idle, instead of in a
  // step of their own before them (two minutes of a two-core machine). At the lowest priority they get a sliver of a
  // busy core, so the tests of time limits see about the machine the suite alone makes (the unit step took 392 s
  // alone and 403 s beside them, here). The browser tests stay a step of their
  // own: run beside the unit step (three workers each), the two took 660 s with the machine 93 % busy and a test of
  // a time limit failing, where one after the other (four workers each) they took 638 s and passed. They need the
  // console build, not lint or the type-check: on a machine a quarter slower, lint ended 23 s after the unit tests,
  // and the browser tests waited for it.
  [
    [
      process.env.DATABASE_URL ? 'unit and API tests on PGlite and PostgreSQL' : 'unit and API tests on PGlite',
      'npx',
      ['vitest', 'run'],
      { TEST_DATABASE_URL: process.env.DATABASE_URL ?? '' },
    ],
    // A young generation of 2 × 32 MB instead of 2 × 16: the type-aware rules' TypeScript programs make short-lived
    // objects by the million, and lint spent a quarter of its CPU collecting them. Lint alone, this machine: 160-172 ->
    // 143-159 core-s in three pairs of runs.
    ['lint', process.execPath, ['--max-semi-space-size=32', 'node_modules/eslint/bin/eslint.js', '--max-warnings=0', '.'], {}, { background: true, untilEnd: true }],
    ['type-check', process.execPath, ['scripts/typecheck.mjs'], {}, { background: true, untilEnd: true }],
    // The console the browser tests serve, built here on idle CPU rather than first thing in their own step.
    ['console build for the browser tests', process.execPath, ['--import', 'tsx', 'e2e/support/build-web.ts'], {}, { background: true }],
  ],
  // Four workers (two on a slow machine: SLOW_UNIT_STEP_S), each with its Chromium and a server of its own
  // (e2e/vitest.config.ts), on the build above.
  [['browser tests', 'npx', ['vitest', 'run', '--config', 'e2e/vitest.config.ts'], browserEnv]],
];

function run([name, command, args, env = {}, { background = false, untilEnd = false } = {}], live) {
  const beside = `${background ? 'in the background, ' : ''}beside the step above${untilEnd ? ' and those after it' : ''}`;
  console.log(`\n=== ${name}: ${command === process.execPath ? 'node' : command} ${args.join(' ')}${live ? '' : ` (${beside}; its output follows when it ends)`}`);
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: live ? 'inherit' : ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
    // Lowest priority at once, before the command starts processes of its own (they inherit it).
    if (background && child.pid !== undefined) {
      try {
        setPriority(child.pid, constants.priority.PRIORITY_LOW);
      } catch {
        // Not allowed here: it runs at the usual priority, and only takes longer.
      }
    }
    const output = [];
    child.stdout?.on('data', (chunk) => output.push(chunk));
    child.stderr?.on('data', (chunk) => output.push(chunk));
    let finished = false;
    const finish = (status) => {
      if (finished) return;
      finished = true;
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      if (!live) process.stdout.write(`\n=== ${name}: output\n${Buffer.concat(output).toString()}`);
      console.log(status === 0 ? `=== ${name}: passed in ${seconds} s` : `=== ${name}: FAILED (exit ${String(status)}) after ${seconds} s`);
      resolve({ ok: status === 0, seconds: Number(seconds), time: `${name}: ${status === 0 ? 'passed' : 'FAILED'} in ${seconds} s${live ? '' : ` (${beside})`}` });
    };
    child.on('error', (error) => {
      output.push(Buffer.from(`${String(error)}\n`));
      finish(error.message);
    });
    child.on('close', (code, signal) => {
      finish(code ?? signal);
    });
  });
}

/** Each command's time, printed again at the end: the steps' in their order, then those that ran until the end. */
const times = [];
const suiteStarted = Date.now();
let passed = 0;
let failed = 0;
const count = (results) => {
  times.push(...results.map((result) => result.time));
  passed += results.filter((result) => result.ok).length;
  failed += results.filter((result) => !result.ok).length;
};
/** How long the unit step took, in seconds. */
let unitSeconds = 0;
/** The commands marked `untilEnd`, still running. */
const pending = [];
for (const [stepIndex, step] of steps.entries()) {
  if (stepIndex === 1 && process.env.E2E_WORKERS === undefined && unitSeconds > SLOW_UNIT_STEP_S) {
    browserEnv.E2E_WORKERS = '2';
    console.log(`\nThe unit step took ${unitSeconds.toFixed(0)} s, more than ${String(SLOW_UNIT_STEP_S)} s: a machine too slow for four browser workers, so they run in two (E2E_WORKERS sets their number).`);
  }
  const waitedFor = [];
  step.forEach((command, index) => {
    (command[4]?.untilEnd ? pending : waitedFor).push(run(command, index === 0));
  });
  const results = await Promise.all(waitedFor);
  if (stepIndex === 0) unitSeconds = results[0]?.seconds ?? 0;
  count(results);
  if (failed > 0) break;
}
count(await Promise.all(pending));
console.log(`\n${times.map((line) => `=== ${line}`).join('\n')}`);
console.log(`\nsteps: ${passed} passed, ${failed} failed, in ${((Date.now() - suiteStarted) / 1000).toFixed(1)} s`);
process.exit(failed === 0 ? 0 : 1);
