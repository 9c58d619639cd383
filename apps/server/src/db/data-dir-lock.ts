/**
 * PGlite takes no lock on its folder, and two processes writing one folder corrupt it. We hold a lock file
 * with our pid; a second server on the same DATA_DIR is refused with a clear message. A lock left by a dead
 * process is taken over.
 */
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join, resolve } from 'node:path';

export class DataDirLockedError extends Error {
  constructor(dataDir: string, pid: number) {
    super(
      `The data folder ${resolve(dataDir)} is in use by another server process (pid ${pid}). ` +
        'Stop that process, or start this one with another DATA_DIR, or use a PostgreSQL server (DATABASE_URL) to run several processes.',
    );
    this.name = 'DataDirLockedError';
  }
}

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** Takes the lock on `dataDir`; returns the function that releases it. */
export function lockDataDir(dataDir: string): () => void {
  mkdirSync(dataDir, { recursive: true });
  const lockFile = join(dataDir, 'server.lock');
  for (let attempt = 0; attempt < 2; attempt += 1) {
    try {
      const fd = openSync(lockFile, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return () => {
        rmSync(lockFile, { force: true });
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const pid = Number.parseInt(readFileSync(lockFile, 'utf8'), 10);
      if (Number.isInteger(pid) && pid !== process.pid && isAlive(pid)) throw new DataDirLockedError(dataDir, pid);
      rmSync(lockFile, { force: true }); // stale: its process is gone
    }
  }
  throw new Error(`Could not take the lock on ${resolve(dataDir)}.`);
}
