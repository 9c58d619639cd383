#!/usr/bin/env node
// `npm test`: type-check, lint, the unit and API suite on PGlite, the API suite again on PostgreSQL when
// DATABASE_URL is set, then the browser tests (the built console in Chromium). Stops at the first failing step.
import { spawnSync } from 'node:child_process';

const steps = [
  // scripts/typecheck.mjs lists the projects (server and packages, web, browser tests, mobile shell).
  ['type-check', 'npm', ['run', '--silent', 'typecheck']],
  ['lint', 'npx', ['eslint', '--max-warnings=0', '.']],
  ['tests on PGlite', 'npx', ['vitest', 'run'], { TEST_DATABASE_URL: '' }],
];
if (process.env.DATABASE_URL) {
  steps.push(['API tests on PostgreSQL', 'npx', ['vitest', 'run', 'apps/server'], { TEST_DATABASE_URL: process.env.DATABASE_URL }]);
} else {
  console.log('DATABASE_URL is not set: the suite runs on PGlite only.');
}

// Last, as the slowest: the built console in Debian's Chromium against the real server (e2e/README.md).
steps.push(['browser tests', 'npx', ['vitest', 'run', '--config', 'e2e/vitest.config.ts']]);

let passed = 0;
let failed = 0;
for (const [name, command, args, env = {}] of steps) {
  console.log(`\n=== ${name}: ${command} ${args.join(' ')}`);
  const started = Date.now();
  const result = spawnSync(command, args, { stdio: 'inherit', env: { ...process.env, ...env } });
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  if (result.status === 0) {
    passed += 1;
    console.log(`=== ${name}: passed in ${seconds} s`);
  } else {
    failed += 1;
    console.log(`=== ${name}: FAILED (exit ${result.status ?? result.signal}) after ${seconds} s`);
    break;
  }
}
console.log(`\nsteps: ${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
