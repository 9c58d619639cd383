// Contracts of the logs backend (behaviour §3, §7): the record of what each finished job disinfected.
import { z } from 'zod';
import { ActionButtonText, DecisionSource } from './actions.ts';
import { BooleanQuery, Id, Text, Timestamp } from './common.ts';
import { JOB_NOTES_MAX, ListFilterQuery, NotStartedReason, TrajectoryPoint } from './jobs.ts';
import { RoomDoseStats } from './dose.ts';
import { defineRoute } from './route.ts';

/**
 * Behaviour §3 logged room states and result labels: done (disinfected), aborted (not_disinfected (Aborted): its lamp
 * ran and was interrupted), not_ready, not_reached (its lamp never ran).
 */
export const LoggedRoomState = z.enum(['not_ready', 'not_reached', 'done', 'aborted']);
export type LoggedRoomState = z.infer<typeof LoggedRoomState>;

export const LoggedRoom = z.object({
  order: z.number().int(),
  room_id: Id,
  room_name: z.string(),
  dose: z.number().int(),
  state: LoggedRoomState,
  /** J/m² the robot reported giving the room (an interrupted room keeps what it received); null when unknown. */
  dose_received: z.number().min(0).nullable(),
  /**
   * What the dose model says reached the room's floor area (dose.ts RoomDoseStats: min, p10, mean in J/m², coverage
   * of the planned dose); null when it could not be computed (no polygon, no recorded path), absent in logs written
   * before the model.
   */
  dose_stats: RoomDoseStats.nullable().optional(),
});
export type LoggedRoom = z.infer<typeof LoggedRoom>;

/**
 * A prompt the robot asked during the job (behaviour §3 action) and its answer: who, when, from where (the console
 * or a notification's button). Unanswered prompts have nulls.
 */
export const LoggedPrompt = z.object({
  action_id: Id,
  button: ActionButtonText,
  room_name: z.string().nullable(),
  asked_at: Timestamp,
  answered_at: Timestamp.nullable(),
  answered_by: z.string().nullable(),
  confirm: z.boolean().nullable(),
  source: DecisionSource.nullable(),
});
export type LoggedPrompt = z.infer<typeof LoggedPrompt>;

/**
 * What happened to a job while it ran, beside the robot's own results, each with its time, who acted and the dose
 * the room had received by then: its start (by a person, or by the scheduler at its time: actor null, cause
 * `scheduler`); a room's readiness changed by a user (`room_not_ready`, `room_ready`); a pause
 * and resume (asked by a person, or the robot's own); a prompt asked and answered; a room skipped; a stop; a
 * fault the robot reported (its error type in `cause`).
 */
export const JobEventKind = z.enum([
  'started',
  'room_not_ready',
  'room_ready',
  'paused',
  'resumed',
  'prompt_asked',
  'prompt_answered',
  'room_skipped',
  'stopped',
  'fault',
]);
export type JobEventKind = z.infer<typeof JobEventKind>;

export const LoggedJobEvent = z.object({
  at: Timestamp,
  kind: JobEventKind,
  /** The user who did it (their username), or null for the robot or the server. */
  actor: z.string().nullable(),
  /** The job room it concerns (order and room), or nulls for the whole job. */
  order_no: z.number().int().nullable(),
  room_id: Id.nullable(),
  room_name: z.string().nullable(),
  /** The dose in J/m² the room had received by then, when known. */
  dose: z.number().nullable(),
  /**
   * Why, in a word a client can translate: e.g. `operator` (a person's command), `robot` (the robot's own), the
   * prompt's button (`wait_to_enter`, …), `confirm` / `skip` (an answer), the robot's error type for a fault.
   * Null or absent where the kind says it all (logs written before it).
   */
  cause: z.string().nullable().optional(),
});
export type LoggedJobEvent = z.infer<typeof LoggedJobEvent>;

/**
 * Behaviour §3 log entry, keyed by the id of the job it records. `robot_id` is null once the robot was removed.
 * `trajectory` (only from GET /log/{id} with `extra_navigation_data=true`): the recorded path, which the log keeps
 * after its job is deleted; the lists carry `has_trajectory` only, a path can hold thousands of points.
 * `events`: what happened to the job while it ran (LoggedJobEvent), oldest first.
 */
export const LogEntry = z.object({
  job_id: Id,
  job_name: z.string(),
  completion_status: z.string(),
  robot_name: z.string(),
  robot_id: Id.nullable(),
  created_by: z.string(),
  starttime: Timestamp,
  endtime: Timestamp.nullable(),
  /** The job's planned start (its start_time); `starttime` is the real one (the planned one for a missed job). */
  planned_starttime: Timestamp.nullable().optional(),
  /**
   * Why the job ended as it did, when a robot's condition decided it: `robot_offline` (interrupted: ended while
   * the robot was unreachable; missed while it was away), `robot_battery_low` (rooms not reached as the battery
   * ran low; missed), or another NotStartedReason of a missed job. Null otherwise.
   */
  reason: NotStartedReason.nullable().optional(),
  notes: z.string(),
  has_trajectory: z.boolean(),
  attributes: z.object({ rooms: z.array(LoggedRoom), prompts: z.array(LoggedPrompt) }),
  events: z.array(LoggedJobEvent),
  trajectory: z.array(TrajectoryPoint).optional(),
});
export type LogEntry = z.infer<typeof LogEntry>;

export const LogList = z.object({ count: z.number().int().min(0), payload: z.array(LogEntry) });
export type LogList = z.infer<typeof LogList>;

/** Behaviour §7 "reads data.status": the log's completion_status. */
export const LogStatus = z.object({ data: z.object({ status: z.string() }) });
export type LogStatus = z.infer<typeof LogStatus>;

export const LogNotesInput = z.object({ notes: Text().max(JOB_NOTES_MAX) });
export type LogNotesInput = z.infer<typeof LogNotesInput>;

/** The same filters as the jobs list, on `starttime`. */
export const LogListQuery = ListFilterQuery;

const logIdParams = z.object({ id: Id });

export const listLogs = defineRoute({
  method: 'GET',
  path: '/log',
  summary: 'Logs of the visible robots, newest starttime first (same filters as the jobs list)',
  tags: ['logs'],
  querystring: LogListQuery,
  response: { 200: LogList },
});

export const getLog = defineRoute({
  method: 'GET',
  path: '/log/:id',
  summary: 'The log of one job, optionally with its recorded trajectory',
  tags: ['logs'],
  params: logIdParams,
  querystring: z.object({ extra_navigation_data: BooleanQuery.default(false) }),
  response: { 200: LogEntry },
});

export const getLogStatus = defineRoute({
  method: 'GET',
  path: '/log/:id/status',
  summary: 'The completion status of one job log',
  tags: ['logs'],
  params: logIdParams,
  response: { 200: LogStatus },
});

/** Extension: the logs list offers editable notes (behaviour §2 "Logs list"; the call is in behaviour §7). */
export const updateLogNotes = defineRoute({
  method: 'PATCH',
  path: '/log/:id/notes',
  summary: "Replace a log's notes (extension)",
  tags: ['logs'],
  params: logIdParams,
  body: LogNotesInput,
  response: { 200: LogEntry },
});
