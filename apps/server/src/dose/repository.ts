/** SQL of the dose model: its input when a job's log is written, and a log's dose map for GET /log/:id/dose. */
import { asc, eq, inArray } from 'drizzle-orm';
import type { LogDose, LoggedRoomState, MapPoint, RoomDoseStats, TrajectoryPoint } from '@uvd/contracts';
import type { Executor } from '../db/client.ts';
import { lampIntervals, logs, robots, rooms, type StoredLoggedRoom } from '../db/schema.ts';
import { lampOf } from './lamp.ts';
import { computeLogDose, type LogDoseResult } from './log-dose.ts';

/** What writeLog knows of the job when it computes its dose. */
export interface EndedJob {
  id: string;
  robotId: string;
  startedAt: Date | null;
  robotStartedAt: Date | null;
  endedAt: Date | null;
}

/**
 * The dose of a job that ends, from its lamp intervals, its path and its robot's lamp (robot-link/repository.ts
 * writeLog, in the transaction that ends the job); null when the model has no input (log-dose.ts).
 */
export async function doseOfEndedJob(
  executor: Executor,
  job: EndedJob,
  trajectory: readonly TrajectoryPoint[],
  loggedRooms: readonly { order: number; dose: number; state: LoggedRoomState; polygon: readonly MapPoint[]; floorId: string | null }[],
): Promise<LogDoseResult | null> {
  if (trajectory.length === 0) return null;
  const intervals = await executor
    .select({ order: lampIntervals.orderNo, startedAt: lampIntervals.startedAt, endedAt: lampIntervals.endedAt })
    .from(lampIntervals)
    .where(eq(lampIntervals.jobId, job.id))
    .orderBy(asc(lampIntervals.id));
  const [robot] = await executor.select({ lamp: robots.lamp }).from(robots).where(eq(robots.id, job.robotId));
  return computeLogDose({
    lamp: lampOf(robot?.lamp),
    trajectory,
    rooms: loggedRooms,
    intervals,
    jobEnd: job.endedAt,
    robotStartedAt: job.robotStartedAt,
    startedAt: job.startedAt,
  });
}

/** A logged room with its figures from the model: null where it had none (absent only in logs from before it). */
export const withDoseStats = <T extends { order: number }>(room: T, stats: ReadonlyMap<number, RoomDoseStats | null> | undefined): T & { dose_stats: RoomDoseStats | null } => ({
  ...room,
  dose_stats: stats?.get(room.order) ?? null,
});

/**
 * The dose map of a log the caller may see (logs/routes.ts checks visibility first), with each room's polygon and
 * floor as the rooms table has them now (a deleted room: no polygon, no floor); undefined when the log has no dose.
 */
export async function logDose(executor: Executor, jobId: string): Promise<LogDose | undefined> {
  const [row] = await executor.select({ dose: logs.dose, rooms: logs.rooms }).from(logs).where(eq(logs.jobId, jobId));
  if (!row?.dose) return undefined;
  const { dose } = row;
  const loggedRooms: StoredLoggedRoom[] = row.rooms;
  const roomIds = [...new Set(loggedRooms.map((room) => room.room_id))];
  const places =
    roomIds.length === 0
      ? []
      : await executor.select({ id: rooms.id, polygon: rooms.polygon, floorId: rooms.floorId }).from(rooms).where(inArray(rooms.id, roomIds));
  const placeOf = new Map(places.map((place) => [place.id, place]));
  return {
    job_id: jobId,
    lamp: dose.lamp,
    lamp_intervals: dose.lamp_intervals,
    rooms: loggedRooms.map((room) => {
      const place = placeOf.get(room.room_id);
      return {
        order: room.order,
        room_id: room.room_id,
        room_name: room.room_name,
        floor_id: place?.floorId ?? null,
        polygon: place?.polygon ?? [],
        dose: room.dose,
        stats: room.dose_stats ?? null,
        grid: dose.grids[String(room.order)] ?? null,
      };
    }),
  };
}
