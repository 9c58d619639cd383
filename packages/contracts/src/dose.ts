/**
 * Contracts of the dose model (proof of disinfection): the lamp a robot carries, and the dose field the server
 * computes over each room of a job's log from the recorded trajectory and the lamp-on intervals.
 * Doses are in J/m² (the unit of a job room's planned `dose`); 1 J/m² = 0.1 mJ/cm².
 */
import { z } from 'zod';
import { Id, Timestamp } from './common.ts';
import { MapPoint } from './rooms.ts';
import { defineRoute } from './route.ts';

/** mJ/cm² from J/m² (shown beside it in reports and the console). */
export const mjPerCm2 = (jPerM2: number): number => jPerM2 / 10;

/**
 * A robot's UV-C lamp, as its model declares it: a vertical tube of `length_m` whose centre is `height_m` above
 * the floor, emitting `uvc_power_w` of UV-C in all, with a relative output by azimuth around the robot
 * (`radial_profile`: evenly spaced factors 0–1, the first at the robot's heading; the mast's shadow lowers some).
 */
export const LampModel = z.object({
  uvc_power_w: z.number().positive().max(10_000),
  height_m: z.number().positive().max(5),
  length_m: z.number().positive().max(5),
  radial_profile: z.array(z.number().min(0).max(1)).min(1).max(360),
});
export type LampModel = z.infer<typeof LampModel>;

/** Per room of a log: what the dose field says reached its floor area. Null where the room has no polygon or no field. */
export const RoomDoseStats = z.object({
  /** J/m² */
  min: z.number().min(0),
  p10: z.number().min(0),
  mean: z.number().min(0),
  /** Share 0–1 of the room's floor area that reached the planned dose. */
  coverage: z.number().min(0).max(1),
});
export type RoomDoseStats = z.infer<typeof RoomDoseStats>;

/**
 * A room's dose field: a grid of `cell_m` squares whose lower-left corner is `origin` (metres on the floor's map
 * frame), `columns` × `rows` values in J/m², row by row from the origin's row up; null for a cell outside the
 * room's polygon.
 */
export const DoseGrid = z.object({
  origin: MapPoint,
  cell_m: z.number().positive(),
  columns: z.number().int().min(0),
  rows: z.number().int().min(0),
  values: z.array(z.number().min(0).nullable()),
});
export type DoseGrid = z.infer<typeof DoseGrid>;

/** A span when the robot reported its lamp on in a room (robot times). */
export const LampInterval = z.object({ order: z.number().int(), from: Timestamp, to: Timestamp });
export type LampInterval = z.infer<typeof LampInterval>;

export const RoomDose = z.object({
  order: z.number().int(),
  room_id: Id,
  room_name: z.string(),
  floor_id: Id.nullable(),
  polygon: z.array(MapPoint),
  /** The planned dose, J/m². */
  dose: z.number(),
  stats: RoomDoseStats.nullable(),
  grid: DoseGrid.nullable(),
});
export type RoomDose = z.infer<typeof RoomDose>;

/** GET /log/:id/dose: the dose map of a log, room by room, with the lamp it was computed for. */
export const LogDose = z.object({
  job_id: Id,
  lamp: LampModel,
  rooms: z.array(RoomDose),
  lamp_intervals: z.array(LampInterval),
});
export type LogDose = z.infer<typeof LogDose>;

export const getLogDose = defineRoute({
  method: 'GET',
  path: '/log/:id/dose',
  summary: "A log's dose map: per room the dose field over its polygon (J/m²) with min, p10, mean and coverage",
  tags: ['logs'],
  params: z.object({ id: Id }),
  response: { 200: LogDose },
});
