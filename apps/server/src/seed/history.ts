/**
 * Two weeks of plausible past work for the demo: finished jobs with their logs (room results, a trajectory for
 * most of them) and a few jobs scheduled for the coming days. Deterministic for a given seed and "now".
 */
import { randomUUID } from 'node:crypto';
import type { LoggedRoom, Point, Pose, StoredLogDose, TrajectoryPoint } from '../db/schema.ts';
import { createPrng, DEFAULT_TIMEZONE, defaultJobName, wallClock, type LampModel, type Prng } from '@uvd/contracts';
import { DEFAULT_LAMP } from '../dose/lamp.ts';
import { computeLogDose } from '../dose/log-dose.ts';

export interface HistoryRoom {
  id: string;
  name: string;
  dose: number | null;
  entryPoint: Pose;
  /** Its outline (metres on its floor's map), for the dose model. */
  polygon: Point[];
}

export interface HistoryRobot {
  id: string;
  name: string;
  floorId: string;
  home: Pose;
  corridorY: number;
  /** The lamp the dose model assumes for this robot's logs (robots.lamp; DEFAULT_LAMP when absent). */
  lamp?: LampModel | null;
  /** Rooms of the robot's floor, in their order on the floor. */
  rooms: HistoryRoom[];
  /** Users who create this robot's jobs. */
  creators: { id: string; username: string; firstName: string }[];
}

export interface HistoryOptions {
  now: Date;
  seed: number;
  days: number;
  scheduledDays: number;
  doses: number[];
  defaultDose: number;
}

export interface JobRow {
  id: string;
  robotId: string;
  name: string;
  notes: string;
  status: 'Scheduled' | 'Completed';
  startTime: Date;
  performed: boolean;
  createdBy: string;
  createdById: string;
  createdAt: Date;
  updatedAt: Date;
  startedAt: Date | null;
  endedAt: Date | null;
  completionStatus: LogRow['completionStatus'] | null;
}

export interface JobRoomRow {
  jobId: string;
  orderNo: number;
  roomId: string;
  dose: number;
  state: 'pending' | LoggedRoom['state'];
  startedAt: Date | null;
  endedAt: Date | null;
}

export interface LogRow {
  jobId: string;
  jobName: string;
  completionStatus: 'completed' | 'aborted' | 'failed';
  robotId: string;
  robotName: string;
  createdBy: string;
  startTime: Date;
  endTime: Date;
  notes: string;
  rooms: LoggedRoom[];
  trajectory: TrajectoryPoint[] | null;
  dose: StoredLogDose | null;
}

/** When the robot's lamp was on in a room of a job (the job runner's record; robot times). */
export interface LampIntervalRow {
  jobId: string;
  orderNo: number;
  startedAt: Date;
  endedAt: Date;
}

export interface History {
  jobs: JobRow[];
  jobRooms: JobRoomRow[];
  logs: LogRow[];
  lampIntervals: LampIntervalRow[];
}

const SPEED = 0.4; // m/s, a UV robot's cautious indoor pace
const NOT_READY_CHECK_S = 20;

/** Seconds of exposure for a dose; the lamp delivers about 1/6 J/m² per second at the room's far wall. */
const exposureSeconds = (dose: number) => dose * 6;

const NOTES = [
  '',
  '',
  '',
  'Terminal disinfection after discharge.',
  'Norovirus isolation: please use the full dose.',
  'Room 2 has a bed left in the doorway, check before start.',
  'Weekly round agreed with infection control.',
  'Cleaning staff informed.',
];

function jobName(prng: Prng, robot: HistoryRobot, rooms: HistoryRoom[], creatorFirstName: string, at: Date): string {
  const floorCode = rooms[0]?.name.split('-')[0] ?? robot.name;
  const firstNumber = rooms[0]?.name.split(' ')[0] ?? '';
  const choice = prng.int(0, 3);
  // Demo users keep the default timezone: names read the hospital's wall clock, as the console shows start times.
  if (choice === 0) return Number(wallClock(at, DEFAULT_TIMEZONE).hour) < 12 ? `Morning round ${floorCode}` : `Afternoon round ${floorCode}`;
  if (choice === 1) return `Terminal disinfection ${firstNumber}`;
  return defaultJobName(creatorFirstName, at, DEFAULT_TIMEZONE);
}

/** Midnight UTC `days` after the day of `now`, plus a time of day. */
const at = (now: Date, days: number, hour: number, minute: number) =>
  new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + days, hour, minute, 0, 0));

/** Along the corridor from `from` to the door of `to`, then up to its entry point. */
function drive(from: { x: number; y: number }, to: Pose, corridorY: number): { x: number; y: number }[] {
  return [
    { x: from.x, y: corridorY },
    { x: to.x, y: corridorY },
    { x: to.x, y: to.y },
  ];
}

interface Trip {
  points: TrajectoryPoint[];
  seconds: number;
  /** Seconds since the start at which each visit began and ended at its room. */
  visits: { arrive: number; leave: number }[];
}

function trajectoryOf(robot: HistoryRobot, visits: { room: HistoryRoom; dwell: number }[]): Trip {
  const points: TrajectoryPoint[] = [{ t: 0, x: robot.home.x, y: robot.home.y, floor_id: robot.floorId }];
  let t = 0;
  let here = { x: robot.home.x, y: robot.home.y };
  const moveTo = (target: { x: number; y: number }) => {
    const distance = Math.hypot(target.x - here.x, target.y - here.y);
    if (distance < 1e-6) return;
    t += distance / SPEED;
    here = target;
    points.push({ t: Math.round(t), x: target.x, y: target.y, floor_id: robot.floorId });
  };
  const times: Trip['visits'] = [];
  for (const visit of visits) {
    for (const point of drive(here, visit.room.entryPoint, robot.corridorY)) moveTo(point);
    const arrive = Math.round(t);
    t += visit.dwell;
    times.push({ arrive, leave: Math.round(t) });
    points.push({ t: Math.round(t), x: here.x, y: here.y, floor_id: robot.floorId });
  }
  for (const point of drive(here, robot.home, robot.corridorY)) moveTo(point);
  return { points, seconds: Math.round(t), visits: times };
}

export function generateHistory(robots: readonly HistoryRobot[], options: HistoryOptions): History {
  const prng = createPrng(options.seed);
  const history: History = { jobs: [], jobRooms: [], logs: [], lampIntervals: [] };
  const doseChoices = [options.defaultDose, options.defaultDose, options.defaultDose, ...options.doses];

  const plan = (robot: HistoryRobot, startTime: Date) => {
    const count = Math.min(robot.rooms.length, prng.int(3, 6));
    const rooms = prng.sample(robot.rooms, count);
    const creator = prng.pick(robot.creators);
    return {
      id: randomUUID(),
      rooms: rooms.map((room) => ({ room, dose: room.dose ?? prng.pick(doseChoices) })),
      creator,
      name: jobName(prng, robot, rooms, creator.firstName, startTime),
      notes: prng.pick(NOTES),
    };
  };

  for (let day = -options.days; day < 0; day += 1) {
    for (const robot of robots) {
      if (robot.rooms.length === 0 || robot.creators.length === 0) continue;
      const starts = [at(options.now, day, prng.int(4, 7), prng.int(0, 11) * 5)];
      if (prng.chance(0.55)) starts.push(at(options.now, day, prng.int(11, 15), prng.int(0, 11) * 5));
      for (const startTime of starts) {
        const job = plan(robot, startTime);
        // Most rounds finish; some are stopped by staff (aborted) or by a robot fault (failed) part-way.
        const outcome = prng.next();
        const completionStatus: LogRow['completionStatus'] = outcome < 0.78 ? 'completed' : outcome < 0.92 ? 'aborted' : 'failed';
        const cutAt = completionStatus === 'completed' ? job.rooms.length : prng.int(1, Math.max(1, job.rooms.length - 1));
        const logged: LoggedRoom[] = job.rooms.map(({ room, dose }, order) => ({
          order,
          room_id: room.id,
          room_name: room.name,
          dose,
          state: order >= cutAt ? 'not_reached' : prng.chance(0.1) ? 'not_ready' : 'done',
          dose_received: null,
        }));
        for (const room of logged) if (room.state === 'done') room.dose_received = room.dose;
        const visits = job.rooms.flatMap(({ room, dose }, order) => {
          const state = logged[order]?.state;
          if (state === 'not_reached') return [];
          return [{ order, room, dwell: state === 'done' ? exposureSeconds(dose) : NOT_READY_CHECK_S }];
        });
        const trip = trajectoryOf(robot, visits);
        const { points, seconds } = trip;
        const after = (s: number) => new Date(startTime.getTime() + s * 1000);
        const visitTimes = new Map(visits.map((visit, index) => [visit.order, trip.visits[index]]));
        const endTime = new Date(startTime.getTime() + seconds * 1000);
        const createdAt = new Date(startTime.getTime() - prng.int(2, 30) * 3600 * 1000);
        history.jobs.push({
          id: job.id,
          robotId: robot.id,
          name: job.name,
          notes: job.notes,
          status: 'Completed',
          startTime,
          performed: true,
          createdBy: job.creator.username,
          createdById: job.creator.id,
          createdAt,
          updatedAt: endTime,
          startedAt: startTime,
          endedAt: endTime,
          completionStatus,
        });
        history.jobRooms.push(
          ...job.rooms.map(({ room, dose }, orderNo) => {
            const times = visitTimes.get(orderNo);
            return {
              jobId: job.id,
              orderNo,
              roomId: room.id,
              dose,
              state: logged[orderNo]?.state ?? 'not_reached',
              startedAt: times ? after(times.arrive) : null,
              endedAt: times ? after(times.leave) : null,
            };
          }),
        );
        // Older robot software did not record its path: about a third of the logs have none, and no dose map.
        const trajectory = prng.chance(0.68) ? points : null;
        // The lamp ran while the robot dwelt at the entry point of each room it disinfected (a not_ready room was
        // only looked at); the dose model turns that into each room's field and figures, as the server does.
        const lampIntervals: LampIntervalRow[] = trajectory
          ? logged.flatMap((room) => {
              const times = visitTimes.get(room.order);
              return room.state === 'done' && times ? [{ jobId: job.id, orderNo: room.order, startedAt: after(times.arrive), endedAt: after(times.leave) }] : [];
            })
          : [];
        history.lampIntervals.push(...lampIntervals);
        const dose = trajectory
          ? computeLogDose({
              lamp: robot.lamp ?? DEFAULT_LAMP,
              trajectory,
              rooms: job.rooms.map(({ room, dose: planned }, order) => ({
                order,
                dose: planned,
                state: logged[order]?.state ?? 'not_reached',
                polygon: room.polygon,
                floorId: robot.floorId,
              })),
              intervals: lampIntervals.map((interval) => ({ order: interval.orderNo, startedAt: interval.startedAt, endedAt: interval.endedAt })),
              jobEnd: endTime,
              robotStartedAt: startTime,
              startedAt: startTime,
            })
          : null;
        if (dose) for (const room of logged) room.dose_stats = dose.stats.get(room.order) ?? null;
        history.logs.push({
          jobId: job.id,
          jobName: job.name,
          completionStatus,
          robotId: robot.id,
          robotName: robot.name,
          createdBy: job.creator.username,
          startTime,
          endTime,
          notes: job.notes,
          rooms: logged,
          trajectory,
          dose: dose?.dose ?? null,
        });
      }
    }
  }

  for (let day = 1; day <= options.scheduledDays; day += 1) {
    for (const robot of robots) {
      if (robot.rooms.length === 0 || robot.creators.length === 0 || !prng.chance(0.7)) continue;
      const startTime = at(options.now, day, prng.int(4, 15), prng.int(0, 11) * 5);
      const job = plan(robot, startTime);
      history.jobs.push({
        id: job.id,
        robotId: robot.id,
        name: job.name,
        notes: job.notes,
        status: 'Scheduled',
        startTime,
        performed: false,
        createdBy: job.creator.username,
        createdById: job.creator.id,
        createdAt: options.now,
        updatedAt: options.now,
        startedAt: null,
        endedAt: null,
        completionStatus: null,
      });
      history.jobRooms.push(
        ...job.rooms.map(({ room, dose }, orderNo) => ({ jobId: job.id, orderNo, roomId: room.id, dose, state: 'pending' as const, startedAt: null, endedAt: null })),
      );
    }
  }
  return history;
}
