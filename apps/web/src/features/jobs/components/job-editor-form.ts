import { JobInput, defaultJobName, startTimeInPast } from '@uvd/contracts';
import type { Job } from '@uvd/contracts';
import type { ParseKeys } from 'i18next';
import { z } from 'zod';
import { DEFAULT_TIME_ZONE, formatDateTime, zonedInstant } from '../../../lib/format-date.ts';

/** Behaviour §9: "Start now" schedules the job five minutes ahead, then starts it. */
export const START_DELAY_MS = 5 * 60 * 1000;

/** A room added to the job; its position in the list is its order_no. */
export interface EditorRoom {
  room_id: string;
  room_name: string;
  dose: number;
}

/** The editor's fields as the inputs hold them ('' = nothing chosen). */
export interface JobEditorValues {
  startNow: boolean;
  name: string;
  notes: string;
  buildingId: string;
  floorId: string;
  robotId: string;
  /** yyyy-MM-dd, hours and minutes of the start in the user's timezone. */
  date: string;
  hours: string;
  minutes: string;
  rooms: EditorRoom[];
}

export type EditorField = 'name' | 'buildingId' | 'floorId' | 'robotId' | 'date' | 'hours' | 'minutes' | 'rooms';
/** Translation keys of the messages shown next to each field (behaviour §5). */
export type EditorErrors = Partial<Record<EditorField, ParseKeys>>;

const MESSAGE_KEYS: Record<EditorField, ParseKeys> = {
  name: 'validation.required',
  buildingId: 'validation.required',
  floorId: 'validation.required',
  robotId: 'validation.required',
  date: 'validation.invalidDate',
  hours: 'validation.hoursRange',
  minutes: 'validation.minutesRange',
  rooms: 'jobEditor.roomsRequired',
};

/** Top to bottom, so the first invalid field of a submit can take the focus. */
export const FIELD_ORDER: readonly EditorField[] = ['name', 'buildingId', 'floorId', 'robotId', 'date', 'hours', 'minutes', 'rooms'];

const required = z.string().trim().min(1);
const clockPart = (max: number) => z.string().trim().regex(/^\d{1,2}$/).transform(Number).pipe(z.number().max(max));

/** Behaviour §5 job form: name (the contract's own rule), building, floor, robot, at least one room. */
const JobEditorSchema = z.object({
  name: JobInput.shape.name,
  buildingId: required,
  floorId: required,
  robotId: required,
  rooms: z.array(z.unknown()).min(1),
});
/** Behaviour §5: the date must be a date, hours 0–23, minutes 0–59 (only when the job is scheduled). */
const ScheduleSchema = z.object({ date: z.iso.date(), hours: clockPart(23), minutes: clockPart(59) });

const isEditorField = (key: PropertyKey | undefined): key is EditorField =>
  typeof key === 'string' && (FIELD_ORDER as readonly string[]).includes(key);

/**
 * Behaviour §5 checks, and a scheduled start not in the past (the server's own rule, `startTimeInPast`: the current
 * and the previous minute still count as now), reported on the date.
 */
export const validateJobEditor = (values: JobEditorValues, timeZone: string = DEFAULT_TIME_ZONE, now: Date = new Date()): EditorErrors => {
  const errors: EditorErrors = {};
  const schedule = values.startNow ? undefined : ScheduleSchema.safeParse(values);
  const issues = [...(JobEditorSchema.safeParse(values).error?.issues ?? []), ...(schedule?.error?.issues ?? [])];
  for (const issue of issues) {
    const field = issue.path[0];
    if (isEditorField(field)) errors[field] ??= MESSAGE_KEYS[field];
  }
  if (schedule?.success && startTimeInPast(zonedInstant(values.date, schedule.data.hours, schedule.data.minutes, timeZone), now))
    errors.date = 'validation.startInPast';
  return errors;
};


/** The job input of valid values (behaviour §3): start_time with seconds 0, rooms numbered from 0 in list order. */
export const toJobInput = (values: JobEditorValues, timeZone: string, now: Date = new Date()): JobInput => {
  const start = values.startNow
    ? new Date(now.getTime() + START_DELAY_MS)
    : zonedInstant(values.date, Number(values.hours), Number(values.minutes), timeZone);
  start.setUTCSeconds(0, 0);
  return {
    name: values.name.trim(),
    notes: values.notes,
    start_time: start.toISOString(),
    rooms: values.rooms.map((room, index) => ({ room_id: room.room_id, dose: room.dose, order_no: index })),
    start_now: values.startNow,
  };
};

/** Date, hours and minutes of an instant in the user's timezone, as the inputs hold them. */
const scheduleOf = (iso: string, timeZone: string) => ({
  date: formatDateTime(iso, timeZone, 'yyyy-MM-dd'),
  hours: formatDateTime(iso, timeZone, 'HH'),
  minutes: formatDateTime(iso, timeZone, 'mm'),
});

/** Behaviour §5 defaults of a new job: "{given name} DD.MM.YYYY HH:mm" and a start of now, in the user's timezone. */
export const newJobValues = (givenName: string, timeZone: string, now: Date = new Date()): JobEditorValues => {
  const iso = now.toISOString();
  return {
    startNow: false,
    name: defaultJobName(givenName, now, timeZone),
    notes: '',
    buildingId: '',
    floorId: '',
    robotId: '',
    ...scheduleOf(iso, timeZone),
    rooms: [],
  };
};

/** A saved job in the editor: building and floor from its rooms (extra_room_data), rooms in their order. */
export const jobValues = (job: Job, timeZone: string): JobEditorValues => {
  const rooms = [...job.rooms].sort((a, b) => a.order_no - b.order_no);
  const first = rooms[0];
  return {
    startNow: false,
    name: job.name,
    notes: job.notes,
    buildingId: first?.building_id ?? '',
    floorId: first?.floor_id ?? '',
    robotId: job.robot_id,
    ...scheduleOf(job.start_time, timeZone),
    rooms: rooms.map((room) => ({ room_id: room.room_id, room_name: room.room_name ?? '', dose: room.dose })),
  };
};

export type EditorChange =
  | { type: 'field'; field: 'name' | 'notes' | 'date' | 'hours' | 'minutes'; value: string }
  | { type: 'startNow'; value: boolean }
  | { type: 'building'; value: string }
  | { type: 'floor'; value: string }
  | { type: 'robot'; value: string }
  | { type: 'addRoom'; room: EditorRoom }
  | { type: 'roomDose'; index: number; dose: number }
  | { type: 'moveRoom'; index: number; by: -1 | 1 }
  | { type: 'removeRoom'; index: number };

/** Behaviour §4 job form: changing the building clears floor and robot; changing the floor clears the robot. */
export const applyEditorChange = (values: JobEditorValues, change: EditorChange): JobEditorValues => {
  switch (change.type) {
    case 'field':
      return { ...values, [change.field]: change.value };
    case 'startNow':
      return { ...values, startNow: change.value };
    case 'building':
      return { ...values, buildingId: change.value, floorId: '', robotId: '' };
    case 'floor':
      return { ...values, floorId: change.value, robotId: '' };
    case 'robot':
      return { ...values, robotId: change.value };
    case 'addRoom':
      return { ...values, rooms: [...values.rooms, change.room] };
    case 'roomDose':
      return { ...values, rooms: values.rooms.map((room, index) => (index === change.index ? { ...room, dose: change.dose } : room)) };
    case 'moveRoom': {
      const target = change.index + change.by;
      const moved = values.rooms[change.index];
      if (!moved || target < 0 || target >= values.rooms.length) return values;
      const rooms = values.rooms.filter((_, index) => index !== change.index);
      rooms.splice(target, 0, moved);
      return { ...values, rooms };
    }
    case 'removeRoom':
      return { ...values, rooms: values.rooms.filter((_, index) => index !== change.index) };
  }
};
