/**
 * The robot fields of behaviour §3 as the gateway keeps them (what a state reports is read in events.ts), and which
 * changes are worth an event or a database write. Telemetry arrives at 1 Hz per robot: events go out for every
 * visible change, rows are written only when something a reader would notice changed (see `needsWrite`).
 */
import type { RobotError, RobotMode, RobotStatus, RobotUpdate } from '@uvd/contracts';
import type { Pose } from '../db/schema.ts';

export type { RobotError };

/** The robot columns the gateway keeps current. */
export interface RobotFields {
  /** null until the robot has ever reported a state. */
  battery: number | null;
  chargingStatus: 0 | 1;
  mode: RobotMode;
  status: RobotStatus;
  pose: Pose | null;
  floorId: string | null;
  errors: RobotError[];
  signal: number;
  connectionState: string;
}

/** Moves under a centimetre or a hundredth of a radian are noise, not motion. */
export const poseMoved = (a: Pose | null, b: Pose | null): boolean => {
  if (!a || !b) return a !== b;
  return Math.hypot(a.x - b.x, a.y - b.y) >= 0.01 || Math.abs(a.theta - b.theta) >= 0.01;
};

const sameErrors = (a: readonly RobotError[], b: readonly RobotError[]) => JSON.stringify(a) === JSON.stringify(b);

/** One robot_update per field that changed from `before` to `after` (behaviour §4: one named field per event). */
export function updatesBetween(robotId: string, before: RobotFields, after: RobotFields): RobotUpdate[] {
  const updates: RobotUpdate[] = [];
  if (
    after.battery !== null &&
    (before.battery === null || Math.round(before.battery) !== Math.round(after.battery) || before.chargingStatus !== after.chargingStatus)
  ) {
    updates.push({ robot_id: robotId, field: 'battery', value: after.battery, charging_status: after.chargingStatus });
  }
  if (before.mode !== after.mode) updates.push({ robot_id: robotId, field: 'mode', value: after.mode });
  if (before.status !== after.status) updates.push({ robot_id: robotId, field: 'status', value: after.status });
  if (after.pose && (poseMoved(before.pose, after.pose) || before.floorId !== after.floorId)) {
    updates.push({ robot_id: robotId, field: 'pose', value: { ...after.pose, floor_id: after.floorId } });
  }
  if (!sameErrors(before.errors, after.errors)) updates.push({ robot_id: robotId, field: 'errors', value: after.errors });
  if (before.signal !== after.signal) {
    updates.push({ robot_id: robotId, field: 'ping', value: after.signal, timeout: after.signal < 0 });
  }
  return updates;
}

/** Poses are written at most this often while a robot moves; the stream carries every move. */
export const POSE_WRITE_MS = 3000;
/** last_seen_at is refreshed at most this often. */
export const LAST_SEEN_WRITE_MS = 10_000;
/** A round trip that moved less than this is not worth a write (the stream carries it). */
const SIGNAL_WRITE_DELTA_MS = 50;

/**
 * Whether the row's state changed (status, mode, connection, floor, charging, errors), as against what only
 * telemetry moves (pose, battery, signal, last seen): the former is written at once (robot-rows.ts `writeNow`).
 */
export function rowStateChanged(written: RobotFields, now: RobotFields): boolean {
  return (
    written.chargingStatus !== now.chargingStatus ||
    written.mode !== now.mode ||
    written.status !== now.status ||
    written.floorId !== now.floorId ||
    written.connectionState !== now.connectionState ||
    !sameErrors(written.errors, now.errors)
  );
}

export function needsWrite(written: RobotFields, now: RobotFields, since: { poseMs: number; seenMs: number }): boolean {
  return (
    (written.battery === null) !== (now.battery === null) ||
    Math.abs((written.battery ?? 0) - (now.battery ?? 0)) >= 1 ||
    written.chargingStatus !== now.chargingStatus ||
    written.mode !== now.mode ||
    written.status !== now.status ||
    written.floorId !== now.floorId ||
    written.connectionState !== now.connectionState ||
    !sameErrors(written.errors, now.errors) ||
    (written.signal < 0) !== (now.signal < 0) ||
    Math.abs(written.signal - now.signal) >= SIGNAL_WRITE_DELTA_MS ||
    (poseMoved(written.pose, now.pose) && since.poseMs >= POSE_WRITE_MS) ||
    since.seenMs >= LAST_SEEN_WRITE_MS
  );
}
