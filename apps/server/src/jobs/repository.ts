/**
 * SQL of the jobs backend. Every query filters on the caller's organization, and for a done-teleoperator on
 * the robots of their groups (behaviour §6).
 */
import { and, asc, eq, getTableColumns, inArray, sql, type SQL } from 'drizzle-orm';
import { Job, JobCompletionStatus, JobRoom, NotStartedReason, type JobListQuery, type ListFilterQuery } from '@uvd/contracts';
import { z } from 'zod';
import type { Executor } from '../db/client.ts';
import { actions, jobRooms, jobs, logs, organizations, robotCommands, robots, rooms } from '../db/schema.ts';
import type { Principal } from '../identity/principal.ts';
import { robotVisible, seesEverything } from '../lib/visibility.ts';
import { jobProgress } from './job-progress.ts';
import { dateConditions, filterTimeZone, listCount, listedRobots, newestFirst, pageQuery, type ListTable } from './list-filter.ts';

/** A jobs row: the one row type of a job, wherever the server reads or writes one. */
export type JobRow = typeof jobs.$inferSelect;
/** The filters of every list (the logs list's); the jobs list adds `status`. */
export type ListFilter = z.output<typeof ListFilterQuery>;
type JobListFilter = z.output<typeof JobListQuery>;

/** `jobs.robot_id` limited to what the caller sees; none for the restricted roles (the org filter suffices). */
const visibility = (executor: Executor, principal: Principal): SQL | undefined =>
  seesEverything(principal) ? undefined : robotVisible(executor, principal, jobs.robotId);

/** The job `jobId` if the caller sees it; `lock` takes a row lock for a change that follows. */
export async function findJob(executor: Executor, principal: Principal, jobId: string, lock = false): Promise<JobRow | undefined> {
  const query = executor
    .select()
    .from(jobs)
    .where(and(eq(jobs.id, jobId), eq(jobs.orgId, principal.orgId), visibility(executor, principal)));
  const [row] = lock ? await query.for('update') : await query;
  return row;
}

/**
 * The jobs list's order (issue #25): Running jobs (disinfecting or paused) first, what a shift follows; then the
 * Scheduled ones by start time, the next due first; then any other, newest first (the start, after these keys).
 * The expressions are those of the index `jobs_open_org_due` (migration 0011), written once here and in the schema.
 */
export const statusRank = sql`(CASE ${jobs.status} WHEN 'Running' THEN 0 WHEN 'Scheduled' THEN 1 ELSE 2 END)`;
export const nextDue = sql`(CASE WHEN ${jobs.status} = 'Scheduled' THEN ${jobs.startTime} END)`;
const jobsList: ListTable = { table: jobs, id: jobs.id, start: jobs.startTime, robot: jobs.robotId, lead: [statusRank, nextDue] };
const listOrder = [statusRank, nextDue, newestFirst(jobs.startTime), asc(jobs.id)];

/**
 * One page of the jobs the caller sees and the count of all matches. The list holds only jobs not yet performed
 * (README.md "What the jobs list holds"), in the list's order (above).
 */
export async function listJobs(executor: Executor, principal: Principal, filter: JobListFilter, extras: JobExtras): Promise<{ count: number; jobs: Job[] }> {
  const robotIds = await listedRobots(executor, principal, filter.robot_id);
  if (robotIds?.length === 0) return { count: 0, jobs: [] };
  const timeZone = await filterTimeZone(executor, principal, filter);
  const scope = {
    where: and(
      eq(jobs.orgId, principal.orgId),
      // A literal, not a parameter, so the planner matches the partial indexes (`WHERE performed = false`).
      sql`${jobs.performed} = false`,
      filter.status.length > 0 ? inArray(jobs.status, filter.status) : undefined,
      ...dateConditions(jobs.startTime, filter.from_date, filter.to_date, timeZone),
    ),
    robotIds,
  };
  // Two queries side by side on the pool: the page with everything shown, and the count.
  const [page, count] = await Promise.all([
    selectJobs(executor, sql`${jobs.id} IN (${pageQuery(jobsList, scope, filter.offset, filter.limit)})`, extras, listOrder),
    listCount(executor, jobsList, scope),
  ]);
  return { count, jobs: page };
}

export interface JobExtras {
  /** Add room name, building, floor and readiness to each room. */
  roomData: boolean;
  /** Add the trajectory recorded in the job's log, if any. */
  navigation?: boolean;
}

/** The `completion_status` column holds JobCompletionStatus values, null until the job ends. */
const CompletionStatusColumn = JobCompletionStatus.nullable();
/** `not_started_reason` holds NotStartedReason values written by the scheduler (robot-link/lifecycle.ts holdJob). */
const NotStartedReasonColumn = NotStartedReason.nullable();
/** A timestamp read by raw SQL arrives as the driver gives it (a string, or a Date). */
const LastSeenColumn = z.coerce.date().nullable();

/** The rooms as the query builds them: every room with its name, building, floor, readiness and progress. */
const RoomsJson = z.array(JobRoom.required().extend({ ended_at: z.coerce.date().nullable() }));
/** The log's trajectory, as the job's `trajectory` sends it; null when the job has none. */
const TrajectoryJson = Job.shape.trajectory.unwrap().nullable();

/**
 * The job's newest command its robot has not acknowledged (robot-link/outbox.ts): the start's order (its first
 * update; later updates change the job's rooms, not what it does), a pause, resume or stop.
 */
const PendingJson = z
  .object({ kind: z.enum(['order', 'pause', 'resume', 'stop']), since: z.coerce.date() })
  .nullable()
  .transform((row) => (row ? { command: row.kind === 'order' ? ('start' as const) : row.kind, since: row.since.toISOString() } : null));

/** Running first, then newest start_time first: the order of jobs read by id. */
const runningFirst = [sql`(CASE WHEN ${jobs.status} = 'Running' THEN 0 ELSE 1 END)`, newestFirst(jobs.startTime), asc(jobs.id)];

/**
 * The jobs matching `condition` in `order`, in their wire form: one query that also reads the robot's name, the
 * rooms in order (as JSON) and, for `navigation`, the logged trajectory.
 */
async function selectJobs(executor: Executor, condition: SQL, extras: JobExtras, order: SQL[] = runningFirst): Promise<Job[]> {
  const rows = await executor
    .select({
      ...getTableColumns(jobs),
      robotName: robots.name,
      // The robot's last report when it is not connected (connection_lost_since of a Running job).
      robotLastSeen: sql<unknown>`CASE WHEN ${robots.connectionState} = 'ONLINE' THEN NULL ELSE coalesce(${robots.lastSeenAt}, ${jobs.startedAt}) END`,
      rooms: sql<unknown>`(
        SELECT coalesce(json_agg(json_build_object(
          'room_id', ${jobRooms.roomId}, 'order_no', ${jobRooms.orderNo}, 'dose', ${jobRooms.dose}, 'room_name', ${rooms.name},
          'building_id', ${rooms.buildingId}, 'floor_id', ${rooms.floorId}, 'ready_for_disinfection', ${rooms.readyForDisinfection},
          'state', ${jobRooms.state}, 'ended_at', ${jobRooms.endedAt}
        ) ORDER BY ${jobRooms.orderNo}), '[]'::json)
        FROM ${jobRooms} JOIN ${rooms} ON ${rooms.id} = ${jobRooms.roomId} WHERE ${jobRooms.jobId} = ${jobs.id})`,
      // A prompt the robot still reports (answered or not): it stands at the door until it stops asking.
      asking: sql<boolean>`EXISTS (SELECT 1 FROM ${actions} WHERE ${actions.jobId} = ${jobs.id} AND ${actions.resolvedAt} IS NULL)`,
      pending: sql<unknown>`(
        SELECT json_build_object('kind', ${robotCommands.kind}, 'since', ${robotCommands.createdAt})
        FROM ${robotCommands}
        WHERE ${robotCommands.jobId} = ${jobs.id} AND ${robotCommands.state} IN ('pending', 'sent')
          AND (${robotCommands.kind} IN ('pause', 'resume', 'stop')
            OR (${robotCommands.kind} = 'order' AND ${robotCommands.body} -> 'order' ->> 'orderUpdateId' = '0'))
        ORDER BY ${robotCommands.seq} DESC LIMIT 1)`,
      trajectory: extras.navigation ? sql<unknown>`(SELECT ${logs.trajectory} FROM ${logs} WHERE ${logs.jobId} = ${jobs.id})` : sql<unknown>`NULL`,
    })
    .from(jobs)
    .innerJoin(robots, eq(robots.id, jobs.robotId))
    .where(condition)
    .orderBy(...order);
  return rows.map((row) => {
    const roomRows = RoomsJson.parse(row.rooms);
    const roomList = roomRows.map(({ ended_at: _endedAt, ...room }): JobRoom =>
      extras.roomData ? room : { room_id: room.room_id, order_no: room.order_no, dose: room.dose, state: room.state },
    );
    const job: Job = {
      job_id: row.id,
      name: row.name,
      status: row.status,
      robot_id: row.robotId,
      robot_name: row.robotName,
      active_state: row.status === 'Running' ? (row.activeState ?? 'disinfecting') : null,
      start_time: row.startTime.toISOString(),
      created_at: row.createdAt.toISOString(),
      created_by: row.createdBy,
      notes: row.notes,
      rooms: roomList,
      start_now: row.startNow,
      performed: row.performed,
      completion_status: CompletionStatusColumn.parse(row.completionStatus),
      // The robot's time of the start once it reported the order (as the log has it), the decision's before.
      started_at: (row.robotStartedAt ?? row.startedAt)?.toISOString() ?? null,
      connection_lost_since: row.status === 'Running' ? (LastSeenColumn.parse(row.robotLastSeen)?.toISOString() ?? null) : null,
      not_started_reason: row.status === 'Scheduled' || row.completionStatus === 'missed' ? NotStartedReasonColumn.parse(row.notStartedReason) : null,
      pending_command: PendingJson.parse(row.pending),
    };
    if (row.status !== 'Scheduled') job.progress = jobProgress(roomRows, row.startedAt, row.status === 'Running', row.asking);
    const trajectory = TrajectoryJson.parse(row.trajectory);
    if (trajectory) job.trajectory = trajectory;
    return job;
  });
}

/** The wire form of the jobs `jobIds`, newest start_time first. */
export function jobsByIds(executor: Executor, jobIds: readonly string[], extras: JobExtras): Promise<Job[]> {
  if (jobIds.length === 0) return Promise.resolve([]);
  return selectJobs(executor, inArray(jobs.id, [...jobIds]), extras);
}

/** The wire form of `rows` (jobs already read), newest first; other modules publish job_change with it. */
export function toJobs(executor: Executor, rows: readonly Pick<JobRow, 'id'>[], extras: JobExtras): Promise<Job[]> {
  return jobsByIds(
    executor,
    rows.map((row) => row.id),
    extras,
  );
}

export async function toJob(executor: Executor, row: JobRow, extras: JobExtras): Promise<Job> {
  const [job] = await jobsByIds(executor, [row.id], extras);
  if (!job) throw new Error('job mapping lost a row');
  return job;
}

export interface JobValues {
  name: string;
  notes: string;
  startTime: Date;
  startNow: boolean;
  rooms: { roomId: string; orderNo: number; dose: number }[];
}

export async function insertJob(
  executor: Executor,
  principal: Principal,
  robotId: string,
  values: JobValues,
): Promise<JobRow> {
  const [row] = await executor
    .insert(jobs)
    .values({
      orgId: principal.orgId,
      robotId,
      name: values.name,
      notes: values.notes,
      startTime: values.startTime,
      startNow: values.startNow,
      createdBy: principal.username,
      createdById: principal.sub,
    })
    .returning();
  if (!row) throw new Error('job not inserted');
  await executor.insert(jobRooms).values(values.rooms.map((room) => ({ jobId: row.id, ...room })));
  return row;
}

export async function replaceJob(executor: Executor, jobId: string, values: JobValues): Promise<JobRow> {
  const [row] = await executor
    .update(jobs)
    .set({
      name: values.name,
      notes: values.notes,
      startTime: values.startTime,
      startNow: values.startNow,
      updatedAt: new Date(),
    })
    .where(eq(jobs.id, jobId))
    .returning();
  if (!row) throw new Error('job not updated');
  await executor.delete(jobRooms).where(eq(jobRooms.jobId, jobId));
  await executor.insert(jobRooms).values(values.rooms.map((room) => ({ jobId, ...room })));
  return row;
}

export async function setJobNotes(executor: Executor, jobId: string, notes: string): Promise<JobRow> {
  const [row] = await executor.update(jobs).set({ notes, updatedAt: new Date() }).where(eq(jobs.id, jobId)).returning();
  if (!row) throw new Error('job notes not updated');
  return row;
}

export async function deleteJob(executor: Executor, jobId: string): Promise<void> {
  await executor.delete(jobs).where(eq(jobs.id, jobId));
}

export async function organizationDoses(executor: Executor, orgId: string): Promise<{ uvcDoses: number[]; defaultDose: number | null }> {
  const [row] = await executor
    .select({ uvcDoses: organizations.uvcDoses, defaultDose: organizations.defaultDose })
    .from(organizations)
    .where(eq(organizations.id, orgId));
  return row ?? { uvcDoses: [], defaultDose: null };
}
