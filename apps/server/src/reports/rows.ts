/**
 * A report's room: one logged room of one job with what the reports show of it. Plain data, so that it crosses
 * to the PDF worker as it is (structured clone) and the CSV and the PDF read the same fields.
 */
import type { LampInterval, LoggedJobEvent, LoggedPrompt, LoggedRoomState, RoomDoseStats } from '@uvd/contracts';
import type { StoredLoggedRoom } from '../db/schema.ts';

export interface ReportJob {
  job_id: string;
  job_name: string;
  robot_name: string;
  created_by: string;
  /**
   * Who started the job: `by` a username, or null for the scheduler at the planned time. Null when the log does not
   * say (logs from before starts were recorded).
   */
  started: { by: string | null } | null;
  completion_status: string;
  reason: string | null;
  /** ISO instants. */
  starttime: string;
  endtime: string | null;
  planned_starttime: string | null;
}

export interface ReportRoom {
  job: ReportJob;
  order: number;
  room_id: string;
  room_name: string;
  /** Where the room is now (rooms table); null once the room was removed. */
  building_id: string | null;
  building_name: string | null;
  floor_id: string | null;
  floor_name: string | null;
  state: LoggedRoomState;
  /** J/m² */
  planned: number;
  dose_received: number | null;
  stats: RoomDoseStats | null;
  fully_dosed: boolean;
  /** First and last instant the robot reported its lamp on in the room (the dose model's intervals). */
  lamp_from: string | null;
  lamp_to: string | null;
  /** The log's events of this room, oldest first. */
  events: LoggedJobEvent[];
  /** The log's events of the whole job (no room): a stop, a fault between rooms. */
  job_events: LoggedJobEvent[];
  /** Prompts the robot asked at this room (matched by the room's name, the only link a logged prompt has). */
  prompts: LoggedPrompt[];
}

/**
 * Fully dosed: the dose model's coverage reached 1 (every cell of the room at the planned dose) when it has
 * figures for the room; else the robot's own word, `done`.
 */
/** A job's start is an event of its log, but no interruption. */
export const isInterruption = (event: LoggedJobEvent): boolean => event.kind !== 'started';

/** Who started the job, from its log's events (ReportJob.started). */
export function startOf(events: readonly LoggedJobEvent[]): ReportJob['started'] {
  const start = events.find((event) => event.kind === 'started');
  return start ? { by: start.actor } : null;
}

export const isFullyDosed = (room: Pick<StoredLoggedRoom, 'state' | 'dose_stats'>): boolean =>
  room.dose_stats ? room.dose_stats.coverage >= 1 : room.state === 'done';

export interface LogSource {
  job: ReportJob;
  rooms: StoredLoggedRoom[];
  events: LoggedJobEvent[];
  prompts: LoggedPrompt[];
  lampIntervals: LampInterval[] | null;
}

export interface RoomPlace {
  buildingId: string;
  buildingName: string;
  floorId: string;
  floorName: string;
}

/** The report rooms of one log, in the job's order; `keep` picks the rooms a scope holds. */
export function reportRooms(source: LogSource, places: ReadonlyMap<string, RoomPlace>, keep: (roomId: string) => boolean = () => true): ReportRoom[] {
  const jobEvents = source.events.filter((event) => event.order_no === null && isInterruption(event));
  const promptsByRoom = new Map<string, LoggedPrompt[]>();
  for (const prompt of source.prompts) {
    if (prompt.room_name === null) continue;
    promptsByRoom.set(prompt.room_name, [...(promptsByRoom.get(prompt.room_name) ?? []), prompt]);
  }
  return [...source.rooms]
    .sort((a, b) => a.order - b.order)
    .filter((room) => keep(room.room_id))
    .map((room) => {
      const place = places.get(room.room_id);
      const intervals = (source.lampIntervals ?? []).filter((interval) => interval.order === room.order);
      return {
        job: source.job,
        order: room.order,
        room_id: room.room_id,
        room_name: room.room_name,
        building_id: place?.buildingId ?? null,
        building_name: place?.buildingName ?? null,
        floor_id: place?.floorId ?? null,
        floor_name: place?.floorName ?? null,
        state: room.state,
        planned: room.dose,
        dose_received: room.dose_received ?? null,
        stats: room.dose_stats ?? null,
        fully_dosed: isFullyDosed(room),
        lamp_from: intervals.reduce<string | null>((first, interval) => (first === null || Date.parse(interval.from) < Date.parse(first) ? interval.from : first), null),
        lamp_to: intervals.reduce<string | null>((last, interval) => (last === null || Date.parse(interval.to) > Date.parse(last) ? interval.to : last), null),
        events: source.events.filter((event) => event.order_no === room.order),
        job_events: jobEvents,
        prompts: promptsByRoom.get(room.room_name) ?? [],
      };
    });
}
