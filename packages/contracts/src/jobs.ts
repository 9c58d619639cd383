// Contracts of the jobs backend (behaviour §3, §7): jobs, their rooms, doses and notes.
import { z } from 'zod';
import { BooleanQuery, DataFlag, DateOrDateTime, Id, idListQuery, pagination, Text, Timestamp, TimestampInput } from './common.ts';
import { defineRoute } from './route.ts';

/** Behaviour §4 job statuses. */
export const JobStatus = z.enum(['Running', 'Scheduled', 'Completed']);
export type JobStatus = z.infer<typeof JobStatus>;

/** Behaviour §4: while Running, a job is shown as disinfecting or paused. */
export const JobActiveState = z.enum(['disinfecting', 'paused']);
export type JobActiveState = z.infer<typeof JobActiveState>;

/**
 * Where a room of a job stands, as its robot reports it: pending (not started: ahead, or the robot drives to it or
 * waits at its door), active (being disinfected, also paused), then one of the results done, not_ready (skipped by
 * the operator), not_reached or aborted (the job was stopped).
 */
export const JobRoomState = z.enum(['pending', 'active', 'done', 'not_ready', 'not_reached', 'aborted']);
export type JobRoomState = z.infer<typeof JobRoomState>;

/**
 * How an ended job ended, as its log says (completed, aborted: stopped by an operator, failed, interrupted: ended
 * by a person while its robot was unreachable, missed: its start window passed before it could start). A
 * Completed job carries it so the console never calls a stopped job completed.
 */
export const JobCompletionStatus = z.enum(['completed', 'aborted', 'failed', 'interrupted', 'missed']);
export type JobCompletionStatus = z.infer<typeof JobCompletionStatus>;

/**
 * Why a Scheduled job due to start has not started (the scheduler tried and the robot could not take it): the
 * refusal code of the start (CommandRefusal in execution.ts). A missed job keeps it, and so does its log.
 */
export const NotStartedReason = z.enum(['robot_battery_low', 'robot_error', 'robot_offline', 'robot_busy', 'robot_not_autonomous']);
export type NotStartedReason = z.infer<typeof NotStartedReason>;

/** How long after its start_time a Scheduled job may still start, unless the organization sets another window. */
export const DEFAULT_START_WINDOW_MINUTES = 15;

/** The statuses the jobs list holds (it lists jobs not yet performed; ended ones are history, in Logs). */
export const ListedJobStatus = JobStatus.exclude(['Completed']);
export type ListedJobStatus = z.infer<typeof ListedJobStatus>;

/**
 * Behaviour §3 "Room in job". `room_name`, `building_id`, `floor_id` and `ready_for_disinfection` are present in the
 * jobs list and in `GET /jobs/job/{id}?extra_room_data=true` (the expanded row shows name and ready toggle).
 */
export const JobRoom = z.object({
  room_id: Id,
  order_no: z.number().int().min(0),
  dose: z.number().int(),
  room_name: z.string().optional(),
  building_id: Id.optional(),
  floor_id: Id.optional(),
  ready_for_disinfection: z.boolean().optional(),
  /** Extension: the room's progress in the job (absent from older servers). */
  state: JobRoomState.optional(),
});
export type JobRoom = z.infer<typeof JobRoom>;

/** A point of a robot's path during a job, in metres on the floor's map frame; `t` in seconds since start. */
export const TrajectoryPoint = z.object({ t: z.number(), x: z.number(), y: z.number(), floor_id: Id });
export type TrajectoryPoint = z.infer<typeof TrajectoryPoint>;

/**
 * Where a running job's robot is with its current room: `on_the_way` (heading to it), `waiting` (at its door, its
 * prompt still reported by the robot), `in_room` (the room's disinfection started: irradiating or paused in it).
 */
export const RoomPhase = z.enum(['on_the_way', 'waiting', 'in_room']);
export type RoomPhase = z.infer<typeof RoomPhase>;

/**
 * Extension: how far a started job is, for the shift view. `rooms_finished` counts rooms with a result (done,
 * skipped, not reached), `rooms_disinfected` those done; `dose_delivered` is the dose (J/m²) of the rooms done,
 * as the robot reports no dose within a room. `current_room` is the room being disinfected, else the next room,
 * with its `phase` (the robot heads to it, waits at its door, or is in it); null once the job ended. `eta` extrapolates the pace of the rooms finished so far (null before the first
 * one, and once the job ended).
 */
export const JobProgress = z.object({
  current_room: z
    .object({ room_id: Id, order_no: z.number().int().min(0), room_name: z.string().optional(), phase: RoomPhase })
    .nullable(),
  rooms_total: z.number().int().min(0),
  rooms_finished: z.number().int().min(0),
  rooms_disinfected: z.number().int().min(0),
  dose_delivered: z.number().int().min(0),
  dose_total: z.number().int().min(0),
  eta: Timestamp.nullable(),
});
export type JobProgress = z.infer<typeof JobProgress>;

/** The job commands a robot confirms (start is the job's order; pause, resume and stop its instant actions). */
export const PendingJobCommand = z.enum(['start', 'pause', 'resume', 'stop']);
export type PendingJobCommand = z.infer<typeof PendingJobCommand>;

/**
 * Extension: the job's newest command its robot has not confirmed yet, and since when (ISO 8601). The job shows
 * only what the robot reported (`active_state`), so a pause not yet taken is this, not `paused`; a stop is never
 * given up, and stays here until the robot confirms it.
 */
export const PendingCommand = z.object({ command: PendingJobCommand, since: Timestamp });
export type PendingCommand = z.infer<typeof PendingCommand>;

/**
 * Behaviour §3 job. Extensions the screens need: `robot_name` (the expanded row shows it), `active_state`
 * (disinfecting/paused while Running, else null), `completion_status` (how a Completed job ended, null before;
 * optional so a client built before it still parses), `trajectory` (only with `extra_navigation_data=true`
 * when the job has a log with a recorded path) and `progress` once the job has started (absent for a Scheduled
 * job and from older servers).
 */
export const Job = z.object({
  job_id: Id,
  name: z.string(),
  status: JobStatus,
  robot_id: Id,
  robot_name: z.string(),
  active_state: JobActiveState.nullable(),
  start_time: Timestamp,
  created_at: Timestamp,
  created_by: z.string(),
  notes: z.string(),
  rooms: z.array(JobRoom),
  start_now: z.boolean(),
  performed: z.boolean(),
  completion_status: JobCompletionStatus.nullable().optional(),
  trajectory: z.array(TrajectoryPoint).optional(),
  progress: JobProgress.optional(),
  /**
   * The real start (the planned one is `start_time`, never rewritten); null before the job started. Optional so a
   * client built before it still parses.
   */
  started_at: Timestamp.nullable().optional(),
  /**
   * A Running job whose robot is not connected: the robot's last report, since when its lamp state is unknown.
   * Null while the robot is connected and for jobs not Running.
   */
  connection_lost_since: Timestamp.nullable().optional(),
  /** A Scheduled job the scheduler could not start: why (kept when it ends missed); null otherwise. */
  not_started_reason: NotStartedReason.nullable().optional(),
  /** See PendingCommand; optional so a client built before it still parses. */
  pending_command: PendingCommand.nullable().optional(),
});
export type Job = z.infer<typeof Job>;

export const JOB_NAME_MAX = 200;
export const JOB_NOTES_MAX = 4000;
/** Behaviour §5 messages, also answered by the server. */
export const AT_LEAST_ONE_ROOM = 'At least one room is required for job creation';
export const DUPLICATE_ROOM = 'Duplicate room. A room can only be once in a job.';

export const JobInputRoom = z.object({
  room_id: Id,
  dose: z.number().int().positive(),
  /** Zero-based position in the job; the rooms of a job hold 0..n-1 exactly once. */
  order_no: z.number().int().min(0),
});
export type JobInputRoom = z.infer<typeof JobInputRoom>;

/** Behaviour §3 job input, submitted with a robot id. The server forces the seconds of `start_time` to 0. */
export const JobInput = z.object({
  name: Text().trim().min(1, 'Required').max(JOB_NAME_MAX),
  notes: Text().max(JOB_NOTES_MAX).default(''),
  start_time: TimestampInput,
  rooms: z.array(JobInputRoom).min(1, AT_LEAST_ONE_ROOM).max(500),
  start_now: z.boolean().default(false),
});
/** What a client sends (notes and start_now may be left out). */
export type JobInput = z.input<typeof JobInput>;

export const JobList = z.object({ count: z.number().int().min(0), payload: z.array(Job) });
export type JobList = z.infer<typeof JobList>;

/**
 * A scheduled start in the past is refused (the job would start at once, or wait forever for an unavailable
 * robot), unless the job starts now. `start_time` is kept to the minute, so the current minute is not past, nor
 * the one before it (the editor's default start is "now", and a client's clock may lag the server's a little).
 */
export const START_TIME_GRACE_MS = 60_000;
export const START_TIME_IN_PAST = 'must not be in the past';
export const startTimeInPast = (startTime: string | Date, now: Date = new Date()): boolean => {
  const currentMinute = Math.floor(now.getTime() / 60_000) * 60_000;
  return new Date(startTime).getTime() < currentMinute - START_TIME_GRACE_MS;
};

const BARE_DATE = /^\d{4}-\d{2}-\d{2}$/;
const HOUR_MS = 3_600_000;
/**
 * The earliest instant `from_date` may cover and the latest `to_date` may: a bare date is a day of the caller's
 * timezone, which the contract does not know, and zones run from UTC-12 to UTC+14.
 */
const earliestStart = (from: string) => (BARE_DATE.test(from) ? Date.parse(`${from}T00:00:00Z`) - 14 * HOUR_MS : Date.parse(from));
const latestEnd = (to: string) => (BARE_DATE.test(to) ? Date.parse(`${to}T00:00:00Z`) + 36 * HOUR_MS - 1 : Date.parse(to));
export const FROM_AFTER_TO = 'must not be after to_date';

/**
 * A list filter whose `from_date` comes after its `to_date` matches nothing by mistake: it is refused. Two bare
 * dates are days of one zone, so they compare as dates; beside a timestamp a day is out of order only when it is
 * so in every zone (the server then lists nothing for a zone where the range is empty).
 */
export const fromNotAfterTo = ({ from_date: from, to_date: to }: { from_date?: string | undefined; to_date?: string | undefined }) => {
  if (from === undefined || to === undefined) return true;
  if (BARE_DATE.test(from) && BARE_DATE.test(to)) return from <= to;
  return earliestStart(from) <= latestEnd(to);
};

/**
 * Filters of the jobs and logs lists. A bare date is a day in the caller's timezone (their settings' timezone,
 * Europe/Helsinki by default), from its local midnight to the next, DST-correct: `from_date` starts at its
 * midnight, `to_date` includes the whole day. A full timestamp is used as given (both ends inclusive).
 */
export const listFilterShape = {
  ...pagination(10),
  robot_id: idListQuery(Id),
  from_date: DateOrDateTime.optional(),
  to_date: DateOrDateTime.optional(),
};

/** The logs list's filters (and the jobs list's, which adds `status`). */
export const ListFilterQuery = z.object(listFilterShape).refine(fromNotAfterTo, { message: FROM_AFTER_TO, path: ['from_date'] });

/** The jobs list's filters: those of every list, and `status` (repeatable; none means every listed status). */
export const JobListQuery = z
  .object({ ...listFilterShape, status: idListQuery(ListedJobStatus) })
  .refine(fromNotAfterTo, { message: FROM_AFTER_TO, path: ['from_date'] });
export type JobListQuery = z.input<typeof JobListQuery>;

export const Doses = z.object({
  uvc_doses: z.array(z.number().int()),
  /** Null when the organization has not set one. */
  default_dose: z.number().int().nullable(),
});
export type Doses = z.infer<typeof Doses>;

export const JobNotesInput = z.object({ notes: Text().max(JOB_NOTES_MAX) });
export type JobNotesInput = z.infer<typeof JobNotesInput>;

const jobIdParams = z.object({ id: Id });

export const createJob = defineRoute({
  method: 'POST',
  path: '/jobs/jobs/:robotId',
  summary:
    'Schedule a job for a robot; with start_now (the query overrides the body) it starts at once and the reply is the Running job, or 409 as POST /jobs/job/start refuses, saving nothing',
  tags: ['jobs'],
  params: z.object({ robotId: Id }),
  querystring: z.object({ start_now: BooleanQuery.optional() }),
  body: JobInput,
  response: { 200: Job },
});

export const updateJob = defineRoute({
  method: 'PUT',
  path: '/jobs/jobs/:jobId',
  summary:
    'Replace a job (not while Running: 409 jobControls.errorJobRunning); with start_now it starts at once, or 409 as POST /jobs/job/start refuses, changing nothing',
  tags: ['jobs'],
  params: z.object({ jobId: Id }),
  body: JobInput,
  response: { 200: Job },
});

export const listJobs = defineRoute({
  method: 'GET',
  path: '/jobs/v2/jobs',
  summary: 'Jobs not yet performed of the visible robots: Running ones first, then newest start_time first',
  tags: ['jobs'],
  querystring: JobListQuery,
  response: { 200: JobList },
});

export const getJob = defineRoute({
  method: 'GET',
  path: '/jobs/job/:id',
  summary: 'One job, optionally with room details and the recorded trajectory',
  tags: ['jobs'],
  params: jobIdParams,
  querystring: z.object({
    extra_room_data: BooleanQuery.default(false),
    extra_navigation_data: BooleanQuery.default(false),
  }),
  response: { 200: Job },
});

export const getDoses = defineRoute({
  method: 'GET',
  path: '/jobs/jobs/uvc/dose',
  summary: "The organization's offered UV-C doses and its default",
  tags: ['jobs'],
  response: { 200: Doses },
});

export const deleteJob = defineRoute({
  method: 'DELETE',
  path: '/jobs/jobs/:id',
  summary: 'Delete a job (not while Running: 409 jobControls.errorJobRunning)',
  tags: ['jobs'],
  params: jobIdParams,
  response: { 200: DataFlag },
});

export const updateJobNotes = defineRoute({
  method: 'PATCH',
  path: '/jobs/job/:job_id/notes',
  summary: "Replace a job's notes",
  tags: ['jobs'],
  params: z.object({ job_id: Id }),
  body: JobNotesInput,
  response: { 200: Job },
});
