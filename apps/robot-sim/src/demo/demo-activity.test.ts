/**
 * The demo activity against a real server (the server's in-process test harness, imported by path from this test
 * only): it reaches the server through the public API as the organization's admin, the demo fleet's robots through
 * the embedded broker. The database is read directly only to check what the API does not show.
 */
import { and, eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Job, LogEntry, RobotUpdate } from '@uvd/contracts';
import { actions, jobs, rooms } from '../../../server/src/db/schema.ts';
import { executionWorld, waitUntil, type ExecutionWorld } from '../../../server/src/testing/execution-fixtures.ts';
import { startTestServer, type TestServer } from '../../../server/src/testing/harness.ts';
import { openSse, type SseClient } from '../../../server/src/testing/live-fixtures.ts';
import { ApiClient } from './api-client.ts';
import { startDemoActivity, type DemoActivity, type DemoActivityOptions } from './demo-activity.ts';
import { startDemoFleet, type DemoFleet } from './demo-fleet.ts';

let server: TestServer;
const cleanups: (() => Promise<void> | void)[] = [];
const quiet = { warn: () => undefined, info: () => undefined };

beforeAll(async () => {
  server = await startTestServer({ schedulerPollMs: 100 });
});
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  await server.close();
});

const adminApi = (world: ExecutionWorld) =>
  new ApiClient(server.url, { organization: world.orgId, username: world.admin.username, password: world.admin.password });

/** A world of 4 rooms whose robot is played by the demo fleet (fast), with the demo activity running on it. */
async function demoWorld(
  options: Partial<DemoActivityOptions> = {},
  adminTimezone?: string,
): Promise<{ world: ExecutionWorld; fleet: DemoFleet; activity: DemoActivity }> {
  const world = await executionWorld(server, 4);
  if (adminTimezone) {
    const saved = await server.request('POST', '/api/settings/settings', { token: world.admin.token, body: { language: 'en', timezone: adminTimezone } });
    expect(saved.status).toBe(200);
  }
  const api = adminApi(world);
  const fleet = await startDemoFleet(api, { timeFactor: 60 });
  cleanups.push(() => fleet.stop());
  expect(fleet.robotIds).toEqual([world.robotId]);
  // The first round only once the robot is online and its battery known.
  await waitUntil(async () => {
    const response = await server.request<{ payload: { mode: number; battery: number | null }[] }>('GET', '/api/robot/robot/robots', { token: world.admin.token });
    const robot = response.body.payload[0];
    return robot && robot.mode === 2 && (robot.battery ?? 0) >= 40 ? true : undefined;
  }, 15_000, 'the demo robot online and charged');
  const activity = startDemoActivity(api, {
    robotIds: fleet.robotIds,
    intervalMs: 200,
    firstRoundMs: 0,
    startLeadMs: 0,
    promptTimeoutMs: 600,
    notReadyEvery: 0,
    logger: quiet,
    ...options,
  });
  cleanups.push(() => activity.stop());
  return { world, fleet, activity };
}

/** The robot's jobs, oldest first. */
/** DD.MM.YYYY HH:mm of an instant on a timezone's wall clock, read apart from the code under test ('sv-SE' writes YYYY-MM-DD HH:mm). */
const wallClockText = (iso: string, timeZone: string) => {
  const [date = '', time = ''] = new Date(iso)
    .toLocaleString('sv-SE', { timeZone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit' })
    .split(' ');
  const [year, month, day] = date.split('-');
  return `${day}.${month}.${year} ${time}`;
};

const jobsOf = async (world: ExecutionWorld) => {
  const response = await server.request<{ payload: unknown[] }>('GET', '/api/jobs/v2/jobs', {
    token: world.admin.token,
    query: { robot_id: world.robotId, limit: 50 },
  });
  expect(response.status).toBe(200);
  return response.body.payload.map((job) => Job.parse(job)).sort((a, b) => a.created_at.localeCompare(b.created_at));
};

/** One job as GET /jobs/job/{id} gives it: the jobs list holds only jobs not yet performed. */
const jobOf = async (world: ExecutionWorld, jobId: string) => {
  const response = await server.request('GET', `/api/jobs/job/${jobId}`, { token: world.admin.token });
  expect(response.status).toBe(200);
  return Job.parse(response.body);
};

const logOf = async (world: ExecutionWorld, jobId: string) => {
  const response = await server.request('GET', `/api/log/${jobId}`, { token: world.admin.token });
  return response.status === 200 ? LogEntry.parse(response.body) : undefined;
};

describe('demo activity (through the API)', () => {
  it('gives an idle demo robot jobs of 2-4 rooms of its floor, which start, run (poses in the robot stream) and complete', async () => {
    const { world, activity } = await demoWorld({}, 'America/New_York');
    const stream: SseClient = await openSse(server.url, '/api/robot/stream', { token: world.operator.token, query: { robot_list: world.robotId } });
    cleanups.push(() => {
      stream.close();
    });

    const first = await waitUntil(async () => (await jobsOf(world)).at(0), 10_000, 'a demo job');
    // Made by the admin the demo signed in as, through POST /jobs/jobs/{robotId}.
    expect(first.created_by).toBe(world.admin.username);
    expect(first.rooms.length).toBeGreaterThanOrEqual(2);
    expect(first.rooms.length).toBeLessThanOrEqual(4);
    for (const room of first.rooms) {
      expect(world.roomIds).toContain(room.room_id);
      // The organization's default dose (the harness offers 10, 20, 30, 50 with 20 as default).
      expect(room.dose).toBe(20);
    }
    // Its planned start_time has no seconds (the server drops them) and stays as planned once the job started; the
    // real start is started_at.
    expect(new Date(first.start_time).getUTCSeconds()).toBe(0);
    if (first.status !== 'Scheduled') expect(Date.parse(first.started_at ?? '')).toBeGreaterThanOrEqual(Date.parse(first.created_at));
    // Named as the console names a job (behaviour §5), with the start time on the admin's clock, not UTC's.
    expect(first.name).toBe(`Test ${wallClockText(first.start_time, 'America/New_York')}`);

    const completed = await waitUntil(
      async () => {
        const job = await jobOf(world, first.job_id);
        return job.status === 'Completed' ? job : undefined;
      },
      30_000,
      'the first demo job completed',
    );
    expect(completed.performed).toBe(true);
    const log = await waitUntil(() => logOf(world, first.job_id), 5000, 'its log');
    expect(log.completion_status).toBe('completed');
    expect(log.attributes.rooms.map((room) => room.state)).toEqual(first.rooms.map(() => 'done'));

    // While it ran, the robot stream carried its moves.
    const poses = stream.frames
      .filter((frame) => frame.event === 'robot_update')
      .map((frame) => RobotUpdate.parse(JSON.parse(frame.data)))
      .filter((update) => update.field === 'pose');
    expect(poses.length).toBeGreaterThan(2);
    expect(new Set(poses.map((update) => JSON.stringify(update.value))).size).toBeGreaterThan(2);

    // The robot is idle again, so it gets its next job; never two due at once.
    // (The jobs list holds only jobs not yet performed: the first one has left it.)
    await waitUntil(
      async () => ((await jobsOf(world)).some((job) => job.job_id !== first.job_id) ? true : undefined),
      15_000,
      'a second demo job',
    );
    await activity.stop();
    const open = await jobsOf(world);
    expect(open.every((job) => job.status !== 'Completed')).toBe(true);
    expect(open.length).toBeLessThanOrEqual(1);
  });

  it('leaves robots alone that are busy, not Autonomous or low on battery, and robots it does not play', async () => {
    const world = await executionWorld(server, 3);
    // Not played by a demo fleet: offline, so never given a job even when listed.
    const activity = startDemoActivity(adminApi(world), { robotIds: [world.robotId], intervalMs: 60_000, firstRoundMs: 60_000, startLeadMs: 0, logger: quiet });
    cleanups.push(() => activity.stop());
    const round = await activity.round();
    expect(round.created).toEqual([]);
    expect(await jobsOf(world)).toEqual([]);

    const { world: busyWorld, fleet, activity: busyActivity } = await demoWorld({ intervalMs: 60_000, firstRoundMs: 60_000, startLeadMs: 5 * 60_000 });
    const sim = fleet.robots[0];
    if (!sim) throw new Error('no simulated robot');
    const robotId = busyWorld.robotId;
    const listed = async () => {
      const response = await server.request<{ payload: { robot_id: string; mode: number; battery: number | null }[] }>('GET', '/api/robot/robot/robots', {
        token: busyWorld.admin.token,
      });
      return response.body.payload.find((robot) => robot.robot_id === robotId);
    };

    expect((await busyActivity.round()).created).toHaveLength(1);
    // Its job is due within 10 minutes: the next round makes none.
    expect((await busyActivity.round()).created).toEqual([]);
    await server.context.db.delete(jobs).where(eq(jobs.robotId, robotId));

    sim.setOperatingMode('MANUAL');
    await waitUntil(async () => ((await listed())?.mode === 1 ? true : undefined), 5000, 'the robot in Manual mode');
    expect((await busyActivity.round()).created).toEqual([]);

    sim.setOperatingMode('AUTOMATIC');
    sim.setBattery(35);
    await waitUntil(async () => {
      const robot = await listed();
      return robot && (robot.battery ?? 100) < 40 && robot.mode === 2 ? true : undefined;
    }, 5000, 'the robot low');
    expect((await busyActivity.round()).created).toEqual([]);

    sim.setBattery(90);
    await waitUntil(async () => (((await listed())?.battery ?? 0) >= 40 ? true : undefined), 5000, 'the robot charged');
    expect((await busyActivity.round()).created).toHaveLength(1);
  });

  it('makes a room not ready for one job in n: the robot asks wait_to_enter, nobody answers, the demo confirms, the room is ready again after', async () => {
    const { world } = await demoWorld({ notReadyEvery: 1 });
    const job = await waitUntil(async () => (await jobsOf(world)).at(0), 10_000, 'a demo job');
    const notReady = job.rooms.filter((room) => room.ready_for_disinfection === false);
    expect(notReady).toHaveLength(1);
    const roomId = notReady[0]?.room_id ?? '';

    const prompt = await waitUntil(
      async () => {
        const response = await server.request<{ action_id: string; button: { text: string } }>('GET', '/api/action/action', {
          token: world.operator.token,
          query: { job_id: job.job_id },
        });
        return response.status === 200 ? response.body : undefined;
      },
      20_000,
      'the wait_to_enter prompt',
    );
    expect(prompt.button.text).toBe('wait_to_enter');

    await waitUntil(
      async () => ((await jobOf(world, job.job_id)).status === 'Completed' ? true : undefined),
      30_000,
      'the job completed',
    );
    const [answered] = await server.context.db.select().from(actions).where(eq(actions.id, prompt.action_id));
    expect(answered).toMatchObject({ confirm: true, disabled: true });
    const log = await waitUntil(() => logOf(world, job.job_id), 5000, 'its log');
    // Confirmed: the robot entered and disinfected the room that was not ready.
    expect(log.attributes.rooms.map((room) => room.state)).toEqual(job.rooms.map(() => 'done'));
    await waitUntil(
      async () => {
        const [room] = await server.context.db
          .select({ ready: rooms.readyForDisinfection })
          .from(rooms)
          .where(and(eq(rooms.id, roomId), inArray(rooms.id, world.roomIds)));
        return room?.ready === true ? true : undefined;
      },
      5000,
      'the room ready again',
    );
  });

  it('sets the rooms it made not ready ready again when it stops, even for a job that has not run yet', async () => {
    const { world, activity } = await demoWorld({ notReadyEvery: 1, intervalMs: 60_000, firstRoundMs: 60_000, startLeadMs: 5 * 60_000 });
    const { created } = await activity.round();
    expect(created).toHaveLength(1);
    const readiness = async () =>
      (await server.context.db.select({ ready: rooms.readyForDisinfection }).from(rooms).where(inArray(rooms.id, world.roomIds))).map((room) => room.ready);
    expect((await readiness()).filter((ready) => !ready)).toHaveLength(1);
    await activity.stop();
    expect((await readiness()).every(Boolean)).toBe(true);
  });
});
