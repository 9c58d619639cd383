/**
 * Writes a site into an organization, matching buildings, floors and rooms by name so that writing the same
 * site again updates it in place. Rooms missing from the site are kept: jobs and logs refer to them.
 */
import { eq } from 'drizzle-orm';
import type { Executor } from '../db/client.ts';
import { buildings, floors, rooms } from '../db/schema.ts';
import type { Site } from './site.ts';

export interface WriteCounts {
  created: number;
  updated: number;
}

export interface WrittenSite {
  /** Building id by building name. */
  buildingIds: Map<string, string>;
  /** Floor id by `siteKey(building, floor)`. */
  floorIds: Map<string, string>;
  /** Room id by `siteKey(building, floor, room)`. */
  roomIds: Map<string, string>;
  buildings: WriteCounts;
  floors: WriteCounts;
  rooms: WriteCounts;
}

/** Names may hold any character but NUL, so NUL joins them into a key that cannot collide. */
export const siteKey = (...names: string[]): string => names.join('\u0000');

export async function writeSite(tx: Executor, orgId: string, site: Site): Promise<WrittenSite> {
  const [existingBuildings, existingFloors, existingRooms] = await Promise.all([
    tx.select({ id: buildings.id, name: buildings.name }).from(buildings).where(eq(buildings.orgId, orgId)),
    tx.select({ id: floors.id, name: floors.name, buildingId: floors.buildingId }).from(floors).where(eq(floors.orgId, orgId)),
    tx.select({ id: rooms.id, name: rooms.name, floorId: rooms.floorId }).from(rooms).where(eq(rooms.orgId, orgId)),
  ]);
  // Earlier rows win when a name was duplicated by hand: the importer never adds a second one.
  const firstBy = <T extends { id: string }>(rows: T[], key: (row: T) => string) => {
    const map = new Map<string, string>();
    for (const row of rows) if (!map.has(key(row))) map.set(key(row), row.id);
    return map;
  };
  const buildingByName = firstBy(existingBuildings, (row) => row.name);
  const floorByName = firstBy(existingFloors, (row) => siteKey(row.buildingId, row.name));
  const roomByName = firstBy(existingRooms, (row) => siteKey(row.floorId, row.name));

  const written: WrittenSite = {
    buildingIds: new Map(),
    floorIds: new Map(),
    roomIds: new Map(),
    buildings: { created: 0, updated: 0 },
    floors: { created: 0, updated: 0 },
    rooms: { created: 0, updated: 0 },
  };

  for (const building of site.buildings) {
    let buildingId = buildingByName.get(building.name);
    if (buildingId) written.buildings.updated += 1;
    else {
      const [row] = await tx.insert(buildings).values({ orgId, name: building.name }).returning({ id: buildings.id });
      if (!row) throw new Error(`building ${building.name} was not created`);
      buildingId = row.id;
      written.buildings.created += 1;
    }
    written.buildingIds.set(building.name, buildingId);

    for (const floor of building.floors) {
      const plan = floor.plan ? { mapSvg: floor.plan.svg, mapMetadata: floor.plan.metadata } : {};
      let floorId = floorByName.get(siteKey(buildingId, floor.name));
      if (floorId) {
        await tx
          .update(floors)
          .set({ level: floor.level, ...plan })
          .where(eq(floors.id, floorId));
        written.floors.updated += 1;
      } else {
        const [row] = await tx
          .insert(floors)
          .values({ orgId, buildingId, name: floor.name, level: floor.level, ...plan })
          .returning({ id: floors.id });
        if (!row) throw new Error(`floor ${floor.name} was not created`);
        floorId = row.id;
        written.floors.created += 1;
      }
      written.floorIds.set(siteKey(building.name, floor.name), floorId);

      const fields = floor.rooms.map((room, orderNo) => ({
        name: room.name,
        orderNo,
        dose: room.dose,
        polygon: room.polygon,
        entryPoint: room.entryPoint,
      }));
      const fresh = fields.filter((room) => !roomByName.has(siteKey(floorId, room.name)));
      for (const room of fields) {
        const roomId = roomByName.get(siteKey(floorId, room.name));
        if (!roomId) continue;
        await tx.update(rooms).set(room).where(eq(rooms.id, roomId));
        written.roomIds.set(siteKey(building.name, floor.name, room.name), roomId);
        written.rooms.updated += 1;
      }
      if (fresh.length > 0) {
        const inserted = await tx
          .insert(rooms)
          .values(fresh.map((room) => ({ orgId, buildingId, floorId, ...room })))
          .returning({ id: rooms.id, name: rooms.name });
        for (const row of inserted) written.roomIds.set(siteKey(building.name, floor.name, row.name), row.id);
        written.rooms.created += inserted.length;
      }
    }
  }
  return written;
}
