/**
 * The real console for browser runs (the e2e global setup, bench/web.ts): build the SPA, start the server in a child
 * process as `npm run serve` runs it (its built JavaScript under plain node) over a fresh embedded database in a
 * temporary data folder, with the seeded demo organizations, and beside it the demo fleet
 * (`apps/robot-sim/src/demo/cli.ts`: simulated robots that get their MQTT passwords from the admin API), and stop
 * both again. No vitest here, so a plain script can use it.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { builtModule, buildServer, DIST_NODE_FLAGS } from '../../apps/server/src/testing/built-server.ts';
import { ARTIFACTS_DIR, REPO_ROOT, WEB_DIST } from './paths.ts';

/**
 * How long a server, or its demo fleet, may take to start. A server takes seconds alone; a file's own server (the
 * logistics one) starts while the run's four servers start their fleets and four browsers open, and on a machine half
 * as fast as usual one had not logged a line after 90 s.
 */
const STARTUP_TIMEOUT_MS = 150_000;

/**
 * The token that reads the mail the server's local catcher caught (GET /api/dev/mail): with no SMTP_URL the server
 * catches its own mail, and the tests read password reset links from there.
 */
export const E2E_MAIL_CATCHER_TOKEN = 'e2e-mail-catcher-token';

/** `npm run build -w @uvd/web` into WEB_DIST (or another folder, e.g. a bench's own, so runs do not share files). */
export function buildWeb(outDir: string = WEB_DIST): void {
  const started = Date.now();
  const result = spawnSync('npm', ['run', 'build', '-w', '@uvd/web', '--', '--outDir', outDir, '--emptyOutDir'], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
    // Vitest sets NODE_ENV=test, which would make Vite bundle React's development build.
    env: { ...process.env, NODE_ENV: 'production' },
  });
  if (result.status !== 0) {
    throw new Error(`The web console did not build (npm run build -w @uvd/web):\n${result.stdout}\n${result.stderr}`);
  }
  console.log(`web console built into ${path.relative(REPO_ROOT, outDir) || outDir} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

/** Resolves with the address the server logs once it listens; rejects when it exits or takes too long first. */
function waitForListening(server: ChildProcess, logFile: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      reject(new Error(`the server did not listen within ${STARTUP_TIMEOUT_MS / 1000} s (see ${logFile})`));
    }, STARTUP_TIMEOUT_MS);
    const onExit = (code: number | null) => {
      clearTimeout(timer);
      reject(new Error(`the server exited (${String(code)}) before it listened (see ${logFile})`));
    };
    server.once('exit', onExit);
    if (!server.stdout) throw new Error('the server has no stdout');
    createInterface({ input: server.stdout }).on('line', (line) => {
      // Fastify logs "Server listening at http://127.0.0.1:PORT" once the port is bound.
      const match = /Server listening at (http:\/\/[^\s"]+)/.exec(line);
      if (match?.[1]) {
        clearTimeout(timer);
        server.off('exit', onExit);
        resolve(match[1]);
      }
    });
  });
}

export async function waitForHealth(baseUrl: string): Promise<void> {
  const deadline = Date.now() + STARTUP_TIMEOUT_MS;
  for (;;) {
    try {
      const response = await fetch(`${baseUrl}/healthz`);
      if (response.ok) return;
    } catch {
      // not yet
    }
    if (Date.now() > deadline) throw new Error(`${baseUrl}/healthz did not answer 200`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Resolves once the demo process says its robots are connected; rejects when it exits or takes too long first. */
function waitForDemo(demo: ChildProcess, logFile: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      reject(new Error(`the demo fleet did not start within ${STARTUP_TIMEOUT_MS / 1000} s (see ${logFile})`));
    }, STARTUP_TIMEOUT_MS);
    const onExit = (code: number | null) => {
      clearTimeout(timer);
      reject(new Error(`the demo fleet exited (${String(code)}) before its robots connected (see ${logFile})`));
    };
    demo.once('exit', onExit);
    if (!demo.stdout) throw new Error('the demo process has no stdout');
    createInterface({ input: demo.stdout }).on('line', (line) => {
      if (line.startsWith('[demo] ready:')) {
        clearTimeout(timer);
        demo.off('exit', onExit);
        resolve();
      }
    });
  });
}

function stop(server: ChildProcess): Promise<void> {
  if (server.exitCode !== null || server.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    // SIGTERM lets it stop the fleet and close the database; SIGKILL only if that hangs.
    const timer = setTimeout(() => server.kill('SIGKILL'), 10_000);
    server.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    server.kill('SIGTERM');
  });
}

export interface ConsoleServer {
  baseUrl: string;
  logFile: string;
  stop(): Promise<void>;
}

export interface ConsoleServerOptions {
  /** File name of the server's log in e2e-artifacts/. */
  logName?: string;
  /** Adds to (or overrides) the settings below. */
  env?: Record<string, string>;
  /** Runs on the empty data folder before the server opens it (e.g. to seed more robots). */
  prepare?: (dataDir: string) => Promise<void>;
  /**
   * The demo fleet beside the server: the seeded organizations' robots played at this time factor, with no demo
   * activity (the tests start the jobs they watch; no robot gets one behind their back). Default 30; false: none.
   * `skipRobots`: names of robots it leaves alone, for a test to play itself (DEMO_SKIP_ROBOTS).
   */
  demoFleet?: { timeFactor: number; skipRobots?: readonly string[] } | false;
}

/** `npm run build:server:emit` once per process (tsc -b: under a second when apps/server/dist is up to date). */
let serverBuilt = false;
const buildServerOnce = () => {
  if (!serverBuilt) buildServer();
  serverBuilt = true;
};

/** Starts the server on the built SPA. */
export async function startConsoleServer(options: ConsoleServerOptions = {}): Promise<ConsoleServer> {
  buildServerOnce();
  await mkdir(ARTIFACTS_DIR, { recursive: true });
  const logFile = path.join(ARTIFACTS_DIR, options.logName ?? 'server.log');
  const dataDir = await mkdtemp(path.join(tmpdir(), 'uvd-e2e-'));
  try {
    await options.prepare?.(dataDir);
  } catch (error) {
    await rm(dataDir, { recursive: true, force: true });
    throw error;
  }
  const log = createWriteStream(logFile);
  // The address and the identity provider are the server's own, whatever the surrounding environment says.
  // NODE_ENV: vitest's `test` is not what a deployment runs with. No SMTP_URL: the server catches its own mail.
  const { PUBLIC_URL: _publicUrl, IDP_ISSUER_BASE: _issuer, NODE_ENV: _nodeEnv, SMTP_URL: _smtpUrl, ...inherited } = process.env;
  // Built, as `npm run serve` runs it: a start takes about 4.8 s of CPU here, where through tsx's loader it took 6-6.5.
  const server = spawn(process.execPath, [...DIST_NODE_FLAGS, builtModule('server.ts')], {
    cwd: path.join(REPO_ROOT, 'apps/server'),
    env: {
      ...inherited,
      PORT: '0',
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      // Always the embedded database and broker, whatever the surrounding environment points at.
      DATABASE_URL: '',
      MQTT_URL: '',
      MQTT_PORT: '0',
      WEB_DIST,
      SEED_DEMO: 'true',
      // Every test signs in from 127.0.0.1.
      TOKEN_RATE_LIMIT_PER_MINUTE: '0',
      // The event loop's busy share measures this machine, not the server: two cores run the browser, the tests,
      // the demo fleet and another worker's server beside them, and a server descheduled mid-task looks busy. Shed on
      // it, the console's own calls got 503 "event loop busy" at a load average of 7. The other signals stay on
      // (requests in flight, the event loop's delay); shedding itself is tested in plugins/load-shedding.test.ts
      // and measured by bench:overload.
      LOAD_MAX_EVENT_LOOP_UTILIZATION: '0',
      LOG_LEVEL: 'info',
      MAIL_CATCHER_TOKEN: E2E_MAIL_CATCHER_TOKEN,
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  server.stdout.pipe(log, { end: false });
  server.stderr.pipe(log, { end: false });
  let demo: ChildProcess | undefined;

  const cleanUp = async () => {
    // The demo first: its robots leave cleanly while the server still listens.
    if (demo) await stop(demo);
    await stop(server);
    log.end();
    await rm(dataDir, { recursive: true, force: true });
  };
  try {
    const baseUrl = (await waitForListening(server, logFile)).replace('0.0.0.0', '127.0.0.1');
    await waitForHealth(baseUrl);
    const demoFleet = options.demoFleet ?? { timeFactor: 30 };
    if (demoFleet) {
      demo = spawn(process.execPath, ['--import', 'tsx', 'src/demo/cli.ts'], {
        cwd: path.join(REPO_ROOT, 'apps/robot-sim'),
        env: {
          ...inherited,
          DEMO_SERVER_URL: baseUrl,
          DEMO_BROKER_URL: '',
          DEMO_LOGINS: '',
          SIM_TIME_FACTOR: String(demoFleet.timeFactor),
          // The simulator's own pace (0.5 W/m²: a dose D takes 2D s), three times the demo's: the tests' jobs end sooner.
          SIM_IRRADIANCE: '0.5',
          DEMO_ACTIVITY: 'false',
          DEMO_SKIP_ROBOTS: (demoFleet.skipRobots ?? []).join(','),
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      demo.stdout?.pipe(log, { end: false });
      demo.stderr?.pipe(log, { end: false });
      await waitForDemo(demo, logFile);
    }
    return { baseUrl, logFile, stop: cleanUp };
  } catch (error) {
    await cleanUp();
    throw error;
  }
}
