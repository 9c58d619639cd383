import { createHash } from 'node:crypto';
import { spawn, spawnSync, type ChildProcess, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openMigratedDataFolder } from '../testing/data-folder.ts';
import { lockDataDir, processStart } from './data-dir-lock.ts';
import { builtServerArgs } from '../testing/built-server.ts';

const lockSource = fileURLToPath(new URL('./data-dir-lock.ts', import.meta.url));

/**
 * The lock module as JavaScript, for the contenders: it imports only Node's own modules, so plain `node` runs it.
 * Eighty contenders each loading tsx cost more than the races they run (half a second of CPU apiece).
 */
let compiled: string;
let lockModule: string;
beforeAll(() => {
  compiled = mkdtempSync(join(tmpdir(), 'uvd-lock-module-'));
  lockModule = join(compiled, 'data-dir-lock.mjs');
  const { outputText } = ts.transpileModule(readFileSync(lockSource, 'utf8'), {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
    fileName: lockSource,
  });
  writeFileSync(lockModule, outputText);
});
afterAll(() => {
  rmSync(compiled, { recursive: true, force: true });
});

interface Run {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

function startServer(dataDir: string): Run {
  // Plain node (not a launcher such as the tsx binary, which forks) so the child's pid is the server's.
  const child = spawn(process.execPath, builtServerArgs('server.ts'), {
    env: { ...process.env, DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', SEED_DEMO: 'false', LOG_LEVEL: 'info', DATABASE_URL: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => {
    child.on('exit', (code) => {
      resolve(code);
    });
  });
  return { child, output: () => output, exited };
}

/**
 * A new data folder for a server process, holding an empty migrated database already: these tests are about the
 * lock, and the server's first start on an empty folder (initdb, every migration) took twice the CPU of a later one.
 */
async function newDataFolder(): Promise<string> {
  const dataDir = mkdtempSync(join(tmpdir(), 'uvd-lock-'));
  await (await openMigratedDataFolder(dataDir)).close();
  return dataDir;
}

async function waitFor(predicate: () => boolean, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > until) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A process that has nothing to do with the server and just stays alive. */
function startUnrelated(): ChildProcess {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  if (child.pid === undefined) throw new Error('no pid');
  return child;
}

/**
 * A small process that takes the lock the way the server and the CLIs do. It says `ready` once loaded, waits for
 * the instant (epoch ms) it reads on stdin, spinning so that both contenders start within microseconds, then
 * either says `locked` and holds the lock until stdin ends, or prints the refusal and exits 1 as server.ts does.
 * It sleeps until 20 ms before that instant and spins only the rest: with the 80 contenders spinning all of the
 * 100 ms the instant lies ahead, the two race tests took 25.0 s of CPU, and 19.3 s this way.
 */
const CONTENDER = `
const [modulePath, dataDir, scheme] = process.argv.slice(1);
const { DataDirLockedError, lockDataDir } = await import(modulePath);
const lines = process.stdin.setEncoding('utf8');
let buffered = '';
const nextLine = () => new Promise((resolve) => {
  const take = () => { const at = buffered.indexOf('\\n'); if (at < 0) return false; resolve(buffered.slice(0, at)); buffered = buffered.slice(at + 1); return true; };
  if (take()) return;
  const onData = (chunk) => { buffered += chunk; if (take()) lines.off('data', onData); };
  lines.on('data', onData);
  lines.once('end', () => resolve(undefined));
});
process.stdout.write('ready\\n');
const goAt = Number(await nextLine());
await new Promise((resolve) => setTimeout(resolve, goAt - 20 - (performance.timeOrigin + performance.now())));
while (performance.timeOrigin + performance.now() < goAt);
let release;
try {
  release = await lockDataDir(dataDir, { scheme });
} catch (error) {
  console.error(error instanceof DataDirLockedError ? error.message : error);
  process.exit(error instanceof DataDirLockedError ? 1 : 2);
}
process.stdout.write('locked\\n');
await nextLine();
release();
`;

interface Contender {
  child: ChildProcessWithoutNullStreams;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
}

function startContender(dataDir: string, scheme: 'socket' | 'file'): Contender {
  const child = spawn(process.execPath, ['--input-type=module', '-e', CONTENDER, lockModule, dataDir, scheme], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => {
    child.on('exit', (code) => {
      resolve(code);
    });
  });
  return { child, stdout: () => stdout, stderr: () => stderr, exited };
}

/** Two contenders over one stale lock, let go at the same instant; returns them once each has won or given up. */
async function race(dataDir: string, scheme: 'socket' | 'file'): Promise<Contender[]> {
  const contenders = [startContender(dataDir, scheme), startContender(dataDir, scheme)];
  const settled = (c: Contender) => c.stdout().includes('locked') || c.child.exitCode !== null;
  try {
    await waitFor(() => contenders.every((c) => c.stdout().includes('ready') || c.child.exitCode !== null), 60_000);
    const goAt = Date.now() + 100;
    for (const c of contenders) c.child.stdin.write(`${String(goAt)}\n`);
    await waitFor(() => contenders.every(settled), 30_000);
    return contenders;
  } finally {
    for (const c of contenders) c.child.stdin.end();
    await Promise.all(contenders.map((c) => c.exited));
  }
}

/** The pid of a process that has run and is gone, as a server killed with -9 leaves it in the lock. */
function deadPid(): number {
  return spawnSync(process.execPath, ['-e', '']).pid;
}

const running: Run[] = [];
const unrelated: ChildProcess[] = [];
afterEach(async () => {
  for (const run of running.splice(0)) {
    run.child.kill('SIGTERM');
    await run.exited;
  }
  for (const child of unrelated.splice(0)) child.kill('SIGKILL');
});

describe('embedded data folder', () => {
  it('refuses a second server process on the same DATA_DIR with a clear message, and the first keeps serving', async () => {
    const dataDir = await newDataFolder();
    try {
      const first = startServer(dataDir);
      running.push(first);
      await waitFor(() => first.output().includes('Server listening'), 45_000);

      const second = startServer(dataDir);
      running.push(second);
      const code = await second.exited;
      expect(code).toBe(1);
      expect(second.output()).toContain('is in use by another server process');
      expect(second.output()).toContain(`pid ${String(first.child.pid)}`);

      const port = /listening at http:\/\/127\.0\.0\.1:(\d+)/.exec(first.output())?.[1];
      const health = await fetch(`http://127.0.0.1:${port ?? ''}/healthz`);
      expect(health.status).toBe(200);

      // Once the first process stops cleanly, the folder is free again.
      first.child.kill('SIGTERM');
      await first.exited;
      const third = startServer(dataDir);
      running.push(third);
      await waitFor(() => third.output().includes('Server listening'), 45_000);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);

  it('starts over a stale lock whose pid now belongs to another, live process', async () => {
    const dataDir = await newDataFolder();
    try {
      // What a server killed with -9 leaves behind, once the system has handed its pid to someone else: the
      // lock names a running process, but one that started at another time than the server that wrote it.
      const reused = startUnrelated();
      unrelated.push(reused);
      const crashedServerStart = processStart(process.pid);
      writeFileSync(join(dataDir, 'server.lock'), `${String(reused.pid)}\n${crashedServerStart ?? ''}\n`);

      const server = startServer(dataDir);
      running.push(server);
      const exitedFirst = server.exited.then(() => {
        throw new Error(`the server exited: ${server.output()}`);
      });
      exitedFirst.catch(() => undefined); // it exits in afterEach too, after the race is decided
      await Promise.race([waitFor(() => server.output().includes('Server listening'), 45_000), exitedFirst]);
      expect(readFileSync(join(dataDir, 'server.lock'), 'utf8').split('\n')[0]).toBe(String(server.child.pid));
      expect(reused.exitCode).toBeNull();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);

  it.runIf(process.platform === 'linux')(
    'starts over a lock file naming a live process that is not a server of the folder, even with its true start',
    async () => {
      const dataDir = mkdtempSync(join(tmpdir(), 'uvd-lock-'));
      try {
        // Say a backup copied the folder with its lock, or an earlier version's file names a pid that now runs
        // `sleep`: the file names a running process and its real start, but nothing serves this folder.
        const sleeper = spawn('sleep', ['30'], { stdio: 'ignore' });
        unrelated.push(sleeper);
        const pid = sleeper.pid ?? 0;
        writeFileSync(join(dataDir, 'server.lock'), `${String(pid)}\n${processStart(pid) ?? ''}\n`);

        const release = await lockDataDir(dataDir);
        expect(readFileSync(join(dataDir, 'server.lock'), 'utf8').split('\n')[0]).toBe(String(process.pid));
        release();
        expect(sleeper.exitCode).toBeNull();
      } finally {
        rmSync(dataDir, { recursive: true, force: true });
      }
    },
    30_000,
  );

  it.runIf(process.platform === 'linux')(
    'names the pid of a holder that has bound the socket but does not listen yet, as one started at the same instant',
    async () => {
      const dataDir = mkdtempSync(join(tmpdir(), 'uvd-lock-'));
      try {
        writeFileSync(join(dataDir, 'server.lock'), `${String(deadPid())}\n${processStart(process.pid) ?? ''}\n`);
        // Between a holder's bind() and listen() a connection is refused, and the stale lock file names no one
        // running. This holder stays in that gap for 300 ms, then listens on the same socket and answers as a lock.
        // (The socket's abstract name: a NUL, then this; the NUL cannot go through argv.)
        const name = `uvd-data-dir-${createHash('sha256').update(realpathSync(dataDir)).digest('hex')}`;
        const holder = spawn(
          process.execPath,
          [
            '-e',
            `const { Pipe, constants } = process.binding('pipe_wrap');
             const handle = new Pipe(constants.SERVER);
             if (handle.bind('\\0' + process.argv[1]) !== 0) process.exit(3);
             console.log('bound');
             setTimeout(() => {
               require('node:net').createServer((socket) => socket.end(process.pid + '\\n\\n')).listen({ fd: handle.fd });
             }, 300);`,
            name,
          ],
          { stdio: ['ignore', 'pipe', 'inherit'] },
        );
        unrelated.push(holder);
        let said = '';
        holder.stdout.on('data', (chunk: Buffer) => (said += chunk.toString()));
        await waitFor(() => said.includes('bound'), 30_000);

        const refusal = await lockDataDir(dataDir, { scheme: 'socket' }).then(
          (release) => {
            release();
            return 'taken';
          },
          (error: unknown) => (error instanceof Error ? error.message : String(error)),
        );
        expect(refusal).toContain(`The data folder ${dataDir} is in use by another server process (pid ${String(holder.pid)})`);
      } finally {
        rmSync(dataDir, { recursive: true, force: true });
      }
    },
    30_000,
  );

  for (const scheme of ['socket', 'file'] as const) {
    it.runIf(scheme === 'file' || process.platform === 'linux')(
      `lets exactly one of two processes started at the same instant over a stale lock take the folder (${scheme})`,
      async () => {
        const stalePid = deadPid();
        for (let round = 0; round < 20; round += 1) {
          const dataDir = mkdtempSync(join(tmpdir(), 'uvd-lock-'));
          try {
            writeFileSync(join(dataDir, 'server.lock'), `${String(stalePid)}\n${processStart(process.pid) ?? ''}\n`);
            const contenders = await race(dataDir, scheme);
            const winners = contenders.filter((c) => c.stdout().includes('locked'));
            const losers = contenders.filter((c) => !c.stdout().includes('locked'));
            const report = contenders.map((c) => `exit ${String(c.child.exitCode)}: ${c.stdout()} ${c.stderr()}`).join('\n');
            expect(winners, `round ${String(round)}\n${report}`).toHaveLength(1);
            const [winner] = winners;
            const [loser] = losers;
            expect(loser?.child.exitCode, report).toBe(1);
            expect(loser?.stderr()).toContain(`The data folder ${dataDir} is in use by another server process`);
            expect(loser?.stderr()).toContain(`(pid ${String(winner?.child.pid)})`);
          } finally {
            rmSync(dataDir, { recursive: true, force: true });
          }
        }
      },
      240_000,
    );
  }

  it('on the lock-file scheme, still refuses a lock whose process runs, with the start it recorded or with a bare pid (earlier versions)', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'uvd-lock-'));
    try {
      const holder = startUnrelated();
      unrelated.push(holder);
      const exited = new Promise((resolve) => holder.on('exit', resolve));
      const pid = holder.pid ?? 0;
      const start = processStart(pid);
      expect(start).toBeDefined();
      expect(start).not.toBe(processStart(process.pid));
      for (const content of [`${String(pid)}\n${start ?? ''}\n`, String(pid)]) {
        writeFileSync(join(dataDir, 'server.lock'), content);
        await expect(lockDataDir(dataDir, { scheme: 'file' })).rejects.toThrow(`is in use by another server process (pid ${String(pid)})`);
      }
      // Once its process is gone, the same lock is stale and taken over.
      holder.kill('SIGKILL');
      await exited;
      const release = await lockDataDir(dataDir, { scheme: 'file' });
      expect(readFileSync(join(dataDir, 'server.lock'), 'utf8').split('\n')[0]).toBe(String(process.pid));
      release();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 30_000);
  it('on the lock-file scheme, starts after a server that crashed while taking over a stale lock', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'uvd-lock-'));
    try {
      // A stale lock, and the claim on it of a process that died before replacing it.
      writeFileSync(join(dataDir, 'server.lock'), `${String(deadPid())}\n${processStart(process.pid) ?? ''}\n`);
      const ino = statSync(join(dataDir, 'server.lock'), { bigint: true }).ino;
      writeFileSync(join(dataDir, `server.lock.claim-${ino.toString()}`), `${String(deadPid())}\n\n`);

      const release = await lockDataDir(dataDir, { scheme: 'file' });
      expect(readFileSync(join(dataDir, 'server.lock'), 'utf8').split('\n')[0]).toBe(String(process.pid));
      expect(readdirSync(dataDir)).toEqual(['server.lock']);
      release();
      expect(readdirSync(dataDir)).toEqual([]);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 30_000);
});
