/** SQL of job execution. Callers pass the organization: every query filters on it. */
import { and, asc, desc, eq, inArray, isNotNull, isNull, ne, notInArray, or, sql } from 'drizzle-orm';
import { ActionButtonText, DecisionSource, JobEventKind, type JobRoomState, type LoggedJobEvent, type LoggedPrompt, type NotStartedReason } from '@uvd/contracts';
import type { Executor } from '../db/client.ts';
import type { ActionRow } from '../actions/repository.ts';
import { doseOfEndedJob, withDoseStats } from '../dose/repository.ts';
import type { JobRow } from '../jobs/repository.ts';
import {
  actions,
  jobEvents,
  jobRooms,
  jobs,
  lampIntervals,
  logs,
  robotCommands,
  robots,
  rooms,
  trajectoryPoints,
  type LoggedRoom,
  type TrajectoryPoint,
} from '../db/schema.ts';
import type { OrderBody, OrderRoom } from './order.ts';
import { CommandBody } from './outbox.ts';
import { loggedRoomState } from './job-reducer.ts';



/** The job, locked for the change that follows. */
export async function lockJob(executor: Executor, orgId: string, jobId: string): Promise<JobRow | undefined> {
  const [row] = await executor
    .select()
    .from(jobs)
    .where(and(eq(jobs.orgId, orgId), eq(jobs.id, jobId)))
    .for('update');
  return row;
}

export interface ExecutionRobot {
  id: string;
  name: string;
  mode: number;
  /** disinfection robots run jobs, delivery robots deliveries. */
  kind: (typeof robots.$inferSelect)['kind'];
  floorId: string | null;
  home: (typeof robots.$inferSelect)['home'];
  /** Where the robot last reported itself (on `floorId`). */
  pose: (typeof robots.$inferSelect)['pose'];
}

/**
 * The job's robot, locked: two starts for one robot (two scheduler processes, or a click beside the scheduler)
 * take turns, so the second sees the first's Running job.
 */
export async function lockRobot(executor: Executor, orgId: string, robotId: string): Promise<ExecutionRobot | undefined> {
  const [row] = await executor
    .select({ id: robots.id, name: robots.name, mode: robots.mode, kind: robots.kind, floorId: robots.floorId, home: robots.home, pose: robots.pose })
    .from(robots)
    .where(and(eq(robots.orgId, orgId), eq(robots.id, robotId)))
    .for('update');
  return row;
}

export async function otherRunningJob(executor: Executor, robotId: string, jobId: string): Promise<string | undefined> {
  const [row] = await executor
    .select({ id: jobs.id })
    .from(jobs)
    .where(and(eq(jobs.robotId, robotId), eq(jobs.status, 'Running'), ne(jobs.id, jobId)))
    .limit(1);
  return row?.id;
}

/** The Running jobs of these robots. */
export async function runningJobs(executor: Executor, robotIds: readonly string[]): Promise<JobRow[]> {
  if (robotIds.length === 0) return [];
  return executor
    .select()
    .from(jobs)
    .where(and(eq(jobs.status, 'Running'), inArray(jobs.robotId, [...robotIds])));
}

/** The Running jobs of the organization that visit any of `roomIds`, in id order (the order they are locked in). */
export async function runningJobsVisiting(executor: Executor, orgId: string, roomIds: readonly string[]): Promise<string[]> {
  if (roomIds.length === 0) return [];
  const rows = await executor
    .selectDistinct({ id: jobs.id })
    .from(jobs)
    .innerJoin(jobRooms, eq(jobRooms.jobId, jobs.id))
    .where(and(eq(jobs.orgId, orgId), eq(jobs.status, 'Running'), inArray(jobRooms.roomId, [...roomIds])))
    .orderBy(asc(jobs.id));
  return rows.map((row) => row.id);
}

/** The order (or order update) of the job recorded last: what the robot was last told of the job's route. */
export async function lastOrderOf(executor: Executor, jobId: string): Promise<OrderBody | undefined> {
  const [row] = await executor
    .select({ body: robotCommands.body })
    .from(robotCommands)
    .where(and(eq(robotCommands.jobId, jobId), eq(robotCommands.kind, 'order')))
    .orderBy(desc(robotCommands.seq))
    .limit(1);
  const body = CommandBody.safeParse(row?.body);
  return body.success && 'order' in body.data ? body.data.order : undefined;
}

/** The job's rooms as the order needs them, with readiness as of now. */
export async function orderRooms(executor: Executor, jobId: string): Promise<OrderRoom[]> {
  return executor
    .select({
      orderNo: jobRooms.orderNo,
      roomId: jobRooms.roomId,
      dose: jobRooms.dose,
      floorId: rooms.floorId,
      entryPoint: rooms.entryPoint,
      ready: rooms.readyForDisinfection,
    })
    .from(jobRooms)
    .innerJoin(rooms, eq(rooms.id, jobRooms.roomId))
    .where(eq(jobRooms.jobId, jobId))
    .orderBy(asc(jobRooms.orderNo));
}

export interface JobRoomRow {
  orderNo: number;
  roomId: string;
  state: JobRoomState;
  /** J/m² by the robot's last report written (job-runner.ts), null before any. */
  doseReceived: number | null;
}

export async function jobRoomStates(executor: Executor, jobId: string): Promise<JobRoomRow[]> {
  const rows = await executor
    .select({ orderNo: jobRooms.orderNo, roomId: jobRooms.roomId, state: jobRooms.state, doseReceived: jobRooms.doseReceived })
    .from(jobRooms)
    .where(eq(jobRooms.jobId, jobId))
    .orderBy(asc(jobRooms.orderNo));
  return rows;
}

/** `at`: the robot's time of the change; `dose`: J/m² the robot reported for the room, when it did. */
export async function setRoomState(
  executor: Executor,
  jobId: string,
  orderNo: number,
  state: JobRoomState,
  at: Date,
  dose?: number,
): Promise<void> {
  const times = state === 'active' ? { startedAt: at } : state === 'pending' ? {} : { endedAt: at };
  await executor
    .update(jobRooms)
    .set({ state, ...times, ...(dose === undefined ? {} : { doseReceived: dose }) })
    .where(and(eq(jobRooms.jobId, jobId), eq(jobRooms.orderNo, orderNo)));
}

/** The dose the robot reported so far for a room still under way. */
export async function setRoomDose(executor: Executor, jobId: string, orderNo: number, dose: number): Promise<void> {
  await executor
    .update(jobRooms)
    .set({ doseReceived: dose })
    .where(and(eq(jobRooms.jobId, jobId), eq(jobRooms.orderNo, orderNo)));
}

/** Records the robot's time of its first report of the job's order, once (the log's start). */
export async function markRobotStarted(executor: Executor, jobId: string, at: Date): Promise<void> {
  await executor
    .update(jobs)
    .set({ robotStartedAt: at })
    .where(and(eq(jobs.id, jobId), isNull(jobs.robotStartedAt)));
}

export async function addTrajectoryPoint(
  executor: Executor,
  point: { jobId: string; floorId: string; t: number; x: number; y: number },
): Promise<void> {
  await executor.insert(trajectoryPoints).values(point);
}

export async function lastTrajectoryPoint(executor: Executor, jobId: string) {
  const [row] = await executor
    .select({ x: trajectoryPoints.x, y: trajectoryPoints.y, floorId: trajectoryPoints.floorId })
    .from(trajectoryPoints)
    .where(eq(trajectoryPoints.jobId, jobId))
    .orderBy(desc(trajectoryPoints.id))
    .limit(1);
  return row;
}

/** The job's prompts, oldest first, with who answered each, when and from where. */
async function loggedPrompts(executor: Executor, jobId: string): Promise<LoggedPrompt[]> {
  const rows = await executor
    .select({ action: actions, roomName: rooms.name })
    .from(actions)
    .leftJoin(rooms, eq(rooms.id, actions.roomId))
    .where(eq(actions.jobId, jobId))
    .orderBy(asc(actions.createdAt));
  return rows.map(({ action, roomName }) => ({
    action_id: action.id,
    // Only behaviour §3 button texts and sources are stored; the fallbacks are never used.
    button: ActionButtonText.catch('wait').parse(action.buttonText),
    room_name: roomName,
    asked_at: action.createdAt.toISOString(),
    answered_at: action.decidedAt ? action.decidedAt.toISOString() : null,
    answered_by: action.decidedBy,
    confirm: action.decidedAt ? action.confirm : null,
    source: action.decisionSource ? DecisionSource.catch('console').parse(action.decisionSource) : null,
  }));
}

/** The job's events (job_events), oldest first, as the log keeps them. */
async function loggedEvents(executor: Executor, jobId: string): Promise<LoggedJobEvent[]> {
  const rows = await executor
    .select({ event: jobEvents, roomName: rooms.name })
    .from(jobEvents)
    .leftJoin(rooms, eq(rooms.id, jobEvents.roomId))
    .where(eq(jobEvents.jobId, jobId))
    .orderBy(asc(jobEvents.id));
  // Only JobEventKind values are recorded (recordJobEvent takes one); a row of another kind is not logged.
  return rows.flatMap(({ event, roomName }) => {
    const kind = JobEventKind.safeParse(event.kind);
    if (!kind.success) return [];
    return [
      {
        at: event.at.toISOString(),
        kind: kind.data,
        actor: event.actor,
        order_no: event.orderNo,
        room_id: event.roomId,
        room_name: roomName,
        dose: event.dose,
        cause: causeOf(event.details),
      },
    ];
  });
}

/** The cause is kept in the event's details (recordJobEvent); null where none was recorded. */
const causeOf = (details: Record<string, unknown>): string | null => (typeof details.cause === 'string' ? details.cause : null);

export interface JobEventInput {
  orgId: string;
  jobId: string;
  at: Date;
  kind: JobEventKind;
  actor: string | null;
  orderNo: number | null;
  roomId: string | null;
  dose: number | null;
  /** Why (LoggedJobEvent.cause), kept as `details.cause`; null or absent where the kind says it all. */
  cause?: string | null;
  /** What a kind needs beyond these (the decision's source, the error's level, …). */
  details?: Record<string, unknown>;
}

/** Records an event of the job in `executor` (the transaction that decided what happened). */
export async function recordJobEvent(executor: Executor, event: JobEventInput): Promise<void> {
  const { cause, details, ...values } = event;
  await executor.insert(jobEvents).values({ ...values, details: { ...details, ...(cause == null ? {} : { cause }) } });
}

/**
 * Records an event of the job in its room under way (state `active`, with the dose written for it), or in none,
 * in one statement: what a person's pause, resume or stop adds to its command's transaction.
 */
export async function recordJobEventInActiveRoom(
  executor: Executor,
  event: Omit<JobEventInput, 'orderNo' | 'roomId' | 'dose'>,
): Promise<void> {
  const details = { ...event.details, ...(event.cause == null ? {} : { cause: event.cause }) };
  await executor.execute(sql`
    INSERT INTO job_events (org_id, job_id, at, kind, actor, order_no, room_id, dose, details)
    SELECT ${event.orgId}, ${event.jobId}, ${event.at.toISOString()}::timestamptz, ${event.kind}, ${event.actor},
           room.order_no, room.room_id, room.dose_received, ${JSON.stringify(details)}::jsonb
    FROM (SELECT 1) AS one
    LEFT JOIN LATERAL (
      SELECT order_no, room_id, dose_received FROM job_rooms
      WHERE job_id = ${event.jobId} AND state = 'active' ORDER BY order_no LIMIT 1
    ) AS room ON true`);
}

/** The job's room `roomId` (a room is in a job once), if it is one. */
export async function jobRoomOf(executor: Executor, jobId: string, roomId: string): Promise<JobRoomRow | undefined> {
  const [row] = await executor
    .select({ orderNo: jobRooms.orderNo, roomId: jobRooms.roomId, state: jobRooms.state, doseReceived: jobRooms.doseReceived })
    .from(jobRooms)
    .where(and(eq(jobRooms.jobId, jobId), eq(jobRooms.roomId, roomId)))
    .limit(1);
  return row;
}

const PAUSE_KINDS: JobEventKind[] = ['paused', 'resumed'];
/** A person's pause event the robot took: its report's time is kept in `details.reported_at`. */
const reportedByRobot = sql`(${jobEvents.actor} IS NULL OR ${jobEvents.details} ? 'reported_at')`;

/**
 * The job's pause as the robot last reported it, by the job's events: the last `paused` or `resumed` that is the
 * robot's own or a person's it took, with the robot's time of that report. Undefined before any.
 */
export async function reportedPause(executor: Executor, jobId: string): Promise<{ id: number; paused: boolean; robotTime: number } | undefined> {
  const [row] = await executor
    .select({ id: jobEvents.id, kind: jobEvents.kind, actor: jobEvents.actor, at: jobEvents.at, details: jobEvents.details })
    .from(jobEvents)
    .where(and(eq(jobEvents.jobId, jobId), inArray(jobEvents.kind, PAUSE_KINDS), reportedByRobot))
    .orderBy(desc(jobEvents.id))
    .limit(1);
  if (!row) return undefined;
  const reportedAt = typeof row.details.reported_at === 'string' ? Date.parse(row.details.reported_at) : Number.NaN;
  return { id: row.id, paused: row.kind === 'paused', robotTime: row.actor === null || !Number.isFinite(reportedAt) ? row.at.getTime() : reportedAt };
}

/**
 * In one query, what the job runner compares each state with: whether the robot's last pause report the job's events
 * hold says paused (`reportedPause`), and the open faults' error types, sorted and joined by newlines.
 */
export async function pauseAndFaults(executor: Executor, jobId: string): Promise<{ robotPaused: boolean; faults: string }> {
  const rows = await executor
    .select({ kind: jobEvents.kind, details: jobEvents.details })
    .from(jobEvents)
    .where(
      and(
        eq(jobEvents.jobId, jobId),
        or(
          and(eq(jobEvents.kind, 'fault'), sql`${jobEvents.details} ->> 'cleared_at' IS NULL`),
          and(inArray(jobEvents.kind, PAUSE_KINDS), reportedByRobot),
        ),
      ),
    )
    .orderBy(asc(jobEvents.id));
  const faults = new Set(rows.flatMap((row) => (row.kind === 'fault' && typeof row.details.cause === 'string' ? [row.details.cause] : [])));
  const lastPause = rows.filter((row) => row.kind !== 'fault').at(-1);
  return { robotPaused: lastPause?.kind === 'paused', faults: [...faults].sort().join('\n') };
}

/** A person's `kind` (paused or resumed) after event `afterId`, decided since `since`, that the robot has not reported yet. */
export async function untakenPersonPause(executor: Executor, jobId: string, kind: JobEventKind, afterId: number, since: Date): Promise<number | undefined> {
  const [row] = await executor
    .select({ id: jobEvents.id })
    .from(jobEvents)
    .where(
      and(
        eq(jobEvents.jobId, jobId),
        eq(jobEvents.kind, kind),
        isNotNull(jobEvents.actor),
        sql`NOT (${jobEvents.details} ? 'reported_at')`,
        sql`${jobEvents.id} > ${afterId}`,
        sql`${jobEvents.at} >= ${since.toISOString()}::timestamptz`,
      ),
    )
    .orderBy(desc(jobEvents.id))
    .limit(1);
  return row?.id;
}

/** The robot reported a person's pause or resume (event `eventId`) at its time `at`. */
export async function markReported(executor: Executor, eventId: number, at: Date): Promise<void> {
  await executor
    .update(jobEvents)
    .set({ details: sql`${jobEvents.details} || jsonb_build_object('reported_at', ${at.toISOString()}::text)` })
    .where(eq(jobEvents.id, eventId));
}

/** The job's faults the robot still reported at the last look: errorType → event id (`details.cleared_at` unset). */
export async function openFaults(executor: Executor, jobId: string): Promise<Map<string, number>> {
  const rows = await executor
    .select({ id: jobEvents.id, details: jobEvents.details })
    .from(jobEvents)
    .where(and(eq(jobEvents.jobId, jobId), eq(jobEvents.kind, 'fault'), sql`${jobEvents.details} ->> 'cleared_at' IS NULL`));
  return new Map(rows.flatMap((row) => (typeof row.details.cause === 'string' ? [[row.details.cause, row.id] as const] : [])));
}

/** Marks fault events as no longer reported by the robot, at its time `at`. */
export async function clearFaults(executor: Executor, eventIds: readonly number[], at: Date): Promise<void> {
  if (eventIds.length === 0) return;
  await executor
    .update(jobEvents)
    .set({ details: sql`${jobEvents.details} || jsonb_build_object('cleared_at', ${at.toISOString()}::text)` })
    .where(inArray(jobEvents.id, [...eventIds]));
}

/** The last answer `skip` to a prompt of the job's room: who skipped it, from where. */
export async function lastSkip(executor: Executor, jobId: string, roomId: string): Promise<ActionRow | undefined> {
  const [row] = await executor
    .select()
    .from(actions)
    .where(and(eq(actions.jobId, jobId), eq(actions.roomId, roomId), isNotNull(actions.decidedAt), eq(actions.confirm, false)))
    .orderBy(desc(actions.decidedAt))
    .limit(1);
  return row;
}

// ---------------------------------------------------------------- lamp-on intervals

export type LampIntervalRow = typeof lampIntervals.$inferSelect;

/** Each room's latest lamp interval (open or closed), by order_no. */
export async function latestLampIntervals(executor: Executor, jobId: string): Promise<Map<number, LampIntervalRow>> {
  const rows = await executor.select().from(lampIntervals).where(eq(lampIntervals.jobId, jobId)).orderBy(asc(lampIntervals.id));
  return new Map(rows.map((row) => [row.orderNo, row]));
}

/** The rooms whose lamp interval is open (the lamp was last reported on). */
export async function openLampRooms(executor: Executor, jobId: string): Promise<Set<number>> {
  const rows = await executor
    .select({ orderNo: lampIntervals.orderNo })
    .from(lampIntervals)
    .where(and(eq(lampIntervals.jobId, jobId), isNull(lampIntervals.endedAt)));
  return new Set(rows.map((row) => row.orderNo));
}

export async function openLampInterval(executor: Executor, jobId: string, orderNo: number, at: Date): Promise<void> {
  await executor.insert(lampIntervals).values({ jobId, orderNo, startedAt: at });
}

export async function closeLampInterval(executor: Executor, id: number, at: Date): Promise<void> {
  await executor
    .update(lampIntervals)
    .set({ endedAt: at })
    .where(and(eq(lampIntervals.id, id), isNull(lampIntervals.endedAt)));
}

/** Closes the job's open lamp intervals at `at` (its end), never before they began. */
export async function closeLampIntervals(executor: Executor, jobId: string, at: Date): Promise<void> {
  await executor
    .update(lampIntervals)
    .set({ endedAt: sql`GREATEST(${lampIntervals.startedAt}, ${at.toISOString()}::timestamptz)` })
    .where(and(eq(lampIntervals.jobId, jobId), isNull(lampIntervals.endedAt)));
}

/**
 * Writes the log of a job that ended (behaviour §3 log entry) and moves the recorded path into it. The job row
 * must be locked and already hold its end.
 */
export async function writeLog(executor: Executor, job: JobRow, robotName: string, reason: NotStartedReason | null = null): Promise<void> {
  const roomRows = await executor
    .select({
      orderNo: jobRooms.orderNo,
      roomId: jobRooms.roomId,
      dose: jobRooms.dose,
      state: jobRooms.state,
      doseReceived: jobRooms.doseReceived,
      name: rooms.name,
      polygon: rooms.polygon,
      floorId: rooms.floorId,
    })
    .from(jobRooms)
    .innerJoin(rooms, eq(rooms.id, jobRooms.roomId))
    .where(eq(jobRooms.jobId, job.id))
    .orderBy(asc(jobRooms.orderNo));
  const logged: LoggedRoom[] = roomRows.map((room) => ({
    order: room.orderNo,
    room_id: room.roomId,
    room_name: room.name,
    dose: room.dose,
    state: loggedRoomState(room.state),
    dose_received: room.doseReceived,
  }));
  const points = await executor
    .select({ t: trajectoryPoints.t, x: trajectoryPoints.x, y: trajectoryPoints.y, floorId: trajectoryPoints.floorId })
    .from(trajectoryPoints)
    .where(eq(trajectoryPoints.jobId, job.id))
    .orderBy(asc(trajectoryPoints.id));
  const trajectory: TrajectoryPoint[] = points.flatMap((point) =>
    point.floorId ? [{ t: Math.round(point.t * 10) / 10, x: point.x, y: point.y, floor_id: point.floorId }] : [],
  );
  // The dose model's fields and figures (dose/README.md), from this job's lamp intervals and the path.
  const dose = await doseOfEndedJob(
    executor,
    job,
    trajectory,
    logged.map((room, index) => ({ ...room, polygon: roomRows[index]?.polygon ?? [], floorId: roomRows[index]?.floorId ?? null })),
  );
  const prompts = await loggedPrompts(executor, job.id);
  const events = await loggedEvents(executor, job.id);
  await executor
    .insert(logs)
    .values({
      jobId: job.id,
      orgId: job.orgId,
      jobName: job.name,
      completionStatus: job.completionStatus ?? 'completed',
      robotId: job.robotId,
      robotName,
      createdBy: job.createdBy,
      // The robot's times where it reported them: a late or replayed state still dates the job truthfully.
      startTime: job.robotStartedAt ?? job.startedAt ?? job.startTime,
      endTime: job.endedAt,
      plannedStartTime: job.startTime,
      reason,
      notes: job.notes,
      rooms: logged.map((room) => withDoseStats(room, dose?.stats)),
      trajectory: trajectory.length > 0 ? trajectory : null,
      prompts,
      events,
      dose: dose?.dose ?? null,
    })
    .onConflictDoNothing();
  await executor.delete(trajectoryPoints).where(eq(trajectoryPoints.jobId, job.id));
}

// ---------------------------------------------------------------- operator prompts

export async function openActionsOfRobot(executor: Executor, robotId: string): Promise<ActionRow[]> {
  return executor
    .select()
    .from(actions)
    .where(and(eq(actions.robotId, robotId), isNull(actions.resolvedAt)));
}

/** Records a prompt once (unique robot + prompt id); undefined when it was already recorded. */
export async function insertAction(
  executor: Executor,
  values: { orgId: string; jobId: string; robotId: string; roomId: string | null; promptId: string; buttonText: string },
): Promise<ActionRow | undefined> {
  const [row] = await executor
    .insert(actions)
    .values(values)
    .onConflictDoNothing({ target: [actions.robotId, actions.promptId] })
    .returning();
  return row;
}

/** Marks the robot's open prompts that it no longer reports as resolved; returns them. */
export async function resolveActions(executor: Executor, robotId: string, stillOpen: readonly string[], at: Date): Promise<ActionRow[]> {
  return executor
    .update(actions)
    .set({ resolvedAt: at, disabled: true })
    .where(
      and(
        eq(actions.robotId, robotId),
        isNull(actions.resolvedAt),
        stillOpen.length > 0 ? notInArray(actions.promptId, [...stillOpen]) : undefined,
      ),
    )
    .returning();
}

/** Resolves every open prompt of the jobs (a job that ended asks nothing any more). */
export async function resolveActionsOfJobs(executor: Executor, jobIds: readonly string[], at: Date): Promise<ActionRow[]> {
  if (jobIds.length === 0) return [];
  return executor
    .update(actions)
    .set({ resolvedAt: at, disabled: true })
    .where(and(inArray(actions.jobId, [...jobIds]), isNull(actions.resolvedAt)))
    .returning();
}
