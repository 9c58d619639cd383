/**
 * Stop always works, and commands mean what they say (issue #22), on a simulated robot over real MQTT (the
 * embedded broker) through the real API: a stop is taken in every operating mode, is never given up on a
 * half-open link, ends a pause; a pause, stop or home that would change nothing is refused; the job shows only
 * what the robot reported, and a command not yet confirmed as pending.
 */
import { and, eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { SimRobot } from '@uvd/robot-sim';
import { ApiError, CommandRefusal, Job, StopAlert, type OperatingMode, type StateMessage } from '@uvd/contracts';
import { events, pushEvents, robotCommands } from '../db/schema.ts';
import { createJobFor, executionWorld, playWorldRobot, waitUntil, type ExecutionWorld } from '../testing/execution-fixtures.ts';
import { startTestServer, type TestServer } from '../testing/harness.ts';
import { startStallProxy, type StallProxy } from '../testing/stall-proxy.ts';

/** Slow enough that a room's lamp runs for about 25 s (dose 50 at 0.2 W/m²), so a stop lands while it is on. */
const TIME_FACTOR = 10;
const STOP_ALERT_MS = 1000;
const GIVE_UP_MS = 3000;

const lampOn = (state: StateMessage | undefined) =>
  state?.actionStates.some((action) => action.actionType === 'uvd_disinfect' && action.actionStatus === 'RUNNING') ?? false;

let server: TestServer;
const sims: SimRobot[] = [];
const proxies: StallProxy[] = [];
beforeAll(async () => {
  // Resends far apart, so only a resend on hearing the robot again can deliver a stop within seconds of it.
  server = await startTestServer({ commandResendMs: 10_000, commandGiveUpMs: GIVE_UP_MS, commandStopAlertMs: STOP_ALERT_MS });
});
afterEach(async () => {
  // A robot left behind a stalled link would wait for its goodbye to be acknowledged.
  for (const proxy of proxies) proxy.resume();
  await Promise.all(sims.splice(0).map((sim) => sim.stop()));
  await Promise.all(proxies.splice(0).map((proxy) => proxy.close()));
});
afterAll(async () => {
  await server.close();
});

const robotFor = (w: ExecutionWorld, brokerUrl = server.context.fleet.brokerUrl) =>
  playWorldRobot(server, w, sims, { brokerUrl, timeFactor: TIME_FACTOR, irradiance: 0.2 });

const jobOf = async (w: ExecutionWorld, jobId: string) =>
  Job.parse((await server.request('GET', `/api/jobs/job/${jobId}`, { token: w.operator.token })).body);
const jobCommand = (w: ExecutionWorld, jobId: string, command: string, token = w.operator.token) =>
  server.request('POST', `/api/command/job/${jobId}`, { token, query: { command } });
const robotCommand = (w: ExecutionWorld, command: string, token = w.admin.token) =>
  server.request('POST', `/api/command/${w.robotId}`, { token, query: { command } });
const ended = (w: ExecutionWorld, jobId: string, timeoutMs = 10_000) =>
  waitUntil(async () => {
    const job = await jobOf(w, jobId);
    return job.status === 'Completed' ? job : undefined;
  }, timeoutMs, 'the job to end');

/** A Running job of one long room, its lamp on at the robot. */
async function irradiating(w: ExecutionWorld, sim: SimRobot, rooms = 1): Promise<string> {
  const job = await createJobFor(server, w, { dose: 50, roomIds: w.roomIds.slice(0, rooms) });
  expect((await jobCommand(w, job.job_id, 'start')).status).toBe(200);
  await sim.waitForState(lampOn, 15_000);
  return job.job_id;
}

const setMode = async (w: ExecutionWorld, sim: SimRobot, mode: OperatingMode, spec: number) => {
  sim.setOperatingMode(mode);
  await waitUntil(async () => (server.context.fleet.link(w.robotId)?.mode === spec ? true : undefined), 5000, `mode ${spec}`);
};

describe('stop in every operating mode', () => {
  for (const [mode, spec] of [['SEMIAUTOMATIC', 3], ['MANUAL', 1]] as const) {
    it(`stops a job with its lamp on in ${mode} mode (operator): lamp off, job aborted; pause and home still need Autonomous`, async () => {
      const w = await executionWorld(server);
      const sim = await robotFor(w);
      const jobId = await irradiating(w, sim);
      await setMode(w, sim, mode, spec);

      for (const command of ['pause', 'resume']) {
        const refused = await jobCommand(w, jobId, command);
        expect(refused.status).toBe(409);
        expect(ApiError.parse(refused.body).error).toBe(CommandRefusal.robotNotAutonomous);
      }
      const home = await robotCommand(w, 'home');
      expect(home.status).toBe(409);
      expect(ApiError.parse(home.body).error).toBe(CommandRefusal.robotNotAutonomous);

      expect((await jobCommand(w, jobId, 'stop')).status).toBe(200);
      await sim.waitForState((state) => !lampOn(state), 3000);
      expect((await ended(w, jobId)).completion_status).toBe('aborted');
    });

    it(`stops the robot with its lamp on in ${mode} mode (admin robot stop)`, async () => {
      const w = await executionWorld(server);
      const sim = await robotFor(w);
      const jobId = await irradiating(w, sim);
      await setMode(w, sim, mode, spec);
      expect((await robotCommand(w, 'stop')).status).toBe(200);
      await sim.waitForState((state) => !lampOn(state), 3000);
      expect((await ended(w, jobId)).status).toBe('Completed');
    });
  }
});

describe('commands that would change nothing', () => {
  it('refuses pause of an idle robot at its dock (robot_idle), stop with nothing to stop, home while docked; it keeps charging', async () => {
    const w = await executionWorld(server);
    const sim = await robotFor(w);
    await sim.waitForState((state) => state.batteryState.charging, 5000);
    for (const [command, code] of [
      ['pause', CommandRefusal.robotIdle],
      ['stop', CommandRefusal.nothingToStop],
      ['home', CommandRefusal.robotAtHome],
    ] as const) {
      for (const token of [w.admin.token, w.operator.token]) {
        const refused = await robotCommand(w, command, token);
        expect(refused.status).toBe(409);
        expect(ApiError.parse(refused.body).error).toBe(code);
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(sim.state).toMatchObject({ paused: false, batteryState: { charging: true } });
    const sent = await server.context.db.select().from(robotCommands).where(eq(robotCommands.robotId, w.robotId));
    expect(sent).toHaveLength(0);
  });

  it('stopping a paused job ends the pause too: the robot is not left paused and the next job runs', async () => {
    const w = await executionWorld(server);
    const sim = await robotFor(w);
    const first = await irradiating(w, sim);
    expect((await jobCommand(w, first, 'pause')).status).toBe(200);
    await waitUntil(async () => ((await jobOf(w, first)).active_state === 'paused' ? true : undefined), 5000, 'the job paused');
    expect((await jobCommand(w, first, 'stop')).status).toBe(200);
    expect((await ended(w, first)).completion_status).toBe('aborted');
    await sim.waitForState((state) => state.paused !== true && !lampOn(state), 3000);

    const next = await createJobFor(server, w, { dose: 50, roomIds: w.roomIds.slice(0, 1) });
    expect((await jobCommand(w, next.job_id, 'start')).status).toBe(200);
    await sim.waitForState(lampOn, 15_000);
    expect(await jobOf(w, next.job_id)).toMatchObject({ status: 'Running', active_state: 'disinfecting' });
    expect((await jobCommand(w, next.job_id, 'stop')).status).toBe(200);
    await ended(w, next.job_id);
  });
});

describe('a stop on a half-open link', () => {
  const eventsOf = (type: string, key: string) =>
    server.context.db
      .select()
      .from(events)
      .where(and(eq(events.type, type), eq(events.key, key)));

  it('is never given up: alerted, resent as soon as the robot is heard again, and the lamp goes off', async () => {
    const w = await executionWorld(server);
    const proxy = await startStallProxy(server.context.fleet.brokerUrl);
    proxies.push(proxy);
    const sim = await robotFor(w, proxy.url);
    const jobId = await irradiating(w, sim, 2);

    proxy.stall();
    expect((await jobCommand(w, jobId, 'stop')).status).toBe(200);
    expect((await jobOf(w, jobId)).pending_command?.command).toBe('stop');
    // Past the alert and the give-up time of other commands: the stop is still open, the job still Running.
    await new Promise((resolve) => setTimeout(resolve, GIVE_UP_MS + 1500));
    expect(lampOn(sim.state)).toBe(true);
    const [stop] = await server.context.db
      .select()
      .from(robotCommands)
      .where(and(eq(robotCommands.robotId, w.robotId), eq(robotCommands.kind, 'stop')));
    expect(stop?.state).toBe('sent');
    expect(await jobOf(w, jobId)).toMatchObject({ status: 'Running', pending_command: { command: 'stop' } });
    const [unconfirmed] = await eventsOf('stop_unconfirmed', w.robotId);
    expect(StopAlert.parse(unconfirmed?.payload)).toMatchObject({ robot_id: w.robotId, job_id: jobId });
    expect(await eventsOf('stop_unconfirmed', jobId)).toHaveLength(1);
    expect(await eventsOf('command_undelivered', w.robotId)).toHaveLength(0);
    const pushes = await server.context.db.select().from(pushEvents).where(eq(pushEvents.robotId, w.robotId));
    expect(pushes.filter((push) => push.kind === 'stop_unconfirmed')).toHaveLength(1);

    // The link heals: the stop goes out on the robot's first state, not at the next resend 10 s later.
    const healed = Date.now();
    proxy.resume();
    await sim.waitForState((state) => !lampOn(state), 4000);
    expect(Date.now() - healed).toBeLessThan(4000);
    const done = await ended(w, jobId);
    expect(done).toMatchObject({ completion_status: 'aborted', pending_command: null });
    await waitUntil(async () => ((await eventsOf('stop_confirmed', w.robotId)).length === 1 ? true : undefined), 5000, 'stop_confirmed');
  });

  it('a pause the robot has not taken shows as pending, never as paused, while the lamp is on', async () => {
    const w = await executionWorld(server);
    const proxy = await startStallProxy(server.context.fleet.brokerUrl);
    proxies.push(proxy);
    const sim = await robotFor(w, proxy.url);
    const jobId = await irradiating(w, sim);

    proxy.stall();
    expect((await jobCommand(w, jobId, 'pause')).status).toBe(200);
    for (let check = 0; check < 4; check++) {
      expect(lampOn(sim.state)).toBe(true);
      const shown = await jobOf(w, jobId);
      expect(shown.active_state).toBe('disinfecting');
      if (check === 0) expect(shown.pending_command?.command).toBe('pause');
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
    proxy.resume();
    expect((await jobCommand(w, jobId, 'stop')).status).toBe(200);
    await ended(w, jobId);
  });
});
