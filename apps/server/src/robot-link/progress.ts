/**
 * From robot state to job progress, without side effects: the executor loads a job's snapshot, asks this
 * module what a state message changes, and writes only that.
 */
import {
  ActionButtonText,
  DisinfectFailure,
  UVD_PROMPT_INFO_TYPE,
  type ActionState,
  type StateMessage,
} from '@uvd/contracts';
import { cancelActionPrefix, disinfectActionId } from './order.ts';

export type RoomState = 'pending' | 'active' | 'done' | 'not_ready' | 'not_reached' | 'aborted';
export type ActiveState = 'disinfecting' | 'paused';
export type CompletionStatus = 'completed' | 'aborted' | 'failed';

const FINAL: ReadonlySet<RoomState> = new Set(['done', 'not_ready', 'not_reached', 'aborted']);
export const isFinal = (state: RoomState): boolean => FINAL.has(state);

export interface JobSnapshot {
  jobId: string;
  activeState: ActiveState;
  rooms: readonly { orderNo: number; state: RoomState }[];
}

export interface Progress {
  activeState: ActiveState;
  /** Every room with its state after this message, in order. */
  rooms: { orderNo: number; state: RoomState }[];
  /** Rooms whose state this message changed. */
  changed: number[];
  /** Every room is final: the robot is done with the job (and heads home) or the order was cancelled. */
  ended: boolean;
  completionStatus: CompletionStatus | undefined;
}

/** A room's state from its disinfect action's state; a final state never changes again. */
function roomState(current: RoomState, action: ActionState | undefined, cancelled: boolean): RoomState {
  if (isFinal(current)) return current;
  if (action) {
    switch (action.actionStatus) {
      case 'FINISHED':
        return 'done';
      case 'FAILED':
        return DisinfectFailure.safeParse(action.resultDescription).data ?? (cancelled ? 'aborted' : 'not_reached');
      case 'INITIALIZING':
      case 'RUNNING':
      case 'PAUSED':
        if (cancelled) return 'aborted';
        return 'active';
      case 'WAITING':
        break;
    }
  }
  return cancelled ? 'aborted' : current;
}

/**
 * Spec-friendly completion statuses (as the demo history uses them): aborted when an operator stopped the job,
 * failed when the robot could not reach a room, else completed (a room skipped as not ready was the operator's
 * decision, so the job still completed).
 */
export function completionStatus(rooms: readonly { state: RoomState }[]): CompletionStatus {
  if (rooms.some((room) => room.state === 'aborted')) return 'aborted';
  if (rooms.some((room) => room.state === 'not_reached' || room.state === 'pending' || room.state === 'active')) {
    return 'failed';
  }
  return 'completed';
}

/** What `state` changes in the job; undefined when the state is not about this job (another or no order). */
export function reduceProgress(job: JobSnapshot, state: StateMessage): Progress | undefined {
  if (state.orderId !== job.jobId) return undefined;
  const byId = new Map(state.actionStates.map((action) => [action.actionId, action]));
  const prefix = cancelActionPrefix(job.jobId);
  // Our cancelOrder finished: whatever the robot says of the rooms it did not finish, they were aborted.
  const cancelled = state.actionStates.some(
    (action) => action.actionId.startsWith(prefix) && action.actionStatus === 'FINISHED',
  );
  const changed: number[] = [];
  const rooms = job.rooms.map((room) => {
    const next = roomState(room.state, byId.get(disinfectActionId(job.jobId, room.orderNo)), cancelled);
    if (next !== room.state) changed.push(room.orderNo);
    return { orderNo: room.orderNo, state: next };
  });
  const ended = rooms.every((room) => isFinal(room.state));
  return {
    activeState: state.paused === true ? 'paused' : 'disinfecting',
    rooms,
    changed,
    ended,
    completionStatus: ended ? completionStatus(rooms) : undefined,
  };
}

/** Spec §3 logged room states: done, not_ready, and not_reached for everything else (aborted, never visited). */
export const loggedRoomState = (state: RoomState): 'done' | 'not_ready' | 'not_reached' =>
  state === 'done' || state === 'not_ready' ? state : 'not_reached';

export interface Prompt {
  promptId: string;
  button: ActionButtonText;
  roomId: string | undefined;
}

/** The operator prompts a state carries (information entries of type uvd_operator_prompt); malformed ones are skipped. */
export function promptsOf(state: StateMessage): Prompt[] {
  const prompts: Prompt[] = [];
  for (const info of state.information ?? []) {
    if (info.infoType !== UVD_PROMPT_INFO_TYPE) continue;
    const ref = (key: string) => info.infoReferences?.find((reference) => reference.referenceKey === key)?.referenceValue;
    const promptId = ref('prompt_id');
    const button = ActionButtonText.safeParse(ref('button') ?? info.infoDescription).data;
    if (!promptId || !button) continue;
    prompts.push({ promptId, button, roomId: ref('room_id') });
  }
  return prompts;
}

/** Trajectory thinning: a point is kept when the robot moved at least this far or changed floor. */
export const TRAJECTORY_STEP_M = 0.3;

export interface Position {
  x: number;
  y: number;
  floorId: string;
}

export const worthRecording = (last: Position | undefined, next: Position): boolean =>
  !last || last.floorId !== next.floorId || Math.hypot(next.x - last.x, next.y - last.y) >= TRAJECTORY_STEP_M;
