/**
 * The dose of a job's log (README.md): its rooms' fields and figures from the recorded path and the lamp-on
 * intervals. Pure: the caller reads the rows (dose/repository.ts) inside the transaction that ends the job.
 */
import type { LampModel, LoggedRoomState, MapPoint, RoomDoseStats, TrajectoryPoint } from '@uvd/contracts';
import type { StoredLogDose } from '../db/schema.ts';
import { roomDoses, type Span } from './model.ts';

export interface LogDoseInput {
  lamp: LampModel;
  /** `t`: seconds since the job's start by the server's clock (robot-link/job-runner.ts). */
  trajectory: readonly TrajectoryPoint[];
  rooms: readonly { order: number; dose: number; state: LoggedRoomState; polygon: readonly MapPoint[]; floorId: string | null }[];
  /** Robot times; an open interval (`endedAt` null) ends with the job. */
  intervals: readonly { order: number; startedAt: Date; endedAt: Date | null }[];
  /** The job's end (robot time where the robot reported it); null: its last recorded point. */
  jobEnd: Date | null;
  /** The robot's time of its first report of the job (jobs.robot_started_at), and the server's start of the job. */
  robotStartedAt: Date | null;
  startedAt: Date | null;
}

/**
 * Seconds since the job's start (the trajectory's clock) of a robot time. The robot's first report of the job
 * both set `robotStartedAt` and recorded the path's first point, so that pair ties the robot's clock to the
 * path's, whatever the two clocks' offset and the network's delay; without it the clocks are taken to agree.
 */
export function pathClock(trajectory: readonly TrajectoryPoint[], robotStartedAt: Date | null, startedAt: Date | null): (time: Date) => number {
  const firstT = trajectory.reduce((first, point) => Math.min(first, point.t), Infinity);
  if (robotStartedAt && Number.isFinite(firstT)) return (time) => (time.getTime() - robotStartedAt.getTime()) / 1000 + firstT;
  const start = (startedAt ?? robotStartedAt)?.getTime() ?? 0;
  return (time) => (time.getTime() - start) / 1000;
}

export interface LogDoseResult {
  dose: StoredLogDose;
  /** Each room's figures by its order (null: no polygon). */
  stats: Map<number, RoomDoseStats | null>;
}

/** A room whose lamp ran: its figures need lamp intervals. */
const lampRan = (state: LoggedRoomState) => state === 'done' || state === 'aborted';

/**
 * The log's stored dose and each room's figures by order; null when the model has no input: no recorded path, or
 * a room's lamp ran but no lamp interval was recorded (a job run before they were).
 */
export function computeLogDose(input: LogDoseInput): LogDoseResult | null {
  if (input.trajectory.length === 0) return null;
  if (input.intervals.length === 0 && input.rooms.some((room) => lampRan(room.state))) return null;
  const toSeconds = pathClock(input.trajectory, input.robotStartedAt, input.startedAt);
  const lastT = input.trajectory.reduce((last, point) => Math.max(last, point.t), -Infinity);
  // The inverse of toSeconds, for a job that ended without a recorded end: its last point, in robot time.
  const anchor = input.robotStartedAt ?? input.startedAt ?? new Date(0);
  const fromSeconds = (t: number) => new Date(anchor.getTime() + (t - toSeconds(anchor)) * 1000);
  const end = input.jobEnd ?? fromSeconds(lastT);
  const intervals = input.intervals.map((interval) => ({ order: interval.order, from: interval.startedAt, to: interval.endedAt ?? end }));
  const spansOf = (order: number): Span[] =>
    intervals.filter((interval) => interval.order === order).map((interval) => ({ from: toSeconds(interval.from), to: toSeconds(interval.to) }));
  const doses = roomDoses(
    input.lamp,
    input.trajectory,
    input.rooms.map((room) => ({ order: room.order, dose: room.dose, polygon: room.polygon, floorId: room.floorId, spans: spansOf(room.order) })),
  );
  const grids: StoredLogDose['grids'] = {};
  const stats = new Map<number, RoomDoseStats | null>();
  for (const [order, room] of doses) {
    if (room.grid) grids[String(order)] = room.grid;
    stats.set(order, room.stats);
  }
  return {
    dose: {
      lamp: input.lamp,
      lamp_intervals: intervals.map((interval) => ({ order: interval.order, from: interval.from.toISOString(), to: interval.to.toISOString() })),
      grids,
    },
    stats,
  };
}
