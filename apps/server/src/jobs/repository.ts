/**
 * SQL of the jobs backend. Every query filters on the caller's organization, and for a done-teleoperator on
 * the robots of their groups (DESIGN.md "Tenancy and visibility").
 */
import { and, asc, eq, getTableColumns, inArray, type SQL } from 'drizzle-orm';
import type { Job, JobListQuery, JobRoom } from '@uvd/contracts';
import type { z } from 'zod';
import type { Executor } from '../db/client.ts';
import { jobRooms, jobs, logs, organizations, robots, rooms } from '../db/schema.ts';
import type { Principal } from '../identity/principal.ts';
import { robotVisible, seesEverything } from '../lib/visibility.ts';
import { dateConditions, listCount, listedRobots, pageIds, type ListTable } from './list-filter.ts';

type JobRow = typeof jobs.$inferSelect;
export type ListFilter = z.output<typeof JobListQuery>;

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

const jobsList: ListTable = { table: jobs, id: jobs.id, start: jobs.startTime, robot: jobs.robotId };

/** One page of the jobs the caller sees, newest start_time first, and the count of all matches. */
export async function listJobs(executor: Executor, principal: Principal, filter: ListFilter): Promise<{ count: number; ids: string[] }> {
  const robotIds = await listedRobots(executor, principal, filter.robot_id);
  if (robotIds?.length === 0) return { count: 0, ids: [] };
  const scope = {
    where: and(eq(jobs.orgId, principal.orgId), ...dateConditions(jobs.startTime, filter.from_date, filter.to_date)),
    robotIds,
  };
  const [ids, count] = await Promise.all([
    pageIds(executor, jobsList, scope, filter.offset, filter.limit),
    listCount(executor, jobsList, scope),
  ]);
  return { count, ids };
}

export interface JobExtras {
  /** Add room name, building, floor and readiness to each room. */
  roomData: boolean;
  /** Add the trajectory recorded in the job's log, if any. */
  navigation?: boolean;
}

/**
 * The wire form of the jobs `jobIds` in that order, with their robots' names and their rooms in order. The
 * queries run side by side (on separate connections of the pool) since each needs only the ids.
 */
export async function jobsByIds(executor: Executor, jobIds: readonly string[], extras: JobExtras): Promise<Job[]> {
  if (jobIds.length === 0) return [];
  const ids = [...jobIds];
  const [rows, roomRows, trajectories] = await Promise.all([
    executor
      .select({ ...getTableColumns(jobs), robotName: robots.name })
      .from(jobs)
      .innerJoin(robots, eq(robots.id, jobs.robotId))
      .where(inArray(jobs.id, ids)),
    executor
      .select({
        jobId: jobRooms.jobId,
        orderNo: jobRooms.orderNo,
        roomId: jobRooms.roomId,
        dose: jobRooms.dose,
        roomName: rooms.name,
        buildingId: rooms.buildingId,
        floorId: rooms.floorId,
        ready: rooms.readyForDisinfection,
      })
      .from(jobRooms)
      .innerJoin(rooms, eq(rooms.id, jobRooms.roomId))
      .where(inArray(jobRooms.jobId, ids))
      .orderBy(asc(jobRooms.jobId), asc(jobRooms.orderNo)),
    extras.navigation
      ? executor.select({ jobId: logs.jobId, trajectory: logs.trajectory }).from(logs).where(inArray(logs.jobId, ids))
      : Promise.resolve([]),
  ]);
  const byId = new Map(rows.map((row) => [row.id, row]));
  const roomsByJob = new Map<string, JobRoom[]>();
  for (const room of roomRows) {
    const list = roomsByJob.get(room.jobId) ?? [];
    list.push(
      extras.roomData
        ? {
            room_id: room.roomId,
            order_no: room.orderNo,
            dose: room.dose,
            room_name: room.roomName,
            building_id: room.buildingId,
            floor_id: room.floorId,
            ready_for_disinfection: room.ready,
          }
        : { room_id: room.roomId, order_no: room.orderNo, dose: room.dose },
    );
    roomsByJob.set(room.jobId, list);
  }
  const trajectoryByJob = new Map(trajectories.map((log) => [log.jobId, log.trajectory]));
  return ids.flatMap((id) => {
    const row = byId.get(id);
    if (!row) return [];
    const job: Job = {
      job_id: row.id,
      name: row.name,
      status: jobStatus(row.status),
      robot_id: row.robotId,
      robot_name: row.robotName,
      active_state: row.status === 'Running' ? activeState(row.activeState) : null,
      start_time: row.startTime.toISOString(),
      created_at: row.createdAt.toISOString(),
      created_by: row.createdBy,
      notes: row.notes,
      rooms: roomsByJob.get(row.id) ?? [],
      start_now: row.startNow,
      performed: row.performed,
    };
    const trajectory = trajectoryByJob.get(row.id);
    if (trajectory) job.trajectory = trajectory;
    return [job];
  });
}

/** The wire form of `rows` (jobs already read), in that order; used by other modules that publish job_change. */
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

const jobStatus = (status: string): Job['status'] =>
  status === 'Running' || status === 'Completed' ? status : 'Scheduled';
const activeState = (state: string | null): Job['active_state'] =>
  state === 'paused' ? 'paused' : 'disinfecting';

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
