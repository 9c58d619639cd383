/**
 * Who sees what inside an organization (behaviour §6): the restricted roles see
 * everything of their organization; a done-teleoperator sees the robots and rooms of their groups, and the
 * jobs and logs of those robots. Every query also filters on `principal.orgId`.
 */
import { and, eq, inArray, type SQL } from 'drizzle-orm';
import { isRestricted } from '@uvd/contracts';
import type { Executor } from '../db/client.ts';
import { robotGroups, robots, roomGroups, rooms, userGroups } from '../db/schema.ts';
import type { Principal } from '../identity/principal.ts';

export const seesEverything = (principal: Principal): boolean => isRestricted(principal.roles);

/** The ids of the groups the caller belongs to. */
const myGroupIds = (db: Executor, principal: Principal) =>
  db.select({ groupId: userGroups.groupId }).from(userGroups).where(eq(userGroups.userId, principal.sub));

/**
 * A condition on `robots.id` (or any column holding a robot id) limiting rows to the robots the caller may see,
 * always within the caller's organization through `robots.orgId`.
 */
export function visibleRobotIds(db: Executor, principal: Principal) {
  const inOrg = db.select({ id: robots.id }).from(robots).where(eq(robots.orgId, principal.orgId));
  if (seesEverything(principal)) return inOrg;
  return db
    .selectDistinct({ id: robotGroups.robotId })
    .from(robotGroups)
    .innerJoin(robots, eq(robots.id, robotGroups.robotId))
    .where(and(eq(robots.orgId, principal.orgId), inArray(robotGroups.groupId, myGroupIds(db, principal))));
}

/** As `visibleRobotIds`, for rooms. */
export function visibleRoomIds(db: Executor, principal: Principal) {
  const inOrg = db.select({ id: rooms.id }).from(rooms).where(eq(rooms.orgId, principal.orgId));
  if (seesEverything(principal)) return inOrg;
  return db
    .selectDistinct({ id: roomGroups.roomId })
    .from(roomGroups)
    .innerJoin(rooms, eq(rooms.id, roomGroups.roomId))
    .where(and(eq(rooms.orgId, principal.orgId), inArray(roomGroups.groupId, myGroupIds(db, principal))));
}

/** `column IN (robots the caller may see)`. */
export const robotVisible = (db: Executor, principal: Principal, column: Parameters<typeof inArray>[0]): SQL =>
  inArray(column, visibleRobotIds(db, principal));

/** `column IN (rooms the caller may see)`. */
export const roomVisible = (db: Executor, principal: Principal, column: Parameters<typeof inArray>[0]): SQL =>
  inArray(column, visibleRoomIds(db, principal));
