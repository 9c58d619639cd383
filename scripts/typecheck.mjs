#!/usr/bin/env node
// `npm run typecheck`: every TypeScript project of the repository, each with its own tsconfig (the web console,
// the browser tests and the mobile shell have their own libraries and module settings). This list is the one
// place that says what is type-checked; `npm test` runs it as its type-check step. Every project is checked even
// when an earlier one fails, so one run shows all errors.
//
// The compiler is TypeScript 7 (the `typescript-7` package), as `npm run build` builds the server with it: the
// native compiler checks them in 24 s of CPU here, where TypeScript 5.9 took 66 s. The `typescript` package stays
// 5.9 for typescript-eslint, whose typed rules need TypeScript's JavaScript API (TypeScript 7 has none), and for
// editors.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';

const TSC = path.join(path.dirname(createRequire(import.meta.url).resolve('typescript-7/package.json')), 'bin/tsc');

const projects = [
  ['server, contracts, simulator, benches, scripts', 'tsconfig.json'],
  ['web console', 'apps/web/tsconfig.json'],
  ['browser tests', 'e2e/tsconfig.json'],
  ['mobile shell', 'apps/mobile/tsconfig.json'],
];

const failed = [];
for (const [name, tsconfig] of projects) {
  const started = Date.now();
  const result = spawnSync(process.execPath, [TSC, '--noEmit', '-p', tsconfig], { stdio: 'inherit' });
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
