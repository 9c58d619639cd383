/**
 * Site data for API tests: a building with floors, rooms on every floor and robots on the first floor.
 * Shared by the modules that need a site (jobs, logs, rooms, robots); keep the API stable.
 */
import { randomBytes } from 'node:crypto';
import type { Executor } from '../db/client.ts';
import { buildings, floors, robotGroups, robots, roomGroups, rooms } from '../db/schema.ts';

export interface SiteOptions {
  /** Number of floors (default 1). */
  floors?: number;
  /** Rooms on every floor (default 3). */
  roomsPerFloor?: number;
  /** Robots standing on the first floor (default 1). */
  robots?: number;
  /** When given, every room and robot of the site is put in these groups (teleoperator visibility). */
  groupIds?: string[];
}

export interface SiteFloor {
  id: string;
  roomIds: string[];
}

export interface Site {
  buildingId: string;
  floors: SiteFloor[];
  robotIds: string[];
}

const unique = () => randomBytes(4).toString('hex');

export async function createSite(db: Executor, orgId: string, options: SiteOptions = {}): Promise<Site> {
  const floorCount = options.floors ?? 1;
  const roomsPerFloor = options.roomsPerFloor ?? 3;
  const robotCount = options.robots ?? 1;
  const groupIds = options.groupIds ?? [];
  const tag = unique();

  const [building] = await db
    .insert(buildings)
    .values({ orgId, name: `Building ${tag}` })
    .returning({ id: buildings.id });
  if (!building) throw new Error('building not created');

  const siteFloors: SiteFloor[] = [];
  for (let level = 0; level < floorCount; level++) {
    const [floor] = await db
      .insert(floors)
      .values({ orgId, buildingId: building.id, name: `Floor ${level + 1}`, level })
      .returning({ id: floors.id });
    if (!floor) throw new Error('floor not created');
    const roomIds: string[] = [];
    if (roomsPerFloor > 0) {
      const inserted = await db
        .insert(rooms)
        .values(
          Array.from({ length: roomsPerFloor }, (_, index) => ({
            orgId,
            buildingId: building.id,
            floorId: floor.id,
            name: `Room ${level + 1}.${index + 1}`,
            orderNo: index,
            polygon: [
              { x: index * 5, y: 0 },
              { x: index * 5 + 4, y: 0 },
              { x: index * 5 + 4, y: 4 },
              { x: index * 5, y: 4 },
            ],
            entryPoint: { x: index * 5 + 2, y: 2, theta: 0 },
          })),
        )
        .returning({ id: rooms.id });
      roomIds.push(...inserted.map((row) => row.id));
    }
    siteFloors.push({ id: floor.id, roomIds });
  }

  const firstFloorId = siteFloors[0]?.id ?? null;
  const robotIds: string[] = [];
  if (robotCount > 0) {
    const inserted = await db
      .insert(robots)
      .values(
        Array.from({ length: robotCount }, (_, index) => ({
          orgId,
          name: `Robot ${index + 1} ${tag}`,
          serialNumber: `SN-${tag}-${index + 1}`,
          floorId: firstFloorId,
        })),
      )
      .returning({ id: robots.id });
    robotIds.push(...inserted.map((row) => row.id));
  }

  const allRoomIds = siteFloors.flatMap((floor) => floor.roomIds);
  for (const groupId of groupIds) {
    if (allRoomIds.length > 0) await db.insert(roomGroups).values(allRoomIds.map((roomId) => ({ roomId, groupId })));
    if (robotIds.length > 0) await db.insert(robotGroups).values(robotIds.map((robotId) => ({ robotId, groupId })));
  }

  return { buildingId: building.id, floors: siteFloors, robotIds };
}
