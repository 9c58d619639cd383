/**
 * The server and its command-line tools as processes of their own, run as `npm run serve` runs the server: the built
 * JavaScript in apps/server/dist under plain node, with the built contracts (--conditions=uvd-dist). A server
 * process starts on about two thirds of the CPU it takes through tsx's loader, which compiles every module first,
 * and the tests start dozens. The suite's global setup (`buildServer`, vitest.config.ts) builds it before any test
 * runs; tsc -b finds nothing to do when the output is as new as the sources.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO_ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const SERVER_ROOT = join(REPO_ROOT, 'apps/server');

/** The node flags of `npm run serve` and `npm run serve:cluster` (package.json). */
export const DIST_NODE_FLAGS = ['--conditions=uvd-dist', '--enable-source-maps'];

/**
 * Node's arguments that run `source` (a module of apps/server/src, such as `server.ts`) from the built output.
 * `--liftoff-only`: V8 compiles PGlite's WebAssembly with its baseline compiler only, never optimizing the functions
 * that run often. A test's server lives seconds, and optimizing them cost more than they then saved: a start on a
 * migrated data folder 2.5-2.75 -> 1.75-1.8 s of CPU here, the files that start servers about 14 s of CPU less.
 * Same WebAssembly, same results; `npm run serve`, which lives for days, keeps V8's default.
 */
export const builtServerArgs = (source: string): string[] => ['--liftoff-only', ...DIST_NODE_FLAGS, builtModule(source)];

/** The built JavaScript of `source`, a module of apps/server/src such as `server.ts`. */
export const builtModule = (source: string): string => join(SERVER_ROOT, 'dist', source.replace(/\.ts$/, '.js'));

/** `npm run build:server:emit` (tsc -b, without type-checking: the type-check step's work); throws if it fails. */
export function buildServer(): void {
  const started = Date.now();
  const build = spawnSync('npm', ['run', '--silent', 'build:server:emit'], { cwd: REPO_ROOT, encoding: 'utf8' });
  if (build.status !== 0) throw new Error(`npm run build:server:emit failed:\n${build.stdout}\n${build.stderr}`);
  const seconds = (Date.now() - started) / 1000;
  if (seconds > 5) console.log(`the server built into apps/server/dist for the tests that start it as a process: ${seconds.toFixed(1)} s`);
}
