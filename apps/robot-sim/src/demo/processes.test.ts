/**
 * The simulator's two commands as processes against a server process (the built server, as the server's process
 * tests start it: apps/server/src/testing/built-server.ts, over a fresh embedded database with the demo seed): `npm run demo` plays the seeded organizations' robots and
 * stops cleanly on SIGTERM; `npm run sim -- --server` plays one organization's. Both reach the server through
 * MQTT and its public HTTP API only.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  FloorMapMetadata,
  getAdminRobots,
  getFloorMapMetadata,
  getRoomReadiness,
  JobList,
  listJobs,
  RobotList,
  RoomReadinessList,
  type Job,
  type Robot,
} from '@uvd/contracts';
import { builtServerArgs } from '../../../server/src/testing/built-server.ts';
import { ApiClient } from './api-client.ts';
import { DEMO_NOTES, NOT_READY_NOTES } from './demo-activity.ts';

const demoEntry = fileURLToPath(new URL('./cli.ts', import.meta.url));
const simEntry = fileURLToPath(new URL('../cli.ts', import.meta.url));

interface Run {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
  /** Resolves with the first match of `pattern` in the output; rejects when the process exits first. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpExecArray>;
}

// The server's address and identity provider are its own, whatever the surrounding environment says.
const { PUBLIC_URL: _publicUrl, IDP_ISSUER_BASE: _issuer, NODE_ENV: _nodeEnv, ...inherited } = process.env;

/** `args` for node (the simulator's commands run from their sources through tsx's loader). */
function run(args: string[], env: Record<string, string>): Run {
  const child = spawn(process.execPath, args, { env: { ...inherited, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const listeners = new Set<() => void>();
  const onData = (chunk: Buffer) => {
    output += chunk.toString();
    for (const listener of listeners) listener();
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => {
    resolve(code);
    for (const listener of listeners) listener();
  }));
  return {
    child,
    output: () => output,
    exited,
    waitFor: (pattern, timeoutMs = 60_000) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          listeners.delete(check);
          reject(new Error(`no ${String(pattern)} within ${timeoutMs} ms:\n${output}`));
        }, timeoutMs);
        function check() {
          const match = pattern.exec(output);
          if (match) {
            clearTimeout(timer);
            listeners.delete(check);
            resolve(match);
          } else if (child.exitCode !== null || child.signalCode !== null) {
            clearTimeout(timer);
            listeners.delete(check);
            reject(new Error(`exited (${String(child.exitCode ?? child.signalCode)}) before ${String(pattern)}:\n${output}`));
          }
        }
        listeners.add(check);
        check();
      }),
  };
}

const stop = async (process: Run | undefined) => {
  if (!process || process.child.exitCode !== null || process.child.signalCode !== null) return process?.exited;
  process.child.kill('SIGTERM');
  return process.exited;
};

describe('the demo and the simulator as processes beside a server process', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'uvd-demo-'));
  let server: Run;
  let baseUrl = '';
  const admin = (organization: string, password: string) => new ApiClient(baseUrl, { organization, username: 'admin', password });
  const robotsOf = async (api: ApiClient): Promise<Robot[]> => (await api.call(getAdminRobots, RobotList, { query: { limit: 200 } })).payload;
  const until = async <T>(read: () => Promise<T | undefined>, timeoutMs: number, what: string): Promise<T> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = await read();
      if (value !== undefined) return value;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  };

  beforeAll(async () => {
    server = run(builtServerArgs('server.ts'), {
      DATA_DIR: dataDir,
      DATABASE_URL: '',
      MQTT_URL: '',
      MQTT_PORT: '0',
      PORT: '0',
      HOST: '127.0.0.1',
      SEED_DEMO: 'true',
      LOG_LEVEL: 'info',
      TOKEN_RATE_LIMIT_PER_MINUTE: '0',
      // The demo, not overload, is under test: other suites share the machine's cores, and a busy second must not
      // turn into a 503 for the test's own calls (the demo itself waits and retries; plugins/load-shedding.test.ts).
      LOAD_MAX_EVENT_LOOP_DELAY_MS: '0',
      LOAD_MAX_EVENT_LOOP_UTILIZATION: '0',
    });
    baseUrl = (await server.waitFor(/Server listening at (http:\/\/127\.0\.0\.1:\d+)/, 90_000))[1] ?? '';
  }, 120_000);
  afterAll(async () => {
    await stop(server);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("npm run demo: every seeded organization's robots on a floor come online; SIGTERM stops it, and the robots go offline", async () => {
    const demo = run(['--import', 'tsx', demoEntry], { DEMO_SERVER_URL: baseUrl, DEMO_BROKER_URL: '', DEMO_LOGINS: '', SIM_TIME_FACTOR: '10', DEMO_ACTIVITY: 'false' });
    try {
      const ready = await demo.waitFor(/\[demo\] ready: (\d+) simulated robots in (\d+) organizations/);
      expect(ready[2]).toBe('2');
      const demoApi = admin('demo', 'admin-demo-1');
      const northwind = admin('northwind', 'northwind-admin-1');
      const onFloor = [...(await robotsOf(demoApi)), ...(await robotsOf(northwind))].filter((robot) => robot.floor_id !== null);
      expect(Number(ready[1])).toBe(onFloor.length);
      await until(
        async () => {
          const robots = [...(await robotsOf(demoApi)), ...(await robotsOf(northwind))].filter((robot) => robot.floor_id !== null);
          return robots.every((robot) => robot.mode !== 0 && robot.battery !== null) ? robots : undefined;
        },
        60_000,
        'every demo robot online',
      );
      expect(await stop(demo)).toBe(0);
      await until(
        async () => ((await robotsOf(demoApi)).every((robot) => robot.mode === 0) ? true : undefined),
        30_000,
        'the demo robots offline after the demo stopped',
      );
    } finally {
      await stop(demo);
    }
  }, 180_000);

  it('npm run demo with the activity: idle seeded robots get jobs of rooms of their floor with an entry point; one room in four is set not ready, and ready again when the demo stops', async () => {
    const api = admin('demo', 'admin-demo-1');
    const startedAt = new Date().toISOString();
    const demo = run(['--import', 'tsx', demoEntry], { DEMO_SERVER_URL: baseUrl, DEMO_BROKER_URL: '', DEMO_LOGINS: '', SIM_TIME_FACTOR: '10', DEMO_ACTIVITY: 'true' });
    try {
      await demo.waitFor(/\[demo\] ready:/);
      const robots = (await robotsOf(api)).filter((robot) => robot.floor_id !== null);
      const demoJobs = async (): Promise<Job[]> =>
        (await api.call(listJobs, JobList, { query: { robot_id: robots.map((robot) => robot.robot_id), limit: 200 } })).payload.filter(
          (job) => (job.notes === DEMO_NOTES || job.notes === NOT_READY_NOTES) && job.created_at >= startedAt,
        );
      // The first round comes 5 s after the start, the next 20 s later: by then every robot reported its state.
      const jobs = await until(async () => {
        const made = await demoJobs();
        return made.length >= robots.length ? made : undefined;
      }, 90_000, 'a demo job for every seeded robot');
      // One job each: a robot with a job due within 10 minutes is busy.
      expect(new Set(jobs.map((job) => job.robot_id)).size).toBe(jobs.length);
      for (const job of jobs) {
        const robot = robots.find((candidate) => candidate.robot_id === job.robot_id);
        const floorId = robot?.floor_id ?? '';
        const plan = await api.call(getFloorMapMetadata, FloorMapMetadata, { query: { floor_id: floorId } });
        const reachable = new Set(plan.rooms.filter((room) => room.entry_point !== null).map((room) => room.room_id));
        expect(job.rooms.length).toBeGreaterThanOrEqual(2);
        expect(job.rooms.length).toBeLessThanOrEqual(4);
        for (const room of job.rooms) {
          expect(room.floor_id).toBe(floorId);
          expect(reachable.has(room.room_id)).toBe(true);
          // The organization's default dose (30 J/m² in the demo seed).
          expect(room.dose).toBe(30);
        }
      }
      const notReady = jobs.filter((job) => job.notes === NOT_READY_NOTES);
      expect(notReady.length).toBe(Math.floor(jobs.length / 4));
      const markedRooms = notReady.flatMap((job) => job.rooms.filter((room) => room.ready_for_disinfection === false).map((room) => room.room_id));
      expect(markedRooms).toHaveLength(notReady.length);

      expect(await stop(demo)).toBe(0);
      if (markedRooms.length > 0) {
        const readiness = await api.call(getRoomReadiness, RoomReadinessList, { query: { room_list: markedRooms } });
        expect(readiness.data.map((room) => room.ready_for_disinfection)).toEqual(markedRooms.map(() => true));
      }
    } finally {
      await stop(demo);
    }
  }, 180_000);

  it('npm run sim -- --server … --org northwind --admin admin: the organization\'s robots, passwords from the admin API', async () => {
    const sim = run(['--import', 'tsx', simEntry, '--server', baseUrl, '--org', 'northwind', '--admin', 'admin', '--time-factor', '10'], { SIM_ADMIN_PASSWORD: 'northwind-admin-1' });
    try {
      const connected = await sim.waitFor(/(\d+) simulated robots connected/);
      expect(sim.output()).not.toContain('Usage');
      const api = admin('northwind', 'northwind-admin-1');
      const onFloor = (await robotsOf(api)).filter((robot) => robot.floor_id !== null);
      expect(Number(connected[1])).toBe(onFloor.length);
      expect(onFloor.length).toBeGreaterThan(0);
      await until(async () => ((await robotsOf(api)).filter((robot) => robot.floor_id !== null).every((robot) => robot.mode !== 0) ? true : undefined), 60_000, 'northwind online');
    } finally {
      expect(await stop(sim)).toBe(0);
    }
  }, 120_000);
});
