/**
 * PGlite takes no lock on its folder, and two processes writing one folder corrupt it. So a server (or a CLI
 * such as site:import) locks the folder before opening it; a second one on the same DATA_DIR is refused with a
 * clear message, and a lock left by a process that is gone is taken over.
 *
 * On Linux the lock is a Unix socket bound in the abstract namespace under a name made from the folder's real
 * path. Binding is atomic and exclusive (a second bind gets EADDRINUSE), and the kernel frees the name when
 * its process ends, however it ends: a kill -9 or a power cut leaves nothing stale behind, a reused pid cannot
 * hold the folder, and two servers starting at the same instant cannot both have it. The socket answers a
 * connection with its owner's pid, which the refusal names. Abstract names belong to a network namespace:
 * processes in two containers that share the folder but not the network do not see each other's socket.
 *
 * We still write the lock file `server.lock`, for people and for earlier versions: the pid on the first line
 * (all that the first versions read) and that process's start identity on the second (the boot id with the
 * start time in clock ticks from /proc/<pid>/stat on Linux, exact and without a child process; elsewhere what
 * `ps -o lstart=` prints). On Linux the file decides nothing: a file naming a live process that holds no
 * socket (a reused pid, an unrelated program) does not keep the server down.
 *
 * Elsewhere (macOS has no abstract namespace) the file is the lock. It is created whole in one step (written
 * beside it, then hard-linked to its name, which fails if it exists). It is stale when its pid is gone or now
 * names a process that started at another time; when the start cannot be read (no /proc, no ps) the pid's
 * liveness alone decides. A stale lock is replaced only by the one process that first claims it: a claim is a
 * hard link named after the stale file's inode, which only one process can create, and the claimant replaces
 * the lock by an atomic rename after checking it is still the stale file it judged. A claimant that died
 * mid-way leaves a stale claim, which is claimed the same way in turn.
 */
import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { closeSync, fstatSync, linkSync, mkdirSync, openSync, readdirSync, readFileSync, realpathSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection, createServer, type Server } from 'node:net';
import { basename, dirname, join, resolve } from 'node:path';

export class DataDirLockedError extends Error {
  constructor(dataDir: string, pid: number | undefined) {
    super(
      `The data folder ${resolve(dataDir)} is in use by another server process${pid === undefined ? '' : ` (pid ${pid})`}. ` +
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
    return isCode(error, 'EPERM');
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

export interface LockOptions {
  /** How the lock is held: `socket` (Linux only) or `file`; by default `socket` on Linux, `file` elsewhere. */
  scheme?: 'socket' | 'file';
}

/** Takes the lock on `dataDir`, or throws DataDirLockedError; resolves to the function that releases it. */
export async function lockDataDir(dataDir: string, options: LockOptions = {}): Promise<() => void> {
  mkdirSync(dataDir, { recursive: true });
  const lockFile = join(dataDir, 'server.lock');
  const selfText = lockText({ pid: process.pid, start: processStart(process.pid) });
  const scheme = options.scheme ?? (process.platform === 'linux' ? 'socket' : 'file');
  return scheme === 'socket' ? lockWithSocket(dataDir, lockFile, selfText) : lockWithFile(dataDir, lockFile, selfText);
}

// ---- Linux: an abstract Unix socket ----

async function lockWithSocket(dataDir: string, lockFile: string, selfText: string): Promise<() => void> {
  const name = `\0uvd-data-dir-${createHash('sha256').update(realpathSync(dataDir)).digest('hex')}`;
  let server: Server | undefined;
  for (let attempt = 1; ; attempt += 1) {
    server = await bind(name, selfText);
    if (server !== undefined) break;
    const answer = await askOwner(name);
    // Refused: the holder has bound the name but does not listen yet (a process started at the same instant), or
    // it has just ended. Ask again shortly, binding first in case the name is free now.
    if (answer === 'refused' && attempt < OWNER_ASKS) {
      await new Promise((wait) => setTimeout(wait, 20));
      continue;
    }
    const owner = (typeof answer === 'object' ? parseLock(answer.text) : undefined) ?? runningOwner(readText(lockFile));
    throw new DataDirLockedError(dataDir, owner?.pid);
  }
  try {
    writeWhole(lockFile, selfText, (temp) => {
      renameSync(temp, lockFile);
    });
  } catch (error) {
    server.close();
    throw error;
  }
  return () => {
    removeIfOurs(lockFile, selfText);
    server.close();
  };
}

/** Binds `name`, answering each connection with `answer`; undefined when another process holds the name. */
function bind(name: string, answer: string): Promise<Server | undefined> {
  return new Promise((resolveBind, reject) => {
    const server = createServer((socket) => {
      socket.on('error', () => undefined); // a reader that hangs up early is not our problem
      socket.unref();
      socket.end(answer);
    });
    server.once('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EADDRINUSE') resolveBind(undefined);
      else reject(error);
    });
    server.listen({ path: name, exclusive: true }, () => {
      server.unref(); // the lock keeps nothing alive: the process ends when its work does
      server.on('error', () => undefined); // a failed accept must not bring the server down
      resolveBind(server);
    });
  });
}

/** How often a refused connection to the lock's holder is tried again (20 ms apart) before the refusal names no pid. */
const OWNER_ASKS = 50;

/**
 * What the process holding `name` answers (its lock text); 'refused' when the connection is refused (nothing
 * listens on the name); 'silent' when it does not answer in time.
 */
function askOwner(name: string): Promise<{ text: string } | 'refused' | 'silent'> {
  return new Promise((resolveAnswer) => {
    let text = '';
    const socket = createConnection({ path: name });
    const done = (answer: { text: string } | 'refused' | 'silent') => {
      clearTimeout(timer);
      socket.destroy();
      resolveAnswer(answer);
    };
    const timer = setTimeout(() => {
      done('silent');
    }, 2_000);
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (text += chunk));
    socket.on('end', () => {
      done({ text });
    });
    socket.on('error', (error) => {
      done(isCode(error, 'ECONNREFUSED') ? 'refused' : 'silent');
    });
  });
}

// ---- Elsewhere: the lock file ----

async function lockWithFile(dataDir: string, lockFile: string, selfText: string): Promise<() => void> {
  const release = () => {
    removeIfOurs(lockFile, selfText);
  };
  for (let attempt = 0; attempt < 200; attempt += 1) {
    const outcome = writeWhole(lockFile, selfText, (temp) => {
      try {
        linkSync(temp, lockFile); // no lock yet: ours appears whole, or not at all if another was first
        return 'taken';
      } catch (error) {
        if (!isCode(error, 'EEXIST')) throw error;
      }
      const found = readLock(lockFile);
      if (found === undefined) return 'again'; // released meanwhile
      const owner = runningOwner(found.text);
      if (owner) throw new DataDirLockedError(dataDir, owner.pid);
      return takeOver(lockFile, found, temp);
    });
    if (outcome === 'taken') return release;
    if (outcome === 'busy') await new Promise((wait) => setTimeout(wait, 10)); // another process is taking it over
  }
  throw new Error(
    `Could not take the lock on ${resolve(dataDir)}: other processes kept changing it. If no server uses this folder, ` +
      `remove ${resolve(lockFile)} and any ${basename(lockFile)}.claim-* file beside it.`,
  );
}

/**
 * Replaces the stale lock `found` by our file `temp`, if we are the first to claim it: 'taken'; 'busy' while
 * another live process holds the claim; 'again' when the lock changed meanwhile.
 */
function takeOver(lockFile: string, found: LockRead, temp: string): 'taken' | 'busy' | 'again' {
  let stale = found;
  let claim: string;
  for (;;) {
    claim = `${lockFile}.claim-${stale.ino.toString()}`;
    try {
      linkSync(temp, claim);
      break;
    } catch (error) {
      if (!isCode(error, 'EEXIST')) throw error;
    }
    const other = readLock(claim);
    if (other === undefined) return 'again';
    if (runningOwner(other.text)) return 'busy';
    stale = other; // its claimant died before finishing: claim its claim
  }
  const now = readLock(lockFile);
  if (now?.ino !== found.ino || now.text !== found.text) {
    rmSync(claim, { force: true });
    return 'again';
  }
  renameSync(temp, lockFile);
  // Every claim left is now outdated: it names an inode the lock file no longer has.
  const prefix = `${basename(lockFile)}.claim-`;
  for (const entry of readdirSync(dirname(lockFile))) {
    if (entry.startsWith(prefix)) rmSync(join(dirname(lockFile), entry), { force: true });
  }
  return 'taken';
}

// ---- Both ----

interface LockRead {
  ino: bigint;
  text: string;
}

/** The file's inode and content, read from one open file; undefined when it does not exist. */
function readLock(path: string): LockRead | undefined {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (error) {
    if (isCode(error, 'ENOENT')) return undefined;
    throw error;
  }
  try {
    return { ino: fstatSync(fd, { bigint: true }).ino, text: readFileSync(fd, 'utf8') };
  } finally {
    closeSync(fd);
  }
}

/** The owner named by a lock text, when that process still runs and is not this one. */
function runningOwner(text: string | undefined): LockOwner | undefined {
  const owner = parseLock(text ?? '');
  // A lock naming our own pid is a former process's: a container restarting its server as pid 1, say.
  return owner && owner.pid !== process.pid && ownerRuns(owner) ? owner : undefined;
}

/** Writes `text` to a fresh file beside `path`, calls `use` with it, and removes whatever `use` left of it. */
function writeWhole<T>(path: string, text: string, use: (temp: string) => T): T {
  const temp = `${path}.${String(process.pid)}-${randomBytes(6).toString('hex')}.tmp`;
  writeFileSync(temp, text, { flag: 'wx' });
  try {
    return use(temp);
  } finally {
    rmSync(temp, { force: true });
  }
}

function removeIfOurs(lockFile: string, selfText: string): void {
  if (readText(lockFile) === selfText) rmSync(lockFile, { force: true });
}

const isCode = (error: unknown, code: string): boolean => error instanceof Error && 'code' in error && error.code === code;
