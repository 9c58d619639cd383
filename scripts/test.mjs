#!/usr/bin/env node
// `npm test`: type-check, lint and the server's build side by side; the unit and API suite on PGlite and, when
// DATABASE_URL is set, again on PostgreSQL, in one pool of workers; then the browser tests (the built console in
// Chromium). Stops after the first step that fails.
import { spawn } from 'node:child_process';
import { findOrInstallChromium, INSTALL_CHROMIUM } from './chromium.mjs';

// They need a Chromium or Chrome: the machine's, or Debian's installed here when apt-get may run (scripts/chromium.mjs).
const chromium = findOrInstallChromium();
if (!chromium) console.log(`No Chromium or Chrome on this machine: the browser tests will stop at once. ${INSTALL_CHROMIUM} gives one.`);
if (!process.env.DATABASE_URL) console.log('DATABASE_URL is not set: the API suite runs on PGlite only.');

/**
 * A step is one command, or several run side by side: the first writes to this terminal as it goes, the others'
 * output is kept and shown whole when each ends.
 */
const steps = [
  // Side by side: each is one single-threaded process, so on two cores they take about the time of the longest
  // (lint) instead of the sum. scripts/typecheck.mjs lists the projects (server and packages, web, browser tests,
  // mobile shell). The server's build (`npm run build:server`, tsc -b) is the one production.test.ts starts: done
  // here, the test's own build finds nothing to do, and no test worker spends half a minute in tsc. Both run
  // `build:server:emit`, the same build without type-checking (--noCheck: 14 s of CPU instead of 34 on this
  // machine), which the type-check beside it does; after a build with a check, a build with one would check again.
  [
    ['lint', 'npx', ['eslint', '--max-warnings=0', '.']],
    ['type-check', 'npm', ['run', '--silent', 'typecheck']],
    ['build of the server', 'npm', ['run', '--silent', 'build:server:emit']],
  ],
  // Three workers (vitest.config.ts) for every file of the unit and API suite on PGlite and, with DATABASE_URL, the
  // server's files on the test database a second time on PostgreSQL (the `postgres` project). Beside the browser
  // tests, the PostgreSQL pass made a machine half as fast as usual so busy (a load average of 13) that tests of
  // time limits failed, on both sides; here it fills the time the PGlite files spend waiting.
  [
    [
      process.env.DATABASE_URL ? 'unit and API tests on PGlite and PostgreSQL' : 'unit and API tests on PGlite',
      'npx',
      ['vitest', 'run'],
      { TEST_DATABASE_URL: process.env.DATABASE_URL ?? '' },
    ],
  ],
  // Three workers, each with its Chromium and a server of its own (e2e/vitest.config.ts).
  [['browser tests', 'npx', ['vitest', 'run', '--config', 'e2e/vitest.config.ts'], chromium ? { CHROMIUM_PATH: chromium } : {}]],
];

function run([name, command, args, env = {}], live) {
  console.log(`\n=== ${name}: ${command} ${args.join(' ')}${live ? '' : ' (beside the step above; its output follows when it ends)'}`);
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: live ? 'inherit' : ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
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
      times.push(`${name}: ${status === 0 ? 'passed' : 'FAILED'} in ${seconds} s${live ? '' : ' (beside the step above)'}`);
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
}

/** Each step's time, printed again at the end. */
const times = [];
const suiteStarted = Date.now();
let passed = 0;
let failed = 0;
for (const step of steps) {
  const results = await Promise.all(step.map((command, index) => run(command, index === 0)));
  passed += results.filter(Boolean).length;
  failed += results.filter((ok) => !ok).length;
  if (failed > 0) break;
}
console.log(`\n${times.map((line) => `=== ${line}`).join('\n')}`);
console.log(`\nsteps: ${passed} passed, ${failed} failed, in ${((Date.now() - suiteStarted) / 1000).toFixed(1)} s`);
process.exit(failed === 0 ? 0 : 1);
