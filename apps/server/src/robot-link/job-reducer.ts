/**
 * From what a robot reports of its order (events.ts) to job progress, without side effects: the job runner loads a
 * job's snapshot, asks this module what a state changes, and writes only that.
 */
import type { JobActiveState, JobCompletionStatus, JobRoomState, LoggedRoomState } from '@uvd/contracts';
import type { OrderReport, RoomReport } from './events.ts';

export type ActiveState = JobActiveState;
export type CompletionStatus = JobCompletionStatus;

const FINAL: ReadonlySet<JobRoomState> = new Set(['done', 'not_ready', 'not_reached', 'aborted']);
export const isFinal = (state: JobRoomState): boolean => FINAL.has(state);

export interface JobSnapshot {
  jobId: string;
  activeState: ActiveState;
  rooms: readonly { orderNo: number; state: JobRoomState }[];
}

export interface Progress {
  activeState: ActiveState;
  /** Every room with its state after this message, in order. */
  rooms: { orderNo: number; state: JobRoomState }[];
  /** Rooms whose state this message changed. */
  changed: number[];
  /** Every room is final: the robot is done with the job (and heads home) or the order was cancelled. */
  ended: boolean;
  completionStatus: CompletionStatus | undefined;
}

/**
 * A room's state from what the robot reports of it; a final state never changes again. `irradiated`: the robot
 * reports UV-C given to the room. A room is aborted only when its lamp ran and was interrupted (stop, home, a
 * reboot); one whose lamp never ran was not reached, whatever ended the order.
 */
function roomState(current: JobRoomState, report: RoomReport | undefined, cancelled: boolean, irradiated: boolean): JobRoomState {
  if (isFinal(current)) return current;
  if (report === 'active') return cancelled ? 'aborted' : 'active';
  const ran = current === 'active' || irradiated;
  if (report === 'aborted' || (cancelled && (report === undefined || report === 'waiting'))) return ran ? 'aborted' : 'not_reached';
  if (report !== undefined && report !== 'waiting') return report;
  return current;
}

/**
 * The completion statuses of behaviour §4 (as the demo history uses them): aborted when an operator stopped the job
 * (`cancelled`) or a room's disinfection was interrupted, failed when the robot could not reach a room, else
 * completed (a room skipped as not ready was the operator's decision, so the job still completed).
 */
export function completionStatus(rooms: readonly { state: JobRoomState }[], cancelled = false): CompletionStatus {
  if (cancelled || rooms.some((room) => room.state === 'aborted')) return 'aborted';
  if (rooms.some((room) => room.state === 'not_reached' || room.state === 'pending' || room.state === 'active')) {
    return 'failed';
  }
  return 'completed';
}

/** What the reported order changes in the job; undefined when it is not about this job (another or no order). */
export function reduceProgress(job: JobSnapshot, order: OrderReport): Progress | undefined {
  if (order.jobId !== job.jobId) return undefined;
  const changed: number[] = [];
  const rooms = job.rooms.map((room) => {
    const irradiated = (order.doses.get(room.orderNo)?.dose ?? 0) > 0;
    const next = roomState(room.state, order.rooms.get(room.orderNo), order.cancelled, irradiated);
    if (next !== room.state) changed.push(room.orderNo);
    return { orderNo: room.orderNo, state: next };
  });
  const ended = rooms.every((room) => isFinal(room.state));
  return {
    activeState: order.paused ? 'paused' : 'disinfecting',
    rooms,
    changed,
    ended,
    completionStatus: ended ? completionStatus(rooms, order.cancelled) : undefined,
  };
}

/** Behaviour §3 logged room states: done, not_ready, aborted (its lamp ran and was interrupted), else not_reached. */
export const loggedRoomState = (state: JobRoomState): LoggedRoomState =>
  state === 'done' || state === 'not_ready' || state === 'aborted' ? state : 'not_reached';

/** Trajectory thinning: a point is kept when the robot moved at least this far or changed floor. */
export const TRAJECTORY_STEP_M = 0.3;

export interface Position {
  x: number;
  y: number;
  floorId: string;
}

export const worthRecording = (last: Position | undefined, next: Position): boolean =>
  !last || last.floorId !== next.floorId || Math.hypot(next.x - last.x, next.y - last.y) >= TRAJECTORY_STEP_M;
