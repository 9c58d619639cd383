import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

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

const running: Run[] = [];
afterEach(async () => {
  for (const run of running.splice(0)) {
    run.child.kill('SIGTERM');
    await run.exited;
  }
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
});
