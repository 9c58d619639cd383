/**
 * Fault test: the server is killed with SIGKILL while its simulated robot disinfects a room of a running job,
 * then started again on the same data (DATA_DIR on disk for PGlite, the same database on PostgreSQL). What a
 * user expects: the server comes back (no stale lock), the job ends in a truthful final state with its room
 * results, recorded once, and the robot is not sent the job again.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Job, LogEntry, LogList, RobotList, TokenResponse } from '@uvd/contracts';
import { loadConfig } from '../config.ts';
import { openDatabase } from '../db/client.ts';
import { organizations, users } from '../db/schema.ts';
import { hashPassword } from '../identity/passwords.ts';
import { createSite } from '../testing/site-fixtures.ts';
import { createTestDatabase, testEngine, type TestDatabase } from '../testing/test-database.ts';

const serverEntry = fileURLToPath(new URL('../server.ts', import.meta.url));
const ROOMS = 3;
/** Simulated time runs 5× faster: a room's 10 J/m² (20 s at 0.5 W/m²) takes 4 s, long enough to be caught in. */
const TIME_FACTOR = 5;

interface ServerRun {
  child: ChildProcess;
  output: () => string;
  exited: Promise<unknown>;
  url: Promise<string>;
}

async function waitUntil<T>(check: () => Promise<T | undefined>, timeoutMs: number, what: string): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const found = await check();
    if (found !== undefined) return found;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe(`a server killed with SIGKILL mid-job and started again (${testEngine()})`, () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'uvd-crash-'));
  let scratch: TestDatabase | undefined;
  const runs: ServerRun[] = [];
  /** Every HTTP status the test saw, to check that none was a 5xx. */
  const statuses: { path: string; status: number }[] = [];

  const startServer = (): ServerRun => {
    const child = spawn(process.execPath, ['--import', 'tsx', serverEntry], {
      env: {
        ...process.env,
        DATA_DIR: dataDir,
        DATABASE_URL: scratch?.url ?? '',
        PORT: '0',
        HOST: '127.0.0.1',
        MQTT_URL: '',
        MQTT_PORT: '0',
        SIM_FLEET: 'true',
        SIM_TIME_FACTOR: String(TIME_FACTOR),
        DEMO_ACTIVITY: 'false',
        SEED_DEMO: 'false',
        LOG_LEVEL: 'info',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    let onListening: (url: string) => void = () => undefined;
    const url = new Promise<string>((resolve) => (onListening = resolve));
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (match?.[1]) onListening(match[1]);
    });
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise((resolve) => child.on('exit', resolve));
    const run = { child, output: () => output, exited, url };
    runs.push(run);
    return run;
  };

  const listening = async (run: ServerRun): Promise<string> => {
    const exitedFirst = run.exited.then(() => {
      throw new Error(`the server exited before it listened:\n${run.output()}`);
    });
    exitedFirst.catch(() => undefined);
    const timeout = new Promise<never>((_, reject) => {
      setTimeout(() => {
        reject(new Error(`the server did not listen in 60 s:\n${run.output()}`));
      }, 60_000).unref();
    });
    return Promise.race([run.url, exitedFirst, timeout]);
  };

  const api = async <T>(base: string, token: string, path: string, parse: (body: unknown) => T, init: RequestInit = {}): Promise<T> => {
    const headers: Record<string, string> = { authorization: `Bearer ${token}` };
    if (init.body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(`${base}${path}`, { ...init, headers });
    statuses.push({ path, status: response.status });
    const text = await response.text();
    if (!response.ok) throw new Error(`${init.method ?? 'GET'} ${path}: ${response.status} ${text}`);
    return parse(text ? JSON.parse(text) : null);
  };

  let orgId = '';
  let robotId = '';
  let roomIds: string[] = [];
  const username = 'crash-admin';
  const password = 'crash-admin-password';

  beforeAll(async () => {
    // The data as the server will find it: an organization with a floor of rooms, one robot on it, an admin.
    let database;
    if (testEngine() === 'postgres') {
      scratch = await createTestDatabase();
      database = scratch.database;
    } else {
      database = await openDatabase({ dataDir });
    }
    orgId = 'crash-org';
    await database.db.insert(organizations).values({ id: orgId, name: orgId, uvcDoses: [10], defaultDose: 10 });
    const site = await createSite(database.db, orgId, { roomsPerFloor: ROOMS, robots: 1 });
    robotId = site.robotIds[0] ?? '';
    roomIds = site.floors[0]?.roomIds ?? [];
    await database.db.insert(users).values({ orgId, username, passwordHash: await hashPassword(password), roles: ['done-admin'] });
    // PGlite is one process's: the server opens the folder itself.
    if (testEngine() === 'pglite') await database.close();
  });

  afterAll(async () => {
    for (const run of runs) {
      if (run.child.exitCode === null && run.child.signalCode === null) run.child.kill('SIGKILL');
      await run.exited;
    }
    await scratch?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('comes back, ends the job once as failed with the rooms it finished, and does not send the job again', async () => {
    const first = startServer();
    const firstUrl = await listening(first);

    const grant = await fetch(`${firstUrl}/idp/realms/${orgId}/protocol/openid-connect/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'password', client_id: loadConfig({}).clientId, username, password }).toString(),
    });
    expect(grant.status).toBe(200);
    const token = TokenResponse.parse(await grant.json()).access_token;

    const robotStatus = async (base: string) => {
      const list = await api(base, token, '/api/robot/robot/robots', (body) => RobotList.parse(body));
      return list.payload.find((robot) => robot.robot_id === robotId);
    };
    await waitUntil(async () => ((await robotStatus(firstUrl))?.mode === 2 ? true : undefined), 30_000, 'the robot online and Autonomous');

    const job = await api(firstUrl, token, `/api/jobs/jobs/${robotId}`, (body) => Job.parse(body), {
      method: 'POST',
      body: JSON.stringify({
        name: 'Crash round',
        start_time: new Date(Date.now() + 3600_000).toISOString(),
        rooms: roomIds.map((room_id, order_no) => ({ room_id, order_no, dose: 10 })),
      }),
    });
    await api(firstUrl, token, `/api/jobs/job/start?job_id=${job.job_id}`, (body) => body, { method: 'POST' });

    // Kill it inside the second room: the first is finished, the second half done, the third ahead.
    const seen: string[] = [];
    await waitUntil(
      async () => {
        const status = (await robotStatus(firstUrl))?.status ?? '';
        if (seen.at(-1) !== status) seen.push(status);
        return seen.filter((s) => s === 'disinfecting').length >= 2 ? true : undefined;
      },
      60_000,
      'the robot in its second room',
    );
    first.child.kill('SIGKILL');
    await first.exited;

    // Same data, same lock file left behind: the server must start (and honour the old token: keys are in the database).
    const second = startServer();
    const secondUrl = await listening(second);
    const statusesAfter: string[] = [];
    const ended = await waitUntil(
      async () => {
        const robot = await robotStatus(secondUrl);
        // Until it speaks again the robot is offline (mode 0) with its last status from before the kill.
        if (robot && robot.mode !== 0 && statusesAfter.at(-1) !== robot.status) statusesAfter.push(robot.status);
        const current = await api(secondUrl, token, `/api/jobs/job/${job.job_id}`, (body) => Job.parse(body));
        return current.status === 'Completed' ? current : undefined;
      },
      90_000,
      'the job to end after the restart',
    );
    expect(ended.performed).toBe(true);

    // The robot came back without the order (it was killed with the server); the job says so instead of running
    // for ever: failed, with the room it finished done and the rest not reached.
    const log = await api(secondUrl, token, `/api/log/${job.job_id}`, (body) => LogEntry.parse(body));
    expect(log.completion_status).toBe('failed');
    expect(log.attributes.rooms.map((room) => [room.room_id, room.state])).toEqual([
      [roomIds[0], 'done'],
      [roomIds[1], 'not_reached'],
      [roomIds[2], 'not_reached'],
    ]);
    const logs = await api(secondUrl, token, '/api/log', (body) => LogList.parse(body));
    expect(logs.payload.filter((entry) => entry.job_id === job.job_id)).toHaveLength(1);
    // Not sent the job again: after the restart the robot never disinfected.
    expect(statusesAfter.length).toBeGreaterThan(0);
    expect(statusesAfter).not.toContain('disinfecting');

    expect(statuses.filter((entry) => entry.status >= 500)).toEqual([]);
    for (const run of [first, second]) {
      expect(run.output()).not.toMatch(/"statusCode":5\d\d/);
      expect(run.output().split('\n').filter((line) => /"level":(50|60)/.test(line))).toEqual([]);
    }
    second.child.kill('SIGTERM');
    await second.exited;
  }, 240_000);
});
