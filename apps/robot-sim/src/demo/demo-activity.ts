/**
 * The demo's day at the hospital, as a client of the server's public API: while the demo fleet plays the
 * robots, robots that stand idle get jobs, so `npm start` shows robots moving through rooms. It signs in as the
 * organization's admin and does what that admin would do in the console: it lists robots and jobs, sets a room
 * not ready, creates a job, confirms a prompt, sets the room ready again. About one job in four visits a room
 * that is not ready, so the operator sees a `wait_to_enter` prompt; a prompt nobody answers is confirmed by the
 * demo after a while, so no robot waits forever.
 */
import { z } from 'zod';
import {
  Action,
  confirmAction,
  createJob,
  createPrng,
  DataFlag,
  defaultJobName,
  Doses,
  FloorMapMetadata,
  getAction,
  getAdminGroupRooms,
  getDoses,
  getFloorMapMetadata,
  getGroupRobots,
  getJob,
  getMyProfile,
  getRooms,
  Group,
  GroupRoomsList,
  Job,
  JobList,
  listGroups,
  listJobs,
  Robot,
  RobotMode,
  RoomList,
  RoomReadinessList,
  SessionUser,
  updateRoomReadiness,
  type JobInput,
  type Room,
} from '@uvd/contracts';
import { ApiCallError, type ApiClient } from './api-client.ts';
import { listOrganizationRobots } from './demo-fleet.ts';
import { runRounds } from './rounds.ts';

export interface DemoLogger {
  warn(data: Record<string, unknown>, message: string): void;
  info(data: Record<string, unknown>, message: string): void;
}

export interface DemoActivityOptions {
  /** The robots the demo fleet plays; no other robot gets demo jobs or demo answers. */
  robotIds: readonly string[];
  /** Time between rounds (default 20 s). */
  intervalMs?: number;
  /** Before the first round (default 5 s: the robots report their first states). */
  firstRoundMs?: number;
  /**
   * A job's start_time is now + this lead (the server drops the seconds): the default 90 s starts jobs 30-90 s
   * after they appear. 0 makes them due at once (tests).
   */
  startLeadMs?: number;
  /** An operator prompt open this long (since the demo first saw it) is confirmed by the demo (default 90 s). */
  promptTimeoutMs?: number;
  /** Every n-th job visits a room set not ready for it (default 4; 0 never). */
  notReadyEvery?: number;
  /** Seed of the room choice, so a run can be repeated. */
  seed?: number;
  logger?: DemoLogger;
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
export const DEMO_NOTES = 'Made by the demo activity.';
export const NOT_READY_NOTES = 'Made by the demo activity: one room is not ready, so the robot asks before entering it.';
/** After a restart, rooms of demo jobs made this recently are still the demo's to set ready again. */
const READOPT_MS = 2 * 60 * 60_000;
const PAGE = 200;

interface Mark {
  jobId: string;
  roomId: string;
}

export const consoleLogger: DemoLogger = {
  warn: (data, message) => {
    console.warn(`[demo] ${message}`, data);
  },
  info: (data, message) => {
    console.log(`[demo] ${message}`, data);
  },
};

const describeError = (error: unknown) => (error instanceof Error ? error.message : String(error));

export function startDemoActivity(api: ApiClient, options: DemoActivityOptions): DemoActivity {
  const intervalMs = options.intervalMs ?? 20_000;
  const startLeadMs = options.startLeadMs ?? 90_000;
  const promptTimeoutMs = options.promptTimeoutMs ?? 90_000;
  const notReadyEvery = options.notReadyEvery ?? 4;
  const log = options.logger ?? consoleLogger;
  const prng = createPrng(options.seed ?? 5050);
  const robotIds = [...options.robotIds].sort();
  /** Rooms the demo set not ready, until their job ends. */
  const marks: Mark[] = [];
  /** When the demo first saw each open prompt. */
  const promptsSeen = new Map<string, number>();
  let jobCount = 0;

  /** Readiness through PATCH /rooms/room/ready, the console's toggle (the server tells every open jobs list). */
  const setReady = async (roomId: string, ready: boolean) => {
    await api.call(updateRoomReadiness, RoomReadinessList, { body: { rooms: [{ room_id: roomId, ready_for_disinfection: ready }] } });
  };

  /** The demo robots' jobs of the last day and ahead, newest first. */
  const recentJobs = async (): Promise<Job[]> => {
    if (robotIds.length === 0) return [];
    const since = new Date(Date.now() - 24 * 60 * 60_000).toISOString();
    const list = await api.call(listJobs, JobList, { query: { robot_id: robotIds, from_date: since, limit: PAGE } });
    return list.payload;
  };

  /** Picks up, after a restart, the rooms a demo job of the previous run made not ready. */
  const readopt = async (jobs: Job[]) => {
    const cutoff = Date.now() - READOPT_MS;
    for (const job of jobs) {
      if (job.notes !== NOT_READY_NOTES || Date.parse(job.created_at) < cutoff) continue;
      for (const room of job.rooms) {
        if (room.ready_for_disinfection === false && !marks.some((mark) => mark.roomId === room.room_id)) {
          marks.push({ jobId: job.job_id, roomId: room.room_id });
        }
      }
    }
  };

  const jobStatus = async (jobId: string): Promise<Job['status'] | undefined> => {
    try {
      return (await api.call(getJob, Job, { params: { id: jobId } })).status;
    } catch (error) {
      if (error instanceof ApiCallError && error.status === 404) return undefined;
      throw error;
    }
  };

  const restoreRooms = async (all: boolean): Promise<string[]> => {
    const restored: string[] = [];
    for (const mark of [...marks]) {
      try {
        if (!all) {
          const status = await jobStatus(mark.jobId);
          if (status !== undefined && status !== 'Completed') continue;
        }
        await setReady(mark.roomId, true);
        marks.splice(marks.indexOf(mark), 1);
        restored.push(mark.roomId);
      } catch (error) {
        log.warn({ err: describeError(error), roomId: mark.roomId }, 'could not set a room ready again');
      }
    }
    return restored;
  };

  /** Confirms, as the console's button does, prompts of the demo robots' running jobs left open too long. */
  const answerStalePrompts = async (jobs: Job[]): Promise<string[]> => {
    const answered: string[] = [];
    const open = new Set<string>();
    for (const job of jobs.filter((candidate) => candidate.status === 'Running')) {
      try {
        const { status, body } = await api.send(getAction, { query: { job_id: job.job_id } });
        if (status !== 200) continue;
        const action = Action.parse(body);
        if (action.button.disabled) continue;
        open.add(action.action_id);
        const seen = promptsSeen.get(action.action_id) ?? Date.now();
        promptsSeen.set(action.action_id, seen);
        if (Date.now() - seen < promptTimeoutMs) continue;
        await api.call(confirmAction, DataFlag, { body: { action_id: action.action_id, confirm: true, source: 'console' } });
        answered.push(action.action_id);
      } catch (error) {
        log.warn({ err: describeError(error), jobId: job.job_id }, 'could not answer a prompt');
      }
    }
    for (const actionId of promptsSeen.keys()) if (!open.has(actionId)) promptsSeen.delete(actionId);
    return answered;
  };

  /** Robots the demo may give a job now: online, Autonomous, not stale, charged, and with nothing to do soon. */
  const idleRobots = async (jobs: Job[]): Promise<Robot[]> => {
    const horizon = Date.now() + BUSY_HORIZON_MS;
    const busy = new Set(
      jobs
        .filter((job) => job.status === 'Running' || (job.status === 'Scheduled' && Date.parse(job.start_time) <= horizon))
        .map((job) => job.robot_id),
    );
    const mine = new Set(robotIds);
    return (await listOrganizationRobots(api))
      .filter(
        (robot) =>
          mine.has(robot.robot_id) &&
          !busy.has(robot.robot_id) &&
          robot.floor_id !== null &&
          robot.mode === RobotMode.autonomous &&
          !robot.stale &&
          robot.battery !== null &&
          robot.battery >= DEMO_MIN_BATTERY,
      )
      .sort((a, b) => a.robot_id.localeCompare(b.robot_id));
  };

  /** The groups each robot belongs to (one look per round, only when a robot needs a job). */
  const groupsOfRobots = async (): Promise<Map<string, string[]>> => {
    const byRobot = new Map<string, string[]>();
    for (const group of await api.call(listGroups, z.array(Group))) {
      for (const robot of await api.call(getGroupRobots, z.array(Robot), { params: { groupId: group.id } })) {
        byRobot.set(robot.robot_id, [...(byRobot.get(robot.robot_id) ?? []), group.id]);
      }
    }
    return byRobot;
  };

  /** Rooms of the floor's plan with an entry point, where a robot stands to disinfect; undefined for a floor without a plan. */
  const roomsWithEntryPoint = async (floorId: string): Promise<Set<string> | undefined> => {
    try {
      const map = await api.call(getFloorMapMetadata, FloorMapMetadata, { query: { floor_id: floorId } });
      return new Set(map.rooms.filter((room) => room.entry_point !== null).map((room) => room.room_id));
    } catch (error) {
      if (error instanceof ApiCallError && error.status === 404) return undefined;
      throw error;
    }
  };

  /** Rooms of the robot's floor with an entry point (every room of a floor without a plan); those of its groups when it has any (what its operators see). */
  const candidateRooms = async (robot: Robot, floorId: string, groups: Map<string, string[]>): Promise<Room[]> => {
    const groupIds = groups.get(robot.robot_id) ?? [];
    let rooms: Room[];
    if (groupIds.length > 0) {
      const grouped = await api.call(getAdminGroupRooms, GroupRoomsList, { query: { groups: groupIds, limit: PAGE } });
      rooms = grouped.data.flatMap((group) => group.rooms).filter((room) => room.floor_id === floorId);
    } else {
      rooms = (await api.call(getRooms, RoomList, { query: { floor_id_list: [floorId], limit: PAGE } })).data;
    }
    const reachable = await roomsWithEntryPoint(floorId);
    const unique = new Map(rooms.filter((room) => reachable?.has(room.room_id) ?? true).map((room) => [room.room_id, room]));
    return [...unique.values()].sort((a, b) => a.order_no - b.order_no || a.room_id.localeCompare(b.room_id));
  };

  const createDemoJob = async (robot: Robot, floorId: string, groups: Map<string, string[]>, admin: SessionUser): Promise<string | undefined> => {
    const candidates = await candidateRooms(robot, floorId, groups);
    if (candidates.length === 0) return undefined;
    const count = Math.min(candidates.length, prng.int(2, 4));
    const chosen = prng.shuffle(candidates).slice(0, count);
    const doses = await api.call(getDoses, Doses);
    const dose = doses.default_dose !== null && doses.uvc_doses.includes(doses.default_dose) ? doses.default_dose : doses.uvc_doses[0];
    if (dose === undefined) return undefined;
    const wantsNotReady = notReadyEvery > 0 && jobCount % notReadyEvery === notReadyEvery - 1;
    const notReady = wantsNotReady
      ? chosen.find((room) => room.ready_for_disinfection && !marks.some((mark) => mark.roomId === room.room_id))
      : undefined;
    const when = new Date(Date.now() + startLeadMs);
    const input: JobInput = {
      // The console's default name (behaviour §5), with the start time on the signed-in admin's clock: the console
      // shows start times in the user's timezone, so a name in UTC would contradict the start time beside it.
      name: defaultJobName(admin.given_name, when, admin.timezone),
      notes: notReady ? NOT_READY_NOTES : DEMO_NOTES,
      start_time: when.toISOString(),
      rooms: chosen.map((room, orderNo) => ({ room_id: room.room_id, order_no: orderNo, dose })),
    };
    // Not ready before the job exists, so the job's own job_change already shows it.
    if (notReady) await setReady(notReady.room_id, false);
    let job: Job;
    try {
      job = await api.call(createJob, Job, { params: { robotId: robot.robot_id }, body: input });
    } catch (error) {
      if (notReady) await setReady(notReady.room_id, true);
      throw error;
    }
    jobCount += 1;
    if (notReady) marks.push({ jobId: job.job_id, roomId: notReady.room_id });
    return job.job_id;
  };

  const createJobs = async (jobs: Job[]): Promise<string[]> => {
    const created: string[] = [];
    const idle = await idleRobots(jobs);
    if (idle.length === 0) return created;
    const groups = await groupsOfRobots();
    // Read each round, so a timezone the admin saves in Settings names the next jobs.
    const admin = await api.call(getMyProfile, SessionUser);
    for (const robot of idle) {
      if (schedule.stopped || robot.floor_id === null) continue;
      try {
        const jobId = await createDemoJob(robot, robot.floor_id, groups, admin);
        if (jobId) created.push(jobId);
      } catch (error) {
        log.warn({ err: describeError(error), robotId: robot.robot_id }, 'could not make a demo job');
      }
    }
    return created;
  };

  let readopted = false;
  const roundNow = async (): Promise<DemoRound> => {
    if (robotIds.length === 0) return { created: [], answered: [], restored: [] };
    const jobs = await recentJobs();
    if (!readopted) {
      await readopt(jobs);
      readopted = true;
    }
    const restored = await restoreRooms(false);
    const answered = await answerStalePrompts(jobs);
    const created = schedule.stopped ? [] : await createJobs(jobs);
    if (created.length > 0) log.info({ organization: api.organization, jobs: created.length }, 'demo jobs created');
    return { created, answered, restored };
  };
  /** Rounds never overlap: two at once would both see a robot idle and give it two jobs. */
  const schedule = runRounds(roundNow, {
    intervalMs,
    firstRoundMs: options.firstRoundMs ?? 5000,
    onError: (error) => {
      log.warn({ err: describeError(error), organization: api.organization }, 'a demo round failed');
    },
  });

  return {
    round: schedule.round,
    async stop() {
      await schedule.stop();
      await restoreRooms(true);
    },
  };

}
