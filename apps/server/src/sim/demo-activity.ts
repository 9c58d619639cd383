/**
 * The demo's day at the hospital: while the in-process demo fleet runs, robots that stand idle get jobs, so
 * `npm start` shows robots moving through rooms. Jobs are made the way the console makes them (the jobs
 * module's checks of spec §5, job_change events) on behalf of the organization's admin, and the scheduler starts
 * them like any other. About one job in four visits a room that is not ready, so the operator sees a
 * `wait_to_enter` prompt; a prompt nobody answers is confirmed by the demo after a while, so no robot waits forever.
 */
import { and, asc, eq, inArray, isNull, lt, lte, ne, or, gte, sql } from 'drizzle-orm';
import { JobInput, ROBOT_MODE, type Role } from '@uvd/contracts';
import type { AppContext } from '../context.ts';
import type { Tx } from '../db/client.ts';
import { actions, jobRooms, jobs, organizations, robotGroups, robots, roomGroups, rooms, users } from '../db/schema.ts';
import { findAction, markDecided } from '../actions/repository.ts';
import { publishActionChange, publishJobChange, sendDecision } from '../robot-link/lifecycle.ts';
import type { FleetLogger } from '../robot-link/fleet.ts';
import type { Principal } from '../identity/principal.ts';
import { findRobot, resolveJobInput } from '../jobs/job-input.ts';
import { insertJob, toJobs } from '../jobs/repository.ts';
import { pendingJobsVisiting, setRoomReadiness } from '../rooms/repository.ts';
import { createPrng } from '../seed/prng.ts';

export interface DemoActivityOptions {
  /** The robots the demo fleet plays; no other robot gets demo jobs or demo answers. */
  robotIds: readonly string[];
  /** Time between rounds (default 20 s). */
  intervalMs?: number;
  /** Before the first round (default 5 s: the robots report their first states). */
  firstRoundMs?: number;
  /**
   * A job's start_time is the whole minute of now + this lead (the server keeps no seconds, spec §3): the
   * default 90 s starts jobs 30-90 s after they appear. 0 makes them due at once (tests).
   */
  startLeadMs?: number;
  /** An operator prompt open this long is confirmed by the demo (default 90 s). */
  promptTimeoutMs?: number;
  /** Every n-th job visits a room set not ready for it (default 4; 0 never). */
  notReadyEvery?: number;
  /** Seed of the room choice, so a run can be repeated. */
  seed?: number;
  logger?: FleetLogger;
}

export interface DemoRound {
  /** Jobs created in this round. */
  created: string[];
  /** Prompts the demo answered. */
  answered: string[];
  /** Rooms set ready again because their job ended. */
  restored: string[];
}

export interface DemoActivity {
  /** One round now (the timer runs them on its own; tests call this too). */
  round(): Promise<DemoRound>;
  /** Stops the rounds and sets every room it made not ready ready again. */
  stop(): Promise<void>;
}

/** A robot only gets a job with at least this much battery (below 30 % the simulator goes charging). */
export const DEMO_MIN_BATTERY = 40;
/** A robot with a job due within this horizon is left alone. */
const BUSY_HORIZON_MS = 10 * 60_000;
const DEMO_NOTES = 'Made by the demo activity.';
const NOT_READY_NOTES = 'Made by the demo activity: one room is not ready, so the robot asks before entering it.';
/** After a restart, rooms of demo jobs that ended this recently are still the demo's to set ready again. */
const READOPT_MS = 10 * 60_000;

interface Mark {
  orgId: string;
  jobId: string;
  roomId: string;
}

const consoleLogger: FleetLogger = {
  warn: (data, message) => {
    console.warn(`[demo] ${message}`, data);
  },
  info: () => undefined,
};

export function startDemoActivity(context: AppContext, options: DemoActivityOptions): DemoActivity {
  const { db } = context;
  const intervalMs = options.intervalMs ?? 20_000;
  const startLeadMs = options.startLeadMs ?? 90_000;
  const promptTimeoutMs = options.promptTimeoutMs ?? 90_000;
  const notReadyEvery = options.notReadyEvery ?? 4;
  const log = options.logger ?? (context.config.logLevel === 'silent' ? { warn: () => undefined, info: () => undefined } : consoleLogger);
  const prng = createPrng(options.seed ?? 5050);
  const robotIds = [...options.robotIds].sort();
  /** Rooms the demo set not ready, until their job ends. */
  const marks: Mark[] = [];
  const admins = new Map<string, Principal | null>();
  let jobCount = 0;
  let closed = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> = Promise.resolve();

  const adminOf = async (orgId: string): Promise<Principal | undefined> => {
    if (!admins.has(orgId)) {
      const [row] = await db
        .select()
        .from(users)
        .where(and(eq(users.orgId, orgId), eq(users.enabled, true), sql`'done-admin' = ANY(${users.roles})`))
        .orderBy(asc(users.createdAt), asc(users.id))
        .limit(1);
      admins.set(
        orgId,
        row
          ? {
              sub: row.id,
              orgId,
              username: row.username,
              // Only the admin role matters here: it sees every robot and room of the organization.
              roles: ['done-admin'] satisfies Role[],
              givenName: row.firstName,
              familyName: row.lastName,
              email: row.email,
              groups: [],
            }
          : null,
      );
      if (!row) log.warn({ orgId }, 'no admin user: the demo makes no jobs in this organization');
    }
    return admins.get(orgId) ?? undefined;
  };

  /** Readiness through the rooms module, telling every open jobs list (as the console's toggle does). */
  const setReady = async (tx: Tx, principal: Principal, roomId: string, ready: boolean) => {
    await setRoomReadiness(tx, principal, [{ room_id: roomId, ready_for_disinfection: ready }]);
    for (const job of await toJobs(tx, await pendingJobsVisiting(tx, principal, [roomId]), { roomData: true })) {
      await context.bus.publish({ orgId: principal.orgId, stream: 'jobs', key: job.job_id, type: 'job_change', payload: job }, tx);
    }
  };

  /** Picks up, after a restart, the rooms a demo job of the previous run made not ready. */
  const readopt = async () => {
    if (robotIds.length === 0) return;
    const rows = await db
      .select({ orgId: jobs.orgId, jobId: jobs.id, roomId: jobRooms.roomId })
      .from(jobs)
      .innerJoin(jobRooms, eq(jobRooms.jobId, jobs.id))
      .innerJoin(rooms, eq(rooms.id, jobRooms.roomId))
      .where(
        and(
          inArray(jobs.robotId, robotIds),
          eq(jobs.notes, NOT_READY_NOTES),
          eq(rooms.readyForDisinfection, false),
          or(ne(jobs.status, 'Completed'), gte(jobs.endedAt, new Date(Date.now() - READOPT_MS))),
        ),
      );
    for (const row of rows) if (!marks.some((mark) => mark.roomId === row.roomId)) marks.push(row);
  };

  const restoreRooms = async (all: boolean): Promise<string[]> => {
    const restored: string[] = [];
    for (const mark of [...marks]) {
      try {
        const [job] = await db.select({ status: jobs.status }).from(jobs).where(eq(jobs.id, mark.jobId));
        if (!all && job && job.status !== 'Completed') continue;
        const principal = await adminOf(mark.orgId);
        if (principal) await db.transaction((tx) => setReady(tx, principal, mark.roomId, true));
        marks.splice(marks.indexOf(mark), 1);
        restored.push(mark.roomId);
      } catch (error) {
        log.warn({ err: error, roomId: mark.roomId }, 'could not set a room ready again');
      }
    }
    return restored;
  };

  const answerStalePrompts = async (): Promise<string[]> => {
    if (robotIds.length === 0) return [];
    const stale = await db
      .select({ id: actions.id, orgId: actions.orgId })
      .from(actions)
      .where(
        and(
          inArray(actions.robotId, robotIds),
          isNull(actions.resolvedAt),
          eq(actions.disabled, false),
          lt(actions.createdAt, new Date(Date.now() - promptTimeoutMs)),
        ),
      );
    const answered: string[] = [];
    for (const prompt of stale) {
      try {
        const principal = await adminOf(prompt.orgId);
        if (!principal) continue;
        // As POST /action/action/confirm does: the decision to the robot, the prompt disabled, the event.
        const done = await db.transaction(async (tx) => {
          const action = await findAction(tx, principal, prompt.id);
          if (!action || action.resolvedAt !== null || action.disabled) return false;
          await sendDecision(context, tx, action, true);
          const decided = await markDecided(tx, action.id, { confirm: true, by: principal.username, source: 'console' });
          if (decided) await publishActionChange(context, tx, decided);
          return true;
        });
        if (done) answered.push(prompt.id);
      } catch (error) {
        log.warn({ err: error, actionId: prompt.id }, 'could not answer a prompt');
      }
    }
    return answered;
  };

  /** Robots the demo may give a job now: online, Autonomous, charged, and with nothing to do soon. */
  const idleRobots = async () => {
    if (robotIds.length === 0) return [];
    const busy = db
      .select({ id: jobs.robotId })
      .from(jobs)
      .where(
        and(
          inArray(jobs.robotId, robotIds),
          or(eq(jobs.status, 'Running'), and(eq(jobs.status, 'Scheduled'), lte(jobs.startTime, new Date(Date.now() + BUSY_HORIZON_MS)))),
        ),
      );
    const rows = await db
      .select({ id: robots.id, orgId: robots.orgId, floorId: robots.floorId, battery: robots.battery })
      .from(robots)
      .where(and(inArray(robots.id, robotIds), gte(robots.battery, DEMO_MIN_BATTERY), sql`${robots.id} NOT IN (${busy})`))
      .orderBy(asc(robots.id));
    return rows.filter((row) => {
      const link = context.fleet.link(row.id);
      return row.floorId !== null && link?.online === true && !link.stale && link.mode === ROBOT_MODE.autonomous;
    });
  };

  /** Rooms of the robot's floor with an entry point; those of its groups when it has any (what its operators see). */
  const candidateRooms = async (robot: { id: string; orgId: string; floorId: string }) => {
    const groupIds = db.select({ id: robotGroups.groupId }).from(robotGroups).where(eq(robotGroups.robotId, robot.id));
    const [grouped] = await db.select({ n: sql<number>`count(*)::int` }).from(robotGroups).where(eq(robotGroups.robotId, robot.id));
    return db
      .selectDistinct({ id: rooms.id, ready: rooms.readyForDisinfection, orderNo: rooms.orderNo })
      .from(rooms)
      .leftJoin(roomGroups, eq(roomGroups.roomId, rooms.id))
      .where(
        and(
          eq(rooms.orgId, robot.orgId),
          eq(rooms.floorId, robot.floorId),
          sql`${rooms.entryPoint} IS NOT NULL`,
          (grouped?.n ?? 0) > 0 ? inArray(roomGroups.groupId, groupIds) : undefined,
        ),
      )
      .orderBy(asc(rooms.orderNo), asc(rooms.id));
  };

  const createJob = async (robot: { id: string; orgId: string; floorId: string }): Promise<string | undefined> => {
    const principal = await adminOf(robot.orgId);
    if (!principal) return undefined;
    const candidates = await candidateRooms(robot);
    if (candidates.length === 0) return undefined;
    const count = Math.min(candidates.length, prng.int(2, 4));
    const chosen = prng.shuffle(candidates).slice(0, count);
    const [org] = await db
      .select({ uvcDoses: organizations.uvcDoses, defaultDose: organizations.defaultDose })
      .from(organizations)
      .where(eq(organizations.id, robot.orgId));
    const dose = org?.defaultDose !== null && org?.defaultDose !== undefined && org.uvcDoses.includes(org.defaultDose) ? org.defaultDose : org?.uvcDoses[0];
    if (dose === undefined) return undefined;
    const wantsNotReady = notReadyEvery > 0 && jobCount % notReadyEvery === notReadyEvery - 1;
    const notReady = wantsNotReady ? chosen.find((room) => room.ready && !marks.some((mark) => mark.roomId === room.id)) : undefined;
    const when = new Date(Date.now() + startLeadMs);
    const input = JobInput.parse({
      name: `Demo round ${when.toISOString().slice(11, 16)}`,
      notes: notReady ? NOT_READY_NOTES : DEMO_NOTES,
      start_time: when.toISOString(),
      rooms: chosen.map((room, orderNo) => ({ room_id: room.id, order_no: orderNo, dose })),
    });
    const jobId = await db.transaction(async (tx) => {
      // Not ready before the job exists, so the job's own job_change already shows it.
      if (notReady) await setReady(tx, principal, notReady.id, false);
      const jobRobot = await findRobot(tx, principal, robot.id);
      const values = await resolveJobInput(tx, principal, jobRobot, input, false);
      const row = await insertJob(tx, principal, robot.id, values);
      await publishJobChange(context, tx, row);
      return row.id;
    });
    jobCount += 1;
    if (notReady) marks.push({ orgId: robot.orgId, jobId, roomId: notReady.id });
    return jobId;
  };

  const createJobs = async (): Promise<string[]> => {
    const created: string[] = [];
    for (const robot of await idleRobots()) {
      if (robot.floorId === null) continue;
      try {
        const jobId = await createJob({ id: robot.id, orgId: robot.orgId, floorId: robot.floorId });
        if (jobId) created.push(jobId);
      } catch (error) {
        log.warn({ err: error, robotId: robot.id }, 'could not make a demo job');
      }
    }
    return created;
  };

  let readopted = false;
  const roundNow = async (): Promise<DemoRound> => {
    if (!readopted) {
      await readopt();
      readopted = true;
    }
    const restored = await restoreRooms(false);
    const answered = await answerStalePrompts();
    const created = closed ? [] : await createJobs();
    if (created.length > 0) log.info({ jobs: created.length }, 'demo jobs created');
    return { created, answered, restored };
  };
  /** Rounds never overlap: two at once would both see a robot idle and give it two jobs. */
  let chain: Promise<unknown> = Promise.resolve();
  const round = (): Promise<DemoRound> => {
    const next = chain.then(roundNow, roundNow);
    chain = next.catch(() => undefined);
    return next;
  };

  const loop = () => {
    if (closed) return;
    running = round()
      .catch((error: unknown) => {
        log.warn({ err: error }, 'a demo round failed');
      })
      .finally(() => {
        if (closed) return;
        timer = setTimeout(loop, intervalMs);
        timer.unref();
      });
  };
  timer = setTimeout(loop, options.firstRoundMs ?? 5000);
  timer.unref();

  return {
    round,
    async stop() {
      closed = true;
      clearTimeout(timer);
      await running;
      await restoreRooms(true);
    },
  };
}
