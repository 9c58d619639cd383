#!/usr/bin/env node
// `npm run typecheck`: every TypeScript project of the repository, each with its own tsconfig (the web console,
// the browser tests and the mobile shell have their own libraries and module settings). This list is the one
// place that says what is type-checked; `npm test` runs it as its type-check step. Every project is checked even
// when an earlier one fails, so one run shows all errors.
import { spawnSync } from 'node:child_process';

const projects = [
  ['server, contracts, simulator, benches, scripts', 'tsconfig.json'],
  ['web console', 'apps/web/tsconfig.json'],
  ['browser tests', 'e2e/tsconfig.json'],
  ['mobile shell', 'apps/mobile/tsconfig.json'],
];

const failed = [];
for (const [name, tsconfig] of projects) {
  const started = Date.now();
  const result = spawnSync('npx', ['tsc', '--noEmit', '-p', tsconfig], { stdio: 'inherit' });
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  if (result.status === 0) {
    console.log(`--- type-check ${name} (${tsconfig}): passed in ${seconds} s`);
  } else {
    failed.push(name);
    console.log(`--- type-check ${name} (${tsconfig}): FAILED (exit ${result.status ?? result.signal}) after ${seconds} s`);
  }
}
if (failed.length > 0) {
  console.log(`type errors in: ${failed.join('; ')}`);
  process.exit(1);
}
