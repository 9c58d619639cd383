/**
 * The server's rules for a job input (behaviour §5), checked before anything is written:
 * rooms listed once each, numbered 0..n-1, visible to the caller, on the robot's floor, with offered doses.
 */
import { and, eq, inArray } from 'drizzle-orm';
import { DeliveryRefusal, DUPLICATE_ROOM, ErrorCode, START_TIME_IN_PAST, startTimeInPast, type JobInput, type RobotKind } from '@uvd/contracts';
import type { z } from 'zod';
import type { Executor } from '../db/client.ts';
import { robots, rooms } from '../db/schema.ts';
import type { Principal } from '../identity/principal.ts';
import { badRequest, conflict, notFound } from '../lib/http-error.ts';
import { robotVisible, roomVisible, seesEverything } from '../lib/visibility.ts';
import { organizationDoses, type JobValues } from './repository.ts';

type ParsedJobInput = z.output<typeof JobInput>;

export interface JobRobot {
  id: string;
  name: string;
  floorId: string | null;
  kind: RobotKind;
}

/** The robot `robotId` if the caller sees it, else 404. */
export async function findRobot(executor: Executor, principal: Principal, robotId: string): Promise<JobRobot> {
  const [robot] = await executor
    .select({ id: robots.id, name: robots.name, floorId: robots.floorId, kind: robots.kind })
    .from(robots)
    .where(
      and(
        eq(robots.id, robotId),
        eq(robots.orgId, principal.orgId),
        seesEverything(principal) ? undefined : robotVisible(executor, principal, robots.id),
      ),
    );
  if (!robot) throw notFound('Robot');
  return robot;
}

/** `start_time` with seconds and milliseconds forced to 0 (behaviour §3). */
export function startMinute(startTime: string): Date {
  const date = new Date(startTime);
  date.setUTCSeconds(0, 0);
  return date;
}

/** 409 robot_kind: a delivery robot carries deliveries and runs no disinfection job. */
export function refuseDeliveryRobot(robot: Pick<JobRobot, 'name' | 'kind'>): void {
  if (robot.kind !== 'disinfection')
    throw conflict(`Robot "${robot.name}" is a delivery robot: it runs no disinfection jobs.`, DeliveryRefusal.wrongRobotKind, { kind: robot.kind });
}

/** Checks `input` for a job of `robot` and returns what to store, or throws a 4xx naming the field. */
export async function resolveJobInput(
  executor: Executor,
  principal: Principal,
  robot: JobRobot,
  input: ParsedJobInput,
  startNow: boolean,
): Promise<JobValues> {
  refuseDeliveryRobot(robot);
  // A job that starts now is started at once (its start_time then becomes the real start), so only a schedule is checked.
  if (!startNow && startTimeInPast(input.start_time))
    throw badRequest(`Field "start_time": ${START_TIME_IN_PAST} (${input.start_time}); choose a later start or start the job now.`, {
      field: 'start_time',
    });
  const seen = new Set<string>();
  input.rooms.forEach((room, index) => {
    if (seen.has(room.room_id)) throw badRequest(DUPLICATE_ROOM, { field: `rooms.${index}.room_id` }, ErrorCode.duplicateRoom);
    seen.add(room.room_id);
  });
  const orderNos = new Set(input.rooms.map((room) => room.order_no));
  input.rooms.forEach((room, index) => {
    if (room.order_no >= input.rooms.length || orderNos.size !== input.rooms.length)
      throw badRequest(`Field "rooms.${index}.order_no": the rooms must be numbered 0 to ${input.rooms.length - 1}, each once.`, {
        field: `rooms.${index}.order_no`,
      });
  });

  if (robot.floorId === null)
    throw badRequest(`Robot "${robot.name}" is not placed on a floor, so no room can be checked against it.`, { field: 'robotId' });

  const found = await executor
    .select({ id: rooms.id, name: rooms.name, floorId: rooms.floorId })
    .from(rooms)
    .where(
      and(
        inArray(rooms.id, [...seen]),
        eq(rooms.orgId, principal.orgId),
        seesEverything(principal) ? undefined : roomVisible(executor, principal, rooms.id),
      ),
    );
  const byId = new Map(found.map((room) => [room.id, room]));
  const { uvcDoses } = await organizationDoses(executor, principal.orgId);
  input.rooms.forEach((room, index) => {
    const stored = byId.get(room.room_id);
    if (!stored) throw notFound(`Room ${room.room_id} (rooms.${index}.room_id)`);
    if (stored.floorId !== robot.floorId)
      throw badRequest(`Field "rooms.${index}.room_id": room "${stored.name}" is not on the floor of robot "${robot.name}".`, {
        field: `rooms.${index}.room_id`,
      });
    if (!uvcDoses.includes(room.dose))
      throw badRequest(
        `Field "rooms.${index}.dose": dose ${room.dose} is not offered; choose one of ${uvcDoses.join(', ') || '(none configured)'}.`,
        { field: `rooms.${index}.dose` },
      );
  });

  return {
    name: input.name,
    notes: input.notes,
    startTime: startMinute(input.start_time),
    startNow,
    rooms: input.rooms.map((room) => ({ roomId: room.room_id, orderNo: room.order_no, dose: room.dose })),
  };
}
