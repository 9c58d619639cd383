/**
 * What the server holds in memory while the demo runs: its resident size (RSS) and JavaScript heap after
 * --seconds of the demo fleet (5 robots, the demo history, the demo activity). The built server (`npm run build`)
 * as `npm run serve` runs it, with the memory settings its starts use (scripts/server-memory.mjs): on PGlite on a
 * new data folder (the first start: the folder is made and the demo seeded) and again on that folder, and on
 * PostgreSQL on a new database (seeded) and again on it when one answers; beside a bare PGlite that opens the same
 * data folder and reads every table, with PostgreSQL's default shared buffers and with the server's, and an empty
 * Node process. One run, one machine, so the rows compare.
 *
 *   npm run bench:memory -- [--seconds 60] [--database postgres://…] [--skip-postgres] [--sources] [--without-settings]
 *
 * --sources adds the server from its TypeScript as `npm start` runs it (`node --import tsx`), first start and
 * again; --without-settings adds the built server again on the PGlite folder without the memory settings (Node's
 * and glibc's defaults). The demo fleet runs in a process of its own, as `npm start` runs it; the figures are the
 * server process's. Needs `npm run build`. Prints figures; never fails on them.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { createScratchDatabase } from '../apps/server/src/db/scratch-database.ts';
import { SERVER_MALLOC_ENV, SERVER_NODE_FLAGS } from '../scripts/server-memory.mjs';
import { printTable } from './web-browser.ts';
import { freePort } from './web-fleet.ts';

const { values: args } = parseArgs({
  options: {
    seconds: { type: 'string', default: '60' },
    database: { type: 'string' },
    'skip-postgres': { type: 'boolean', default: false },
    sources: { type: 'boolean', default: false },
    'without-settings': { type: 'boolean', default: false },
  },
});
const seconds = Number(args.seconds);
const REPO = fileURLToPath(new URL('..', import.meta.url));
const PROBE = path.join(REPO, 'bench/memory-probe.mjs');
const BARE = path.join(REPO, 'bench/memory-bare-pglite.mjs');
const MB = 1024 * 1024;

const ProbeLine = z.object({ rss: z.number(), heapUsed: z.number(), heapTotal: z.number(), external: z.number(), arrayBuffers: z.number() });
type Probe = z.infer<typeof ProbeLine>;

interface Row {
  name: string;
  rss: number;
  peak: number;
  heapUsed: number | undefined;
  external: number | undefined;
}

/** VmRSS and VmHWM (the peak) of a live process, in bytes (Linux). */
async function residentOf(pid: number): Promise<{ rss: number; peak: number }> {
  const status = await readFile(`/proc/${String(pid)}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN) * 1024;
  return { rss: kb('VmRSS'), peak: kb('VmHWM') };
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => { resolve(); }));
}

async function stop(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  child.kill('SIGTERM');
  await exited(child);
  clearTimeout(timer);
}

/**
 * The probe in a child (bench/memory-probe.mjs): `ready` resolves once it listens (a signal before that would end
 * the process), `read` asks it for the child's memory.
 */
function probeOf(child: ChildProcess): { ready: Promise<void>; read: () => Promise<Probe> } {
  const waiting: ((probe: Probe) => void)[] = [];
  let listening: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => (listening = resolve));
  if (child.stderr) {
    createInterface({ input: child.stderr }).on('line', (line) => {
      if (line === 'memory-probe ready') listening();
      else if (line.startsWith('memory-probe {')) waiting.shift()?.(ProbeLine.parse(JSON.parse(line.slice('memory-probe '.length))));
    });
  }
  const read = () =>
    new Promise<Probe>((resolve, reject) => {
      const timer = setTimeout(() => { reject(new Error('the memory probe did not answer')); }, 10_000);
      waiting.push((probe) => {
        clearTimeout(timer);
        resolve(probe);
      });
      child.kill('SIGUSR2');
    });
  return { ready, read };
}

async function answers(url: string, within: number): Promise<void> {
  const deadline = Date.now() + within;
  while (Date.now() < deadline) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not yet
    }
    await pause(250);
  }
  throw new Error(`${url} did not answer within ${String(within / 1000)} s`);
}

/** How the server runs: from its sources as `npm start` runs it, or the build as `npm run serve` runs it. */
const SERVER_COMMANDS = {
  sources: { cwd: path.join(REPO, 'apps/server'), args: ['--import', 'tsx', '--import', PROBE, 'src/server.ts'] },
  built: { cwd: REPO, args: ['--conditions=uvd-dist', '--import', PROBE, 'scripts/serve.mjs'] },
} as const;
const BUILT_SERVER = path.join(REPO, 'apps/server/dist/server.js');

/**
 * The server with the demo fleet beside it for `seconds`; the server's memory then. `settings`: the Node flags
 * and malloc setting of scripts/server-memory.mjs, as npm start, npm run serve and serve:cluster start it.
 */
async function serverWithDemo(name: string, env: Record<string, string>, run: keyof typeof SERVER_COMMANDS, settings = true): Promise<Row> {
  const port = await freePort();
  const serverEnv = {
    ...(settings ? SERVER_MALLOC_ENV : {}),
    ...process.env,
    PORT: String(port),
    MQTT_PORT: String(await freePort()),
    LOG_LEVEL: 'warn',
    SEED_DEMO: 'true',
    ...env,
  };
  const command = SERVER_COMMANDS[run];
  const args = ['--expose-gc', ...(settings ? SERVER_NODE_FLAGS : []), ...command.args];
  const server = spawn(process.execPath, args, { cwd: command.cwd, env: serverEnv, stdio: ['ignore', 'ignore', 'pipe'] });
  const probe = probeOf(server);
  let demo: ChildProcess | undefined;
  try {
    const base = `http://127.0.0.1:${String(port)}`;
    await answers(`${base}/healthz`, 180_000);
    demo = spawn(process.execPath, ['--import', 'tsx', 'src/demo/cli.ts'], {
      cwd: path.join(REPO, 'apps/robot-sim'),
      env: { ...process.env, DEMO_SERVER_URL: base },
      stdio: 'ignore',
    });
    await pause(seconds * 1000);
    // The probe collects garbage first, so the RSS after it is the server's, not its garbage's.
    const heap = await probe.read();
    const resident = await residentOf(server.pid ?? 0);
    console.log(`${name}: ${(resident.rss / MB).toFixed(0)} MB RSS after ${String(seconds)} s of the demo`);
    return { name, ...resident, heapUsed: heap.heapUsed, external: heap.external };
  } finally {
    await stop(demo);
    await stop(server);
  }
}

/** A process that only opens the data folder with PGlite and reads every table (bench/memory-bare-pglite.mjs). */
async function barePglite(name: string, dataDir: string, sharedBuffers: string | undefined): Promise<Row> {
  const child = spawn(process.execPath, ['--expose-gc', BARE, dataDir, ...(sharedBuffers ? [sharedBuffers] : [])], { stdio: ['ignore', 'pipe', 'inherit'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  // 'close' comes after the output is read to its end ('exit' may come before).
  await new Promise((resolve) => child.once('close', resolve));
  const figures = z.object({ rss: z.number(), peak: z.number(), heapUsed: z.number(), external: z.number() }).parse(JSON.parse(output));
  return { name, ...figures };
}

/** An empty Node process, plain or with tsx loaded as the server's is. */
async function emptyNode(name: string, withTsx: boolean): Promise<Row> {
  const child = spawn(process.execPath, ['--expose-gc', ...(withTsx ? ['--import', 'tsx'] : []), '--import', PROBE, '-e', 'setInterval(() => {}, 1000)'], {
    cwd: path.join(REPO, 'apps/server'),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const probe = probeOf(child);
  try {
    await probe.ready;
    await pause(1000);
    const resident = await residentOf(child.pid ?? 0);
    const heap = await probe.read();
    return { name, ...resident, heapUsed: heap.heapUsed, external: heap.external };
  } finally {
    await stop(child);
  }
}

async function main(): Promise<void> {
  if (!existsSync(BUILT_SERVER)) {
    console.log(`${BUILT_SERVER} does not exist: run npm run build first.`);
    process.exit(1);
  }
  console.log(`load average at the start: ${loadavg().map((load) => load.toFixed(1)).join(', ')}`);
  const rows: Row[] = [];
  const dataDir = await mkdtemp(path.join(tmpdir(), 'uvd-bench-memory-'));
  try {
    const folder = path.join(dataDir, 'built');
    rows.push(await serverWithDemo('built server, PGlite, first start (a new folder, seeded)', { DATA_DIR: folder }, 'built'));
    rows.push(await serverWithDemo('built server, PGlite, started again on that folder', { DATA_DIR: folder }, 'built'));
    if (args['without-settings']) {
      rows.push(await serverWithDemo('  the same without the memory settings', { DATA_DIR: folder }, 'built', false));
    }
    if (args.sources) {
      const sourcesFolder = path.join(dataDir, 'sources');
      rows.push(await serverWithDemo('server from its sources (tsx), PGlite, first start', { DATA_DIR: sourcesFolder }, 'sources'));
      rows.push(await serverWithDemo('server from its sources (tsx), PGlite, started again', { DATA_DIR: sourcesFolder }, 'sources'));
    }
    rows.push(await barePglite("bare PGlite on that folder, PostgreSQL's 128 MB shared buffers", folder, undefined));
    rows.push(await barePglite("bare PGlite on that folder, the server's shared buffers", folder, '16MB'));
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
  if (!args['skip-postgres']) {
    const serverUrl = args.database ?? process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
    const scratch = await createScratchDatabase(serverUrl, 'uvd_bench_memory').catch((error: unknown) => {
      console.log(`No PostgreSQL at ${serverUrl} (${error instanceof Error ? error.message : String(error)}): its rows are left out.`);
      return undefined;
    });
    if (scratch?.url) {
      // The server seeds it on its first start; this process made it (migrated) and drops it afterwards.
      try {
        rows.push(await serverWithDemo('built server, PostgreSQL, first start (a new database, seeded)', { DATABASE_URL: scratch.url }, 'built'));
        rows.push(await serverWithDemo('built server, PostgreSQL, started again on that database', { DATABASE_URL: scratch.url }, 'built'));
      } finally {
        await scratch.drop();
      }
    }
  }
  rows.push(await emptyNode('empty Node process', false));
  if (args.sources) rows.push(await emptyNode('empty Node process with tsx', true));

  const mb = (bytes: number | undefined) => (bytes === undefined || Number.isNaN(bytes) ? '–' : (bytes / MB).toFixed(0));
  printTable(
    `Memory after ${String(seconds)} s of the demo (MB; JS heap and external after a full GC; load average now ${loadavg()[0]?.toFixed(1) ?? '?'})`,
    ['process', 'RSS', 'peak RSS', 'JS heap used', 'external (incl. PGlite heap)'],
    rows.map((row) => [row.name, mb(row.rss), mb(row.peak), mb(row.heapUsed), mb(row.external)]),
  );
}

await main();
