#!/usr/bin/env node
// `npm test`: type-check, lint and the server's build side by side; the unit and API suite on PGlite; then the
// browser tests (the built console in Chromium) and, when DATABASE_URL is set, beside them the API suite again on
// PostgreSQL. Stops after the first step that fails.
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
  // here, the test's own build finds nothing to do, and no test worker spends half a minute in tsc.
  [
    ['lint', 'npx', ['eslint', '--max-warnings=0', '.']],
    ['type-check', 'npm', ['run', '--silent', 'typecheck']],
    ['build of the server', 'npm', ['run', '--silent', 'build:server']],
  ],
  // On PGlite, three workers (vitest.config.ts).
  [['unit and API tests on PGlite', 'npx', ['vitest', 'run'], { TEST_DATABASE_URL: '' }]],
  // Side by side, as most of a browser test's time is waiting (for a robot, a stream, a page): the browser tests in
  // two workers, each with a server of its own (e2e/vitest.config.ts), and the API suite again on PostgreSQL in two.
  [
    ['browser tests', 'npx', ['vitest', 'run', '--config', 'e2e/vitest.config.ts'], chromium ? { CHROMIUM_PATH: chromium } : {}],
    ...(process.env.DATABASE_URL
      ? [['API tests on PostgreSQL', 'npx', ['vitest', 'run', '--project', 'postgres'], { TEST_DATABASE_URL: process.env.DATABASE_URL, TEST_WORKERS: '2' }]]
      : []),
  ],
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
