/**
 * Model-based safety test (issue #22): fast-check drives ONE simulated robot behind the link proxy, against a real
 * test server (embedded broker, PGlite), through random sequences of what happens in a hospital: jobs of 1-3 rooms
 * started, paused, resumed and stopped, the robot stopped, its operating mode changed, rooms of the job set not
 * ready and ready, the link cut (clean close) or stalled (half-open) and healed, the robot rebooted (a new
 * SimRobot without its order) and its battery set. A monitor samples the robot's lamp every 20 ms all along; after
 * every step the test waits briefly and checks:
 *
 * - I1: the lamp is never on in a room marked not ready for more than 2 s with the link up.
 * - I2: every accepted stop (200) turns the lamp off within 2 s with the link up; after a gap, within 2 s of the
 *   robot being back (its next message).
 * - I3: the console (GET /api/jobs/job/{id}, GET /api/robot/robot/robots) never shows paused, stopped or idle
 *   unless the robot reported it (a state the gateway accepted within the last second, or the last one before).
 * - I4: every job ends or can be ended by a person: after healing the link and a stop, it ends within 20 s.
 * - I5: every started job that ended, and that the robot reported, has a log whose starttime and endtime fall
 *   within the robot's own reported timestamps of that job (1 s of slack).
 *
 * Runs: SAFETY_RUNS (default 2); SAFETY_SEED replays a seed fast-check printed; SAFETY_INVARIANTS (e.g. `I2,I4`)
 * fails on those invariants only, so fast-check shrinks to the shortest sequence breaking them.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { SimRobot } from '@uvd/robot-sim';
import { Job, LogEntry, RobotList, type OperatingMode, type StateMessage } from '@uvd/contracts';
import { createJobFor, executionWorld, waitUntil, type ExecutionWorld } from '../testing/execution-fixtures.ts';
import { startTestServer, type TestServer } from '../testing/harness.ts';
import { startLinkProxy, type LinkProxy } from '../testing/link-proxy.ts';

/** Each run is a fresh organization and robot and lasts 15-30 s: two keep the test under a minute in CI. */
const RUNS = Number(process.env.SAFETY_RUNS ?? 2);
const SEED = process.env.SAFETY_SEED === undefined ? undefined : Number(process.env.SAFETY_SEED);
/** The invariants that fail the test (all by default); SAFETY_INVARIANTS=I2 shrinks to the shortest case of I2 alone. */
const INVARIANTS = (process.env.SAFETY_INVARIANTS ?? 'I1,I2,I3,I4,I5').split(',').map((name) => name.trim());
/** Simulated seconds per real second: a room of dose 20 at 0.5 W/m² lasts 4 s, a 3-room job about 15 s. */
const TIME_FACTOR = 10;
const DOSE = 20;
const STEP_WAIT_MS = 300;
const LAMP_BOUND_MS = 2000;
const END_BOUND_MS = 20_000;
const SLACK_MS = 1000;
const HEARD_MS = 600;
const HOME = { x: 0, y: -2, theta: 0 };

/** What a step changed that the invariants need to know; the real system is read for everything else. */
interface Model {
  jobs: { id: string; roomIds: string[]; startedAt: number }[];
  notReady: Map<string, number>;
}

interface Accepted {
  at: number;
  /** The job it stops, or null for a robot stop (every job started before it). */
  jobId: string | null;
  what: string;
}

/** The real side: the robot, its link, what the gateway accepted from it, and what a monitor saw of its lamp. */
class Real {
  sim: SimRobot;
  /** When the link last became usable (passing, robot connected); null while it is not. */
  upSince: number | null = null;
  readonly reported: { at: number; state: StateMessage }[] = [];
  readonly stops: Accepted[] = [];
  readonly violations: string[] = [];
  readonly notReadySince = new Map<string, number>();
  readonly jobStarts = new Map<string, number>();
  private lampOnSince: { roomId: string; jobId: string; at: number } | null = null;
  private readonly timer: NodeJS.Timeout;
  private readonly offState: () => void;

  constructor(
    readonly server: TestServer,
    readonly world: ExecutionWorld,
    readonly proxy: LinkProxy,
    readonly log: string[],
  ) {
    this.sim = this.newSim();
    this.offState = server.context.fleet.onState((robot, state) => {
      if (robot.robotId === world.robotId) this.reported.push({ at: Date.now(), state });
    });
    this.timer = setInterval(() => { this.sample(); }, 20);
  }

  newSim(): SimRobot {
    return new SimRobot({
      brokerUrl: this.proxy.url,
      manufacturer: this.world.robot.manufacturer,
      serialNumber: this.world.robot.serialNumber,
      password: this.world.mqttPassword,
      mapId: this.world.floorId,
      home: HOME,
      timeFactor: TIME_FACTOR,
      stateIntervalMs: 200,
      tickMs: 20,
      keepalive: 1,
    });
  }

  violate(message: string): void {
    if (!this.violations.includes(message)) this.violations.push(message);
  }

  /** I1 and I2, every 20 ms. */
  private sample(): void {
    const now = Date.now();
    // Up: the proxy passes and the gateway hears the robot (states every 200 ms). A robot that has not yet noticed
    // its stalled connection died is connected by its own account but not heard.
    const up = this.proxy.mode === 'pass' && this.sim.connected && now - this.lastReportAt() < HEARD_MS;
    if (!up) this.upSince = null;
    else this.upSince ??= now;
    const roomId = this.sim.lampRoomId;
    const jobId = this.sim.state?.orderId ?? '';
    if (roomId === null) {
      this.lampOnSince = null;
      return;
    }
    if (this.lampOnSince?.roomId !== roomId || this.lampOnSince.jobId !== jobId) this.lampOnSince = { roomId, jobId, at: now };
    if (this.upSince === null) return;
    const markedAt = this.notReadySince.get(roomId);
    if (markedAt !== undefined) {
      const since = Math.max(markedAt, this.lampOnSince.at, this.upSince);
      if (now - since > LAMP_BOUND_MS) this.violate(`I1: lamp on in room ${roomName(this.world, roomId)}, marked not ready, for more than ${LAMP_BOUND_MS} ms with the link up`);
    }
    for (const stop of this.stops) {
      if (stop.jobId !== null && stop.jobId !== jobId) continue;
      if (stop.jobId === null && !this.startedBefore(jobId, stop.at)) continue;
      if (now - Math.max(stop.at, this.upSince) > LAMP_BOUND_MS) {
        this.violate(`I2: ${stop.what} accepted, lamp still on in room ${roomName(this.world, roomId)} ${LAMP_BOUND_MS} ms later with the link up`);
      }
    }
  }

  private startedBefore(jobId: string, at: number): boolean {
    const started = this.jobStarts.get(jobId);
    return started !== undefined && started <= at;
  }

  lastReportAt(): number {
    return this.reported.at(-1)?.at ?? -Infinity;
  }

  /** The robot's reports from `since` on, with the last one before it (what it said then). */
  reportsSince(since: number): StateMessage[] {
    const index = this.reported.findIndex((report) => report.at >= since);
    const from = index === -1 ? this.reported.length - 1 : Math.max(0, index - 1);
    return this.reported.slice(from).map((report) => report.state);
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    this.offState();
    await this.sim.stop();
    await this.proxy.close();
  }
}

const roomName = (world: ExecutionWorld, roomId: string) => `#${world.roomIds.indexOf(roomId)}`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const disinfectRunning = (state: StateMessage, jobId: string) =>
  state.actionStates.some(
    (action) => action.actionType === 'uvd_disinfect' && action.actionId.includes(jobId) && !['FINISHED', 'FAILED'].includes(action.actionStatus),
  );

// ---------------------------------------------------------------- commands

type Command = fc.AsyncCommand<Model, Real>;

const latestJob = (m: Model) => m.jobs.at(-1);

class StartJob implements Command {
  constructor(readonly rooms: number[]) {}
  check = () => true;
  async run(m: Model, r: Real) {
    const roomIds = [...new Set(this.rooms)].map((index) => r.world.roomIds[index] ?? '');
    const job = await createJobFor(r.server, r.world, { roomIds, dose: DOSE });
    const at = Date.now();
    const started = await r.server.request('POST', '/api/jobs/job/start', { token: r.world.operator.token, query: { job_id: job.job_id } });
    r.log.push(`${this.toString()} -> ${started.status}`);
    if (started.status === 200) {
      m.jobs.push({ id: job.job_id, roomIds, startedAt: at });
      r.jobStarts.set(job.job_id, at);
    }
  }
  toString = () => `start job of rooms [${this.rooms.join(',')}]`;
}

class JobCommand implements Command {
  constructor(readonly command: 'pause' | 'resume' | 'stop') {}
  check = (m: Readonly<Model>) => m.jobs.length > 0;
  async run(m: Model, r: Real) {
    const job = latestJob(m);
    if (!job) return;
    const at = Date.now();
    const reply = await r.server.request('POST', `/api/command/job/${job.id}`, { token: r.world.operator.token, query: { command: this.command } });
    r.log.push(`${this.toString()} -> ${reply.status}`);
    if (this.command === 'stop' && reply.status === 200) r.stops.push({ at, jobId: job.id, what: 'job stop' });
  }
  toString = () => `${this.command} job`;
}

class StopRobot implements Command {
  check = () => true;
  async run(_m: Model, r: Real) {
    const at = Date.now();
    const reply = await r.server.request('POST', `/api/command/${r.world.robotId}`, { token: r.world.operator.token, query: { command: 'stop' } });
    r.log.push(`${this.toString()} -> ${reply.status}`);
    if (reply.status === 200) r.stops.push({ at, jobId: null, what: 'robot stop' });
  }
  toString = () => 'stop robot';
}

class SetMode implements Command {
  constructor(readonly mode: OperatingMode) {}
  check = () => true;
  run(_m: Model, r: Real) {
    r.sim.setOperatingMode(this.mode);
    r.log.push(this.toString());
    return Promise.resolve();
  }
  toString = () => `mode ${this.mode}`;
}

class SetReady implements Command {
  constructor(readonly room: number, readonly ready: boolean) {}
  check = (m: Readonly<Model>) => m.jobs.length > 0;
  async run(m: Model, r: Real) {
    const job = latestJob(m);
    const roomId = job?.roomIds[this.room % job.roomIds.length];
    if (roomId === undefined) return;
    const at = Date.now();
    const reply = await r.server.request('PATCH', '/api/rooms/room/ready', {
      token: r.world.admin.token,
      body: { rooms: [{ room_id: roomId, ready_for_disinfection: this.ready }] },
    });
    r.log.push(`${this.toString()} -> ${reply.status}`);
    if (reply.status !== 200) return;
    if (this.ready) {
      m.notReady.delete(roomId);
      r.notReadySince.delete(roomId);
    } else if (!m.notReady.has(roomId)) {
      m.notReady.set(roomId, at);
      r.notReadySince.set(roomId, at);
    }
  }
  toString = () => `room ${this.room} of the job ${this.ready ? 'ready' : 'not ready'}`;
}

class Link implements Command {
  constructor(readonly action: 'cut' | 'stall' | 'heal') {}
  check = () => true;
  run(_m: Model, r: Real) {
    r.proxy[this.action]();
    r.log.push(this.toString());
    return Promise.resolve();
  }
  toString = () => `${this.action} link`;
}

class Reboot implements Command {
  check = () => true;
  async run(_m: Model, r: Real) {
    await r.sim.kill();
    r.sim = r.newSim();
    // Without a link the robot boots and keeps trying; it connects once healed.
    const started = r.sim.start();
    started.catch(() => undefined);
    if (r.proxy.mode === 'pass') await started;
    r.log.push(this.toString());
  }
  toString = () => 'reboot robot';
}

class Battery implements Command {
  constructor(readonly percent: number) {}
  check = () => true;
  run(_m: Model, r: Real) {
    r.sim.setBattery(this.percent);
    r.log.push(this.toString());
    return Promise.resolve();
  }
  toString = () => `battery ${this.percent} %`;
}

const startJob = fc.array(fc.integer({ min: 0, max: 2 }), { minLength: 1, maxLength: 3 }).map((rooms) => new StartJob(rooms));
const commands = [
  startJob,
  fc.constantFrom('pause', 'resume', 'stop').map((command) => new JobCommand(command)),
  fc.constant(new StopRobot()),
  fc.constantFrom<OperatingMode>('AUTOMATIC', 'SEMIAUTOMATIC', 'MANUAL').map((mode) => new SetMode(mode)),
  fc.tuple(fc.integer({ min: 0, max: 2 }), fc.boolean()).map(([room, ready]) => new SetReady(room, ready)),
  fc.constantFrom('cut', 'stall', 'heal').map((action) => new Link(action)),
  fc.constant(new Reboot()),
  fc.constantFrom(5, 15, 50, 90).map((percent) => new Battery(percent)),
];

// ---------------------------------------------------------------- checks

/** I3, read through the API as the console reads it. */
async function checkConsole(m: Model, r: Real): Promise<void> {
  const readAt = Date.now();
  // What the robot reported until the console's answer came (a state accepted while a read was under way can be
  // in it), taken after each answer: taken before the reads, a robot's idle state accepted during them made a
  // console that showed it look as if it showed idle unreported (seed 535660366, path 9:0:20).
  const reportedUntilNow = () => r.reportsSince(readAt - SLACK_MS);
  for (const job of m.jobs) {
    const reply = await r.server.request('GET', `/api/jobs/job/${job.id}`, { token: r.world.admin.token });
    if (reply.status !== 200) continue;
    const shown = Job.parse(reply.body);
    const ofJob = reportedUntilNow().filter((state) => state.orderId === job.id);
    if (shown.status === 'Running' && shown.active_state === 'paused' && !ofJob.some((state) => state.paused)) {
      r.violate('I3: the job shows paused but the robot did not report it paused');
    }
    if (shown.status === 'Completed' && shown.completion_status === 'aborted') {
      const reportedStopped = r.reported.some(({ state }) => state.orderId === job.id && !disinfectRunning(state, job.id));
      if (!reportedStopped) r.violate('I3: the job shows stopped (aborted) but the robot never reported its order stopped');
    }
  }
  const list = RobotList.parse((await r.server.request('GET', '/api/robot/robot/robots', { token: r.world.admin.token })).body);
  const robot = list.payload.find((entry) => entry.robot_id === r.world.robotId);
  const reports = reportedUntilNow();
  if (robot?.status === 'paused' && !reports.some((state) => state.paused)) r.violate('I3: the robot shows paused but did not report it paused');
  if (robot?.status === 'idle' && robot.mode !== 0 && !reports.some((state) => idle(state))) {
    r.violate('I3: the robot shows idle but did not report itself idle (no order in progress, not paused, not driving)');
  }
}

/** The robot reports no work: no node left to visit, not driving, not paused, no action of its order still to run. */
const idle = (state: StateMessage) =>
  state.nodeStates.length === 0 &&
  !state.driving &&
  !state.paused &&
  !state.actionStates.some((action) => action.actionType === 'uvd_disinfect' && !['FINISHED', 'FAILED'].includes(action.actionStatus));

const jobOf = async (r: Real, jobId: string) => Job.parse((await r.server.request('GET', `/api/jobs/job/${jobId}`, { token: r.world.admin.token })).body);

/** I4: heal, stop every job still running, and each must end within END_BOUND_MS. */
async function checkEnds(m: Model, r: Real): Promise<void> {
  r.proxy.heal();
  await waitUntil(async () => (r.sim.connected ? true : undefined), 15_000, 'the robot back after heal').catch(() => undefined);
  for (const job of m.jobs) {
    if ((await jobOf(r, job.id)).status === 'Completed') continue;
    const reply = await r.server.request('POST', `/api/command/job/${job.id}`, { token: r.world.admin.token, query: { command: 'stop' } });
    const ended = await waitUntil(async () => ((await jobOf(r, job.id)).status === 'Completed' ? true : undefined), END_BOUND_MS, 'the job to end').catch(
      () => false,
    );
    if (!ended) r.violate(`I4: a running job could not be ended: link healed, an admin's stop answered ${reply.status}, still not ended ${END_BOUND_MS} ms later`);
  }
}

/** I5: every ended job the robot reported has a log within the robot's own timestamps of it. */
async function checkLogs(m: Model, r: Real): Promise<void> {
  for (const job of m.jobs) {
    if ((await jobOf(r, job.id)).status !== 'Completed') continue;
    const stamps = r.reported.filter(({ state }) => state.orderId === job.id).map(({ state }) => Date.parse(state.timestamp));
    if (stamps.length === 0) continue;
    const reply = await r.server.request('GET', `/api/log/${job.id}`, { token: r.world.admin.token });
    if (reply.status !== 200) {
      r.violate(`I5: a started job the robot reported ended without a log (${reply.status})`);
      continue;
    }
    const log = LogEntry.parse(reply.body);
    const first = Math.min(...stamps) - SLACK_MS;
    const last = Math.max(...stamps) + SLACK_MS;
    const start = Date.parse(log.starttime);
    const end = log.endtime === null ? Number.NaN : Date.parse(log.endtime);
    if (!(start >= first && start <= last)) r.violate(`I5: log starttime ${log.starttime} outside the robot's reports of the job`);
    if (!(end >= first && end <= last)) r.violate(`I5: log endtime ${String(log.endtime)} outside the robot's reports of the job`);
  }
}

function assertNoViolation(r: Real): void {
  const failing = r.violations.filter((violation) => INVARIANTS.some((name) => violation.startsWith(`${name}:`)));
  if (failing.length > 0) throw new Error(`${failing.join('\n')}\nsteps: ${r.log.join('; ')}`);
}

// ---------------------------------------------------------------- the property

// Enabled by the lead once the safety branches are merged.
describe('safety model: one robot behind a link that fails, random operator and robot events', () => {
  let server: TestServer;
  beforeAll(async () => {
    // Commands are given up after 3 s instead of 30 s (COMMAND_GIVE_UP_MS), as the robot's time runs 10x: so a
    // link stalled for a few steps outlasts it, as a half-open link of a minute does in a hospital.
    server = await startTestServer({ schedulerPollMs: 50, commandGiveUpMs: 3000 });
  }, 120_000);
  afterAll(async () => {
    await server.close();
  });

  /** One sequence on a fresh organization, robot and link, checked as it goes and at its end. */
  async function runSequence(steps: Command[]): Promise<void> {
    const world = await executionWorld(server, 3);
    const proxy = await startLinkProxy(server.context.fleet.brokerUrl);
    const real = new Real(server, world, proxy, []);
    try {
      await real.sim.start();
      await waitUntil(async () => (server.context.fleet.link(world.robotId)?.mode === 2 ? true : undefined), 10_000, 'the robot online');
      const model: Model = { jobs: [], notReady: new Map() };
      await fc.asyncModelRun(
        () => ({ model, real }),
        steps.map((command) => ({
          check: (m: Readonly<Model>) => command.check(m),
          run: async (m: Model, r: Real) => {
            await command.run(m, r);
            await sleep(STEP_WAIT_MS);
            await checkConsole(m, r);
            assertNoViolation(r);
          },
          toString: () => command.toString(),
        })),
      );
      // Deadlines of I1 and I2 still open run out with the link as the sequence left it.
      await sleep(LAMP_BOUND_MS + 500);
      assertNoViolation(real);
      await checkEnds(model, real);
      await checkLogs(model, real);
      assertNoViolation(real);
    } finally {
      await real.close();
    }
  }

  it('keeps I1-I5 through every sequence', async () => {
    await fc.assert(
      // Every sequence begins with a job started, so most steps meet a robot at work.
      fc.asyncProperty(startJob, fc.commands(commands, { maxCommands: 10 }), async (first, sequence) => {
        await runSequence([first, ...sequence]);
      }),
      { numRuns: RUNS, ...(SEED === undefined ? {} : { seed: SEED }), interruptAfterTimeLimit: 10 * 60_000 },
    );
  }, 15 * 60_000);

  // Sequences fast-check found that broke an invariant, shrunk, kept as they were found.
  it('keeps I3 when a paused robot reboots without its order: the job ends as failed, it does not show paused (seed -1161988003)', async () => {
    await runSequence([new StartJob([0]), new JobCommand('pause'), new Reboot(), new JobCommand('pause'), new Link('cut'), new SetReady(0, false)]);
  }, 60_000);
});
