/**
 * SQL of the robots backend. Every query filters on the caller's organization; a teleoperator further sees
 * only the robots of their groups (lib/visibility.ts).
 */
import { and, asc, count, eq, inArray, isNotNull, lt, sql, type SQL } from 'drizzle-orm';
import { LOW_BATTERY_PERCENT, RobotMode, type Robot, type RobotKind, RobotStatus, type RobotSummary } from '@uvd/contracts';
import type { Executor } from '../db/client.ts';
import { floors, robotGroups, robots, type Pose } from '../db/schema.ts';
import type { Principal } from '../identity/principal.ts';
import { notFound } from '../lib/http-error.ts';
import { assertInOrg } from '../lib/org-scope.ts';
import { robotVisible, seesEverything } from '../lib/visibility.ts';

export interface Page {
  offset: number;
  limit: number;
}

const robotColumns = {
  id: robots.id,
  name: robots.name,
  kind: robots.kind,
  status: robots.status,
  mode: robots.mode,
  battery: robots.battery,
  chargingStatus: robots.chargingStatus,
  signal: robots.signal,
  floorId: robots.floorId,
  buildingId: floors.buildingId,
  pose: robots.pose,
  lastSeenAt: robots.lastSeenAt,
  connectionState: robots.connectionState,
};

interface RobotRow {
  id: string;
  name: string;
  kind: RobotKind;
  status: RobotStatus;
  mode: RobotMode;
  battery: number;
  chargingStatus: number;
  signal: number;
  floorId: string | null;
  buildingId: string | null;
  pose: Pose | null;
  lastSeenAt: Date | null;
  connectionState: string;
}

/** A robot as stored; whether it is stale is the gateway's live knowledge, added by the routes. */
export type StoredRobot = Omit<Robot, 'stale'>;

/**
 * The gateway writes connection_state ONLINE when a robot speaks and resets it when the robot goes away or the
 * embedded broker starts (robot-link/README.md); mode and signal of a robot that is not online are those of an
 * offline robot, whatever the row was registered with, and a battery it never reported is none.
 */
const isOnline = (row: { connectionState: string }) => row.connectionState === 'ONLINE';

const toRobot = (row: RobotRow): StoredRobot => ({
  robot_id: row.id,
  name: row.name,
  kind: row.kind,
  // What a robot does while not connected is unknown: its last status is never shown as live.
  status: isOnline(row) ? row.status : 'offline',
  mode: isOnline(row) ? row.mode : RobotMode.offline,
  battery: row.lastSeenAt ? row.battery : null,
  charging_status: row.chargingStatus === 1 ? 1 : 0,
  signal: isOnline(row) ? row.signal : null,
  floor_id: row.floorId,
  building_id: row.buildingId,
  pose: row.pose ? { x: row.pose.x, y: row.pose.y, theta: row.pose.theta } : null,
  last_seen: row.lastSeenAt ? row.lastSeenAt.toISOString() : null,
});

// Behaviour §2 "sorted by name ascending": as a person reads a list, so "alpha" comes before "Bravo".
const byName = [asc(sql`lower(${robots.name})`), asc(robots.name), asc(robots.id)];

/** The caller's organization, and for a teleoperator the robots of their groups. */
function visibleToCaller(db: Executor, principal: Principal): SQL[] {
  const conditions: SQL[] = [eq(robots.orgId, principal.orgId)];
  if (!seesEverything(principal)) conditions.push(robotVisible(db, principal, robots.id));
  return conditions;
}

/**
 * One page of robots sorted by name, with the total. `everything` lists the whole organization whatever the
 * caller's groups (the admin variant; its route already demands a restricted role).
 */
export async function listRobots(
  db: Executor,
  principal: Principal,
  page: Page,
  everything = false,
): Promise<{ count: number; payload: StoredRobot[] }> {
  const where = and(...(everything ? [eq(robots.orgId, principal.orgId)] : visibleToCaller(db, principal)));
  const [rows, totals] = await Promise.all([
    db
      .select(robotColumns)
      .from(robots)
      .leftJoin(floors, eq(floors.id, robots.floorId))
      .where(where)
      .orderBy(...byName)
      .limit(page.limit)
      .offset(page.offset),
    db.select({ total: count() }).from(robots).where(where),
  ]);
  return { count: totals[0]?.total ?? 0, payload: rows.map(toRobot) };
}

/** Ids of the robots on a floor the caller may see; 404 when the floor is not of their organization. */
export async function robotsOnFloor(db: Executor, principal: Principal, floorId: string): Promise<string[]> {
  const [floor] = await db
    .select({ id: floors.id })
    .from(floors)
    .where(and(eq(floors.orgId, principal.orgId), eq(floors.id, floorId)));
  if (!floor) throw notFound('Floor');
  const rows = await db
    .select({ id: robots.id })
    .from(robots)
    .where(and(...visibleToCaller(db, principal), eq(robots.floorId, floorId)))
    .orderBy(...byName);
  return rows.map((row) => row.id);
}

export async function robotSummary(db: Executor, principal: Principal): Promise<RobotSummary> {
  // The same rules as toRobot: a robot not online is offline, a battery never reported is not low. The mode is
  // inlined, not a parameter, so the grouped expression is the selected one.
  const mode = sql<number>`case when ${robots.connectionState} = 'ONLINE' then ${robots.mode} else ${sql.raw(String(RobotMode.offline))} end`.mapWith(Number);
  const status = sql<string>`case when ${robots.connectionState} = 'ONLINE' then ${robots.status} else 'offline' end`.mapWith((value: unknown) => RobotStatus.parse(value));
  const rows = await db
    .select({
      mode,
      status,
      total: count(),
      charging: sql<number>`count(*) filter (where ${robots.chargingStatus} = 1)`.mapWith(Number),
      lowBattery: sql<number>`count(*) filter (where ${and(lt(robots.battery, LOW_BATTERY_PERCENT), isNotNull(robots.lastSeenAt))})`.mapWith(
        Number,
      ),
    })
    .from(robots)
    .where(and(...visibleToCaller(db, principal)))
    .groupBy(mode, status);
  const summary: RobotSummary = {
    total: 0,
    by_mode: { offline: 0, manual: 0, autonomous: 0, semi_autonomous: 0, maintenance: 0 },
    by_status: {},
    charging: 0,
    low_battery: 0,
  };
  const modeKey: Record<number, keyof RobotSummary['by_mode']> = {
    [RobotMode.offline]: 'offline',
    [RobotMode.manual]: 'manual',
    [RobotMode.autonomous]: 'autonomous',
    [RobotMode.semiAutonomous]: 'semi_autonomous',
    [RobotMode.maintenance]: 'maintenance',
  };
  for (const row of rows) {
    summary.total += row.total;
    const key = modeKey[row.mode];
    if (key) summary.by_mode[key] += row.total;
    summary.by_status[row.status] = (summary.by_status[row.status] ?? 0) + row.total;
    summary.charging += row.charging;
    summary.low_battery += row.lowBattery;
  }
  return summary;
}

export async function groupRobots(db: Executor, principal: Principal, groupId: string): Promise<StoredRobot[]> {
  await assertInOrg(db, 'Group', principal.orgId, [groupId]);
  const rows = await db
    .select(robotColumns)
    .from(robots)
    .innerJoin(robotGroups, eq(robotGroups.robotId, robots.id))
    .leftJoin(floors, eq(floors.id, robots.floorId))
    .where(and(eq(robots.orgId, principal.orgId), eq(robotGroups.groupId, groupId)))
    .orderBy(...byName);
  return rows.map(toRobot);
}

export async function addRobotsToGroup(db: Executor, principal: Principal, groupId: string, robotIds: readonly string[]) {
  await assertInOrg(db, 'Group', principal.orgId, [groupId]);
  const unique = await assertInOrg(db, 'Robot', principal.orgId, robotIds);
  await db
    .insert(robotGroups)
    .values(unique.map((robotId) => ({ robotId, groupId })))
    .onConflictDoNothing();
}

export async function removeRobotsFromGroup(
  db: Executor,
  principal: Principal,
  groupId: string,
  robotIds: readonly string[],
) {
  await assertInOrg(db, 'Group', principal.orgId, [groupId]);
  const unique = await assertInOrg(db, 'Robot', principal.orgId, robotIds);
  await db.delete(robotGroups).where(and(eq(robotGroups.groupId, groupId), inArray(robotGroups.robotId, unique)));
}
