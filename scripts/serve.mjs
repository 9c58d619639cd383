#!/usr/bin/env node
// `npm run serve`: the built server (`npm run build`: apps/server/dist, packages/contracts/dist) in this process,
// with plain node: no tsx, no demo seeding, no simulated robots. Its settings are the environment's
// (apps/server/src/config.ts, README.md "Settings"); the only difference from the server's own defaults is
// SEED_DEMO, false here unless set. Logs are pino's JSON lines on stdout.
//
// Run as `node --conditions=uvd-dist scripts/serve.mjs` (the npm script does): the condition makes
// `@uvd/contracts` resolve to its built JavaScript (packages/contracts/package.json "exports") instead of the
// TypeScript sources that tsx, vitest and Vite read. scripts/serve-cluster.mjs starts this file in each process.
//
// Memory (scripts/server-memory.mjs): `npm run serve` passes --max-semi-space-size=8; MALLOC_MMAP_THRESHOLD_=131072
// must be in the environment the process starts with (glibc reads it then), so a deployment sets it in its unit
// or container (docs/operations.md "Memory"); npm start and serve:cluster set it for their server processes.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const entry = fileURLToPath(new URL('../apps/server/dist/server.js', import.meta.url));

if (!existsSync(entry)) {
  console.error(`${entry} does not exist: run npm run build first.`);
  process.exit(1);
}
if (import.meta.resolve('@uvd/contracts').endsWith('.ts')) {
  console.error('@uvd/contracts resolves to its TypeScript sources: run this with node --conditions=uvd-dist (npm run serve does).');
  process.exit(1);
}

process.env.SEED_DEMO ||= 'false';
process.env.NODE_ENV ||= 'production';

await import(entry);
