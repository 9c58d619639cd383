/** A started job's progress (the shift view) from its rooms as the robot reported them; pure. */
import type { JobProgress, JobRoomState, RoomPhase } from '@uvd/contracts';

export interface ProgressRoom {
  room_id: string;
  order_no: number;
  room_name: string;
  dose: number;
  state: JobRoomState;
  ended_at: Date | null;
}

const FINISHED: ReadonlySet<JobRoomState> = new Set(['done', 'not_ready', 'not_reached', 'aborted']);

/**
 * Where the robot is with its current room: in it once the robot started the room's disinfection (its action
 * initializing, running or paused), at its door while the robot asks an operator (a prompt it still reports),
 * else on its way there.
 */
const phaseOf = (room: ProgressRoom, asking: boolean): RoomPhase => {
  if (room.state === 'active') return 'in_room';
  return asking ? 'waiting' : 'on_the_way';
};

/**
 * `rooms` in job order; `asking`: the robot reports a prompt of the job still open. The end is estimated from the
 * pace so far: the time from the start to the last room finished, per room finished, for each room left. Rooms
 * skipped or not reached count as finished rooms too, so a skip makes the estimate earlier, as it makes the job
 * shorter.
 */
export function jobProgress(rooms: readonly ProgressRoom[], startedAt: Date | null, running: boolean, asking = false): JobProgress {
  const finished = rooms.filter((room) => FINISHED.has(room.state));
  const done = rooms.filter((room) => room.state === 'done');
  const current = running ? (rooms.find((room) => room.state === 'active') ?? rooms.find((room) => room.state === 'pending')) : undefined;
  const lastEnd = Math.max(...finished.map((room) => room.ended_at?.getTime() ?? Number.NEGATIVE_INFINITY));
  const left = rooms.length - finished.length;
  let eta: string | null = null;
  if (running && startedAt && finished.length > 0 && Number.isFinite(lastEnd) && lastEnd >= startedAt.getTime()) {
    const perRoom = (lastEnd - startedAt.getTime()) / finished.length;
    eta = new Date(lastEnd + perRoom * left).toISOString();
  }
  return {
    current_room: current
      ? { room_id: current.room_id, order_no: current.order_no, room_name: current.room_name, phase: phaseOf(current, asking) }
      : null,
    rooms_total: rooms.length,
    rooms_finished: finished.length,
    rooms_disinfected: done.length,
    dose_delivered: done.reduce((sum, room) => sum + room.dose, 0),
    dose_total: rooms.reduce((sum, room) => sum + room.dose, 0),
    eta,
  };
}
