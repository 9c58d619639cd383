import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { DataDirLockedError, lockDataDir, processStart } from './data-dir-lock.ts';

const serverEntry = fileURLToPath(new URL('../server.ts', import.meta.url));

interface Run {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

function startServer(dataDir: string): Run {
  // `node --import tsx` (not the tsx binary, which forks) so the child's pid is the server's.
  const child = spawn(process.execPath, ['--import', 'tsx', serverEntry], {
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
    const dataDir = mkdtempSync(join(tmpdir(), 'uvd-lock-'));
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
    const dataDir = mkdtempSync(join(tmpdir(), 'uvd-lock-'));
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

  it('still refuses a lock whose process runs, with the start it recorded or with a bare pid (earlier versions)', async () => {
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
        expect(() => lockDataDir(dataDir)).toThrow(DataDirLockedError);
      }
      // Once its process is gone, the same lock is stale and taken over.
      holder.kill('SIGKILL');
      await exited;
      const release = lockDataDir(dataDir);
      expect(readFileSync(join(dataDir, 'server.lock'), 'utf8').split('\n')[0]).toBe(String(process.pid));
      release();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 30_000);
});
