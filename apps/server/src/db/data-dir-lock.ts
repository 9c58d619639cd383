/**
 * PGlite takes no lock on its folder, and two processes writing one folder corrupt it. We hold a lock file
 * naming our process; a second server on the same DATA_DIR is refused with a clear message. A lock left by a
 * process that is gone is taken over.
 *
 * A pid alone does not name a process for long: after a kill -9 or a power cut the lock stays, and the pid in
 * it is soon reused (containers restart at low pids), which would keep the server down for good. So the file
 * holds the pid and that process's start identity: on Linux the boot id with the start time in clock ticks
 * from /proc/<pid>/stat (exact, no child process), elsewhere (macOS) what `ps -o lstart=` prints. A process
 * that holds the pid but started at another time is not the lock's owner. We chose this over a random token
 * with a liveness probe (a socket the owner answers on): it needs nothing running beside the server, and the
 * first line stays the bare pid, which is all that earlier versions read, so both still honour each other's
 * locks. When the start cannot be read (no /proc, no ps) the pid's liveness alone decides, as before.
 */
import { execFileSync } from 'node:child_process';
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

const readText = (path: string): string | undefined => {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
};

/**
 * When process `pid` started, as a string that differs for any other process that holds or held that pid
 * (also across reboots); undefined when the process does not exist or the system cannot tell.
 */
export function processStart(pid: number): string | undefined {
  const stat = readText(`/proc/${pid}/stat`);
  if (stat !== undefined) {
    // Field 2 (the command) is in parentheses and may itself hold spaces and parentheses: count from the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const startTicks = fields[19]; // field 22 of proc(5), the 20th after the command and state
    if (!startTicks) return undefined;
    const bootId = readText('/proc/sys/kernel/random/boot_id')?.trim() ?? '';
    return `linux ${bootId} ${startTicks}`;
  }
  if (process.platform === 'win32') return undefined;
  try {
    const started = execFileSync('ps', ['-o', 'lstart=', '-p', String(pid)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    return started ? `ps ${started}` : undefined;
  } catch {
    return undefined;
  }
}

interface LockOwner {
  pid: number;
  /** Absent in locks written by earlier versions, or when the start could not be read. */
  start: string | undefined;
}

/** The lock file's content: the pid on the first line (all that earlier versions read), the start on the second. */
const lockText = (owner: LockOwner): string => `${owner.pid}\n${owner.start ?? ''}\n`;

const parseLock = (text: string): LockOwner | undefined => {
  const [pidLine = '', start = ''] = text.split('\n');
  const pid = Number(pidLine.trim());
  if (!Number.isSafeInteger(pid) || pid <= 0) return undefined;
  return { pid, start: start.trim() || undefined };
};

/** Whether the process named by the lock still runs: same pid and, when both are known, same start. */
const ownerRuns = (owner: LockOwner): boolean => {
  if (!isAlive(owner.pid)) return false;
  if (owner.start === undefined) return true;
  const current = processStart(owner.pid);
  return current === undefined || current === owner.start;
};

/** Takes the lock on `dataDir`; returns the function that releases it. */
export function lockDataDir(dataDir: string): () => void {
  mkdirSync(dataDir, { recursive: true });
  const lockFile = join(dataDir, 'server.lock');
  const self: LockOwner = { pid: process.pid, start: processStart(process.pid) };
  for (let attempt = 0; attempt < 2; attempt += 1) {
    try {
      const fd = openSync(lockFile, 'wx');
      writeSync(fd, lockText(self));
      closeSync(fd);
      return () => {
        rmSync(lockFile, { force: true });
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const owner = parseLock(readText(lockFile) ?? '');
      if (owner && owner.pid !== process.pid && ownerRuns(owner)) throw new DataDirLockedError(dataDir, owner.pid);
      rmSync(lockFile, { force: true }); // stale: its process is gone, or the pid now names another process
    }
  }
  throw new Error(`Could not take the lock on ${resolve(dataDir)}.`);
}
