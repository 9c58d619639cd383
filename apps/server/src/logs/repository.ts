/**
 * SQL of the logs backend. Logs are written by the fleet when a job ends; a done-teleoperator sees the logs
 * of the robots of their groups, the restricted roles every log of their organization.
 */
import { and, asc, eq, sql, type SQL } from 'drizzle-orm';
import type { LogEntry, TrajectoryPoint } from '@uvd/contracts';
import type { Executor } from '../db/client.ts';
import { logs } from '../db/schema.ts';
import type { Principal } from '../identity/principal.ts';
import { robotVisible, seesEverything } from '../lib/visibility.ts';
import { dateConditions, filterTimeZone, listCount, listedRobots, newestFirst, pageQuery, type ListTable } from '../jobs/list-filter.ts';
import type { ListFilter } from '../jobs/repository.ts';

type LogRow = Omit<typeof logs.$inferSelect, 'trajectory' | 'dose'> & { hasTrajectory: boolean };

const visibility = (executor: Executor, principal: Principal): SQL | undefined =>
  seesEverything(principal) ? undefined : robotVisible(executor, principal, logs.robotId);

// The trajectory can hold thousands of points: only whether there is one travels with a log entry.
const columns = {
  jobId: logs.jobId,
  orgId: logs.orgId,
  jobName: logs.jobName,
  completionStatus: logs.completionStatus,
  robotId: logs.robotId,
  robotName: logs.robotName,
  createdBy: logs.createdBy,
  startTime: logs.startTime,
  endTime: logs.endTime,
  plannedStartTime: logs.plannedStartTime,
  reason: logs.reason,
  notes: logs.notes,
  rooms: logs.rooms,
  prompts: logs.prompts,
  events: logs.events,
  createdAt: logs.createdAt,
  hasTrajectory: sql<boolean>`(${logs.trajectory} IS NOT NULL AND jsonb_array_length(${logs.trajectory}) > 0)`,
};

/** The log's recorded path, for the one log whose detail asks for it. */
export async function logTrajectory(executor: Executor, jobId: string): Promise<TrajectoryPoint[] | null> {
  const [row] = await executor.select({ trajectory: logs.trajectory }).from(logs).where(eq(logs.jobId, jobId));
  return row?.trajectory ?? null;
}

export async function findLog(executor: Executor, principal: Principal, jobId: string, lock = false): Promise<LogRow | undefined> {
  const query = executor
    .select(columns)
    .from(logs)
    .where(and(eq(logs.jobId, jobId), eq(logs.orgId, principal.orgId), visibility(executor, principal)));
  const [row] = lock ? await query.for('update') : await query;
  return row;
}

const logsList: ListTable = { table: logs, id: logs.jobId, start: logs.startTime, robot: logs.robotId };

/** As the jobs list: one page newest starttime first, and the count of all matches. */
export async function listLogs(executor: Executor, principal: Principal, filter: ListFilter): Promise<{ count: number; rows: LogRow[] }> {
  const robotIds = await listedRobots(executor, principal, filter.robot_id);
  if (robotIds?.length === 0) return { count: 0, rows: [] };
  const timeZone = await filterTimeZone(executor, principal, filter);
  const scope = {
    where: and(eq(logs.orgId, principal.orgId), ...dateConditions(logs.startTime, filter.from_date, filter.to_date, timeZone)),
    robotIds,
  };
  const [rows, count] = await Promise.all([
    executor
      .select(columns)
      .from(logs)
      .where(sql`${logs.jobId} IN (${pageQuery(logsList, scope, filter.offset, filter.limit)})`)
      .orderBy(newestFirst(logs.startTime), asc(logs.jobId)),
    listCount(executor, logsList, scope),
  ]);
  return { count, rows };
}

export async function setLogNotes(executor: Executor, jobId: string, notes: string): Promise<void> {
  await executor.update(logs).set({ notes }).where(eq(logs.jobId, jobId));
}

export function toLogEntry(row: LogRow): LogEntry {
  return {
    job_id: row.jobId,
    job_name: row.jobName,
    completion_status: row.completionStatus,
    robot_name: row.robotName,
    robot_id: row.robotId,
    created_by: row.createdBy,
    starttime: row.startTime.toISOString(),
    endtime: row.endTime ? row.endTime.toISOString() : null,
    planned_starttime: row.plannedStartTime ? row.plannedStartTime.toISOString() : null,
    reason: row.reason,
    notes: row.notes,
    has_trajectory: row.hasTrajectory,
    attributes: { rooms: row.rooms.map((room) => ({ ...room, dose_received: room.dose_received ?? null })), prompts: row.prompts },
    events: row.events,
  };
}
