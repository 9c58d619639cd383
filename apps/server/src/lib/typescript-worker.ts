/**
 * A worker thread on a module beside the caller, whether the caller runs from the sources or built. From the
 * sources the module is TypeScript: Node loads it through tsx's loader, registered in the worker itself (the server
 * runs under `node --import tsx`, but vitest, which transforms its own modules, and other hosts pass no such flag).
 * Built (`npm run build`), the caller is JavaScript in dist and so is the module, started with the process's own
 * flags (`--conditions=uvd-dist`) and no tsx.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, extname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker, type WorkerOptions } from 'node:worker_threads';
import { z } from 'zod';

/**
 * tsx's ESM API (`tsx/esm/api`, its `import` condition), found through the package's exports map: CommonJS
 * resolution would give its CommonJS build, whose register() does not load in a worker.
 */
function tsxApi(): string {
  const require = createRequire(import.meta.url);
  const manifestPath = require.resolve('tsx/package.json');
  const manifest: unknown = JSON.parse(readFileSync(manifestPath, 'utf8'));
  const entry = z.object({ exports: z.object({ './esm/api': z.object({ import: z.object({ default: z.string() }) }) }) }).parse(manifest);
  return pathToFileURL(join(dirname(manifestPath), entry.exports['./esm/api'].import.default)).href;
}

// An eval'd CommonJS script: registers tsx, then imports the TypeScript entry.
const BOOTSTRAP = `
const { workerData } = require('node:worker_threads');
import(workerData.tsx).then((api) => api.register()).then(() => import(workerData.entry));
`;

/**
 * Starts the module `name` (a path relative to `callerUrl`, without its extension) in a worker thread. What it is
 * given goes by message: `workerData` carries the start through tsx.
 */
export function startWorker(callerUrl: string, name: string, options: Omit<WorkerOptions, 'eval' | 'workerData' | 'execArgv'> = {}): Worker {
  const extension = extname(fileURLToPath(callerUrl));
  const entry = new URL(`${name}${extension}`, callerUrl);
  // Looked up only for the sources: a built server runs where tsx (a development dependency) may not be installed.
  if (extension !== '.ts') return new Worker(entry, options);
  // Its own flags only: an inherited `--import tsx` would register the loader a second time.
  return new Worker(BOOTSTRAP, { ...options, eval: true, workerData: { tsx: tsxApi(), entry: entry.href }, execArgv: [] });
}
