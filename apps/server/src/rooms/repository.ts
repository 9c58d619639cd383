/**
 * SQL of the rooms backend. Every query filters on the caller's organization; the visibility helpers further
 * limit a teleoperator to the rooms of their groups, and to the buildings and floors holding such rooms.
 */
import { and, asc, eq, inArray, ne, sql, type SQL } from 'drizzle-orm';
import type { Building, Floor, FloorMapMetadata, GroupRooms, Room, RoomReadiness } from '@uvd/contracts';
import type { Executor } from '../db/client.ts';
import { buildings, floors, groups, jobRooms, jobs, roomGroups, rooms } from '../db/schema.ts';
import type { Principal } from '../identity/principal.ts';
import { notFound } from '../lib/http-error.ts';
import { assertInOrg } from '../lib/org-scope.ts';
import { roomVisible, seesEverything, visibleRoomIds } from '../lib/visibility.ts';

export interface Page {
  offset: number;
  limit: number;
}

const roomColumns = {
  room_id: rooms.id,
  room_name: rooms.name,
  order_no: rooms.orderNo,
  dose: rooms.dose,
  floor_id: rooms.floorId,
  building_id: rooms.buildingId,
  ready_for_disinfection: rooms.readyForDisinfection,
};

// Floor first, then the floor's own order, so pages of a multi-floor list stay stable and grouped. Names sort
// case-insensitively, as a person reads a list.
const roomOrder = [asc(rooms.floorId), asc(rooms.orderNo), asc(sql`lower(${rooms.name})`), asc(rooms.id)];

/** A teleoperator sees a building or floor only when it holds a room of their groups. */
const holdsVisibleRoom = (db: Executor, principal: Principal, column: typeof rooms.buildingId | typeof rooms.floorId) =>
  db.selectDistinct({ id: column }).from(rooms).where(inArray(rooms.id, visibleRoomIds(db, principal)));

export async function listBuildings(db: Executor, principal: Principal, page: Page): Promise<Building[]> {
  const conditions: SQL[] = [eq(buildings.orgId, principal.orgId)];
  if (!seesEverything(principal)) conditions.push(inArray(buildings.id, holdsVisibleRoom(db, principal, rooms.buildingId)));
  return db
    .select({ building_id: buildings.id, building_name: buildings.name })
    .from(buildings)
    .where(and(...conditions))
    .orderBy(asc(sql`lower(${buildings.name})`), asc(buildings.id))
    .limit(page.limit)
    .offset(page.offset);
}

async function assertBuildingInOrg(db: Executor, principal: Principal, buildingId: string): Promise<void> {
  const [row] = await db
    .select({ id: buildings.id })
    .from(buildings)
    .where(and(eq(buildings.orgId, principal.orgId), eq(buildings.id, buildingId)));
  if (!row) throw notFound('Building');
}

export async function listFloors(
  db: Executor,
  principal: Principal,
  filter: { buildingId: string | undefined } & Page,
): Promise<Floor[]> {
  const conditions: SQL[] = [eq(floors.orgId, principal.orgId)];
  if (filter.buildingId) {
    await assertBuildingInOrg(db, principal, filter.buildingId);
    conditions.push(eq(floors.buildingId, filter.buildingId));
  }
  if (!seesEverything(principal)) conditions.push(inArray(floors.id, holdsVisibleRoom(db, principal, rooms.floorId)));
  return db
    .select({ floor_id: floors.id, floor_name: floors.name, building_id: floors.buildingId, level: floors.level })
    .from(floors)
    .where(and(...conditions))
    .orderBy(asc(floors.level), asc(sql`lower(${floors.name})`), asc(floors.id))
    .limit(filter.limit)
    .offset(filter.offset);
}

/** The floor if the caller may see it, else 404 (another organization's floor, or none of the caller's rooms on it). */
async function visibleFloor(db: Executor, principal: Principal, floorId: string) {
  const conditions: SQL[] = [eq(floors.orgId, principal.orgId), eq(floors.id, floorId)];
  if (!seesEverything(principal)) conditions.push(inArray(floors.id, holdsVisibleRoom(db, principal, rooms.floorId)));
  const [floor] = await db
    .select({ id: floors.id, mapSvg: floors.mapSvg, mapMetadata: floors.mapMetadata })
    .from(floors)
    .where(and(...conditions));
  if (!floor) throw notFound('Floor');
  return floor;
}

export async function floorMapSvg(db: Executor, principal: Principal, floorId: string): Promise<string> {
  const floor = await visibleFloor(db, principal, floorId);
  if (floor.mapSvg === null) throw notFound('Floor map');
  return floor.mapSvg;
}

export async function floorMapMetadata(db: Executor, principal: Principal, floorId: string): Promise<FloorMapMetadata> {
  const floor = await visibleFloor(db, principal, floorId);
  if (!floor.mapMetadata) throw notFound('Floor map');
  const mapRooms = await db
    .select({ room_id: rooms.id, room_name: rooms.name, polygon: rooms.polygon, entry_point: rooms.entryPoint })
    .from(rooms)
    .where(and(eq(rooms.orgId, principal.orgId), eq(rooms.floorId, floorId), roomVisible(db, principal, rooms.id)))
    .orderBy(asc(rooms.orderNo), asc(sql`lower(${rooms.name})`), asc(rooms.id));
  const { resolution, origin, width, height } = floor.mapMetadata;
  return { floor_id: floor.id, resolution, origin: { x: origin.x, y: origin.y }, width, height, rooms: mapRooms };
}

export async function getRoom(db: Executor, principal: Principal, roomId: string): Promise<Room> {
  const [room] = await db
    .select(roomColumns)
    .from(rooms)
    .where(and(eq(rooms.orgId, principal.orgId), eq(rooms.id, roomId), roomVisible(db, principal, rooms.id)));
  if (!room) throw notFound('Room');
  return room;
}

/** 404 unless every id names a floor of the caller's organization. */
async function assertFloorsInOrg(db: Executor, principal: Principal, floorIds: readonly string[]): Promise<void> {
  const unique = [...new Set(floorIds)];
  const found = await db
    .select({ id: floors.id })
    .from(floors)
    .where(and(eq(floors.orgId, principal.orgId), inArray(floors.id, unique)));
  if (found.length !== unique.length) throw notFound('Floor');
}

export async function listRooms(
  db: Executor,
  principal: Principal,
  filter: { floorIds: readonly string[] } & Page,
): Promise<Room[]> {
  const conditions: SQL[] = [eq(rooms.orgId, principal.orgId)];
  if (filter.floorIds.length > 0) {
    await assertFloorsInOrg(db, principal, filter.floorIds);
    conditions.push(inArray(rooms.floorId, [...filter.floorIds]));
  }
  if (!seesEverything(principal)) conditions.push(roomVisible(db, principal, rooms.id));
  return db
    .select(roomColumns)
    .from(rooms)
    .where(and(...conditions))
    .orderBy(...roomOrder)
    .limit(filter.limit)
    .offset(filter.offset);
}

export async function listGroupRooms(
  db: Executor,
  principal: Principal,
  filter: { groupIds: readonly string[] } & Page,
): Promise<GroupRooms[]> {
  const unique = [...new Set(filter.groupIds)];
  const found = await db
    .select({ id: groups.id, name: groups.name })
    .from(groups)
    .where(and(eq(groups.orgId, principal.orgId), inArray(groups.id, unique)));
  if (found.length !== unique.length) throw notFound('Group');
  const names = new Map(found.map((group) => [group.id, group.name]));
  // In the order asked, since the client reads the first element (behaviour §7).
  return Promise.all(
    unique.map(async (groupId) => ({
      groupId,
      group: names.get(groupId) ?? '',
      rooms: await db
        .select(roomColumns)
        .from(rooms)
        .innerJoin(roomGroups, eq(roomGroups.roomId, rooms.id))
        .where(and(eq(rooms.orgId, principal.orgId), eq(roomGroups.groupId, groupId)))
        .orderBy(...roomOrder)
        .limit(filter.limit)
        .offset(filter.offset),
    })),
  );
}

/** 404 unless the caller may see every listed room. */
async function assertRoomsVisible(db: Executor, principal: Principal, roomIds: readonly string[]): Promise<void> {
  const unique = [...new Set(roomIds)];
  const found = await db
    .select({ id: rooms.id })
    .from(rooms)
    .where(and(eq(rooms.orgId, principal.orgId), inArray(rooms.id, unique), roomVisible(db, principal, rooms.id)));
  if (found.length !== unique.length) throw notFound('Room');
}

export async function roomReadiness(db: Executor, principal: Principal, roomIds: readonly string[]): Promise<RoomReadiness[]> {
  await assertRoomsVisible(db, principal, roomIds);
  const rows = await db
    .select({ room_id: rooms.id, ready_for_disinfection: rooms.readyForDisinfection })
    .from(rooms)
    .where(and(eq(rooms.orgId, principal.orgId), inArray(rooms.id, [...roomIds])));
  const byId = new Map(rows.map((row) => [row.room_id, row]));
  // In the order asked, once per room.
  return [...new Set(roomIds)].flatMap((id) => byId.get(id) ?? []);
}

/**
 * Sets readiness of rooms; run inside a transaction so an unknown room leaves every room as it was. Returns every
 * listed room's readiness, and the rooms it changed (a room already so is not), decided under the rows' locks.
 */
export async function setRoomReadiness(
  db: Executor,
  principal: Principal,
  changes: readonly RoomReadiness[],
): Promise<{ readiness: RoomReadiness[]; changed: RoomReadiness[] }> {
  const roomIds = changes.map((change) => change.room_id);
  await assertRoomsVisible(db, principal, roomIds);
  const changed: RoomReadiness[] = [];
  for (const ready of [true, false]) {
    const ids = changes.filter((change) => change.ready_for_disinfection === ready).map((change) => change.room_id);
    if (ids.length === 0) continue;
    const rows = await db
      .update(rooms)
      .set({ readyForDisinfection: ready })
      .where(and(eq(rooms.orgId, principal.orgId), inArray(rooms.id, ids), ne(rooms.readyForDisinfection, ready)))
      .returning({ id: rooms.id });
    changed.push(...rows.map((row) => ({ room_id: row.id, ready_for_disinfection: ready })));
  }
  return { readiness: await roomReadiness(db, principal, roomIds), changed };
}

/** Jobs not yet performed that visit any of `roomIds`: their rooms' readiness is part of what the job list shows. */
export async function pendingJobsVisiting(db: Executor, principal: Principal, roomIds: readonly string[]) {
  return db
    .select()
    .from(jobs)
    .where(
      and(
        eq(jobs.orgId, principal.orgId),
        eq(jobs.performed, false),
        inArray(jobs.id, db.selectDistinct({ id: jobRooms.jobId }).from(jobRooms).where(inArray(jobRooms.roomId, [...roomIds]))),
      ),
    );
}

export async function addRoomsToGroup(db: Executor, principal: Principal, groupId: string, roomIds: readonly string[]) {
  await assertInOrg(db, 'Group', principal.orgId, [groupId]);
  const unique = await assertInOrg(db, 'Room', principal.orgId, roomIds);
  await db
    .insert(roomGroups)
    .values(unique.map((roomId) => ({ roomId, groupId })))
    .onConflictDoNothing();
}

export async function removeRoomsFromGroup(db: Executor, principal: Principal, groupId: string, roomIds: readonly string[]) {
  await assertInOrg(db, 'Group', principal.orgId, [groupId]);
  const unique = await assertInOrg(db, 'Room', principal.orgId, roomIds);
  await db.delete(roomGroups).where(and(eq(roomGroups.groupId, groupId), inArray(roomGroups.roomId, unique)));
}
