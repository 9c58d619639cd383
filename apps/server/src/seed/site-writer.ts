/**
 * Writes a site into an organization, matching buildings, floors and rooms by name so that writing the same
 * site again updates it in place. Rooms missing from the site are kept: jobs and logs refer to them.
 */
import { and, eq, inArray, notInArray } from 'drizzle-orm';
import { FINAL_DELIVERY_STATUSES } from '@uvd/contracts';
import type { Executor } from '../db/client.ts';
import { buildings, deliveries, floors, jobs, robots, rooms } from '../db/schema.ts';
import { SiteImportError, type SiteProblem } from './site-file.ts';
import type { Site, SiteRobot } from './site.ts';

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
  robots: WriteCounts;
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
    robots: { created: 0, updated: 0 },
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
  if (site.robots && site.robots.length > 0) written.robots = await writeRobots(tx, orgId, site.robots, written.floorIds);
  return written;
}

/**
 * Registers the site's robots or updates them (name, kind, floor, home), matched by manufacturer and serial number,
 * the identity they log in to the broker with. A serial number of another organization's robot, and a new kind for
 * a robot with work not finished (a Scheduled or Running job, an open delivery), are refused: the whole import
 * rolls back. MQTT logins are not part of the site: an admin makes them in the robot admin screen.
 */
async function writeRobots(tx: Executor, orgId: string, siteRobots: readonly SiteRobot[], floorIds: Map<string, string>): Promise<WriteCounts> {
  const counts: WriteCounts = { created: 0, updated: 0 };
  const problems: SiteProblem[] = [];
  const existing = await tx
    .select({ id: robots.id, orgId: robots.orgId, kind: robots.kind, manufacturer: robots.manufacturer, serialNumber: robots.serialNumber })
    .from(robots)
    .where(inArray(robots.serialNumber, siteRobots.map((robot) => robot.serialNumber)));
  for (const [index, robot] of siteRobots.entries()) {
    const floorId = floorIds.get(siteKey(robot.building, robot.floor));
    if (!floorId) throw new Error(`floor ${robot.floor} of robot ${robot.name} was not written`);
    const row = existing.find((candidate) => candidate.manufacturer === robot.manufacturer && candidate.serialNumber === robot.serialNumber);
    const fields = { name: robot.name, kind: robot.kind, floorId, ...(robot.home ? { home: robot.home } : {}) };
    if (!row) {
      await tx.insert(robots).values({ orgId, manufacturer: robot.manufacturer, serialNumber: robot.serialNumber, ...fields, pose: robot.home });
      counts.created += 1;
      continue;
    }
    if (row.orgId !== orgId) {
      problems.push({ path: `robots[${index}].serial_number`, message: `robot "${robot.name}": ${robot.manufacturer}/${robot.serialNumber} is registered in another organization` });
      continue;
    }
    if (row.kind !== robot.kind && (await hasOpenWork(tx, row.id))) {
      problems.push({
        path: `robots[${index}].kind`,
        message: `robot "${robot.name}" is ${row.kind} and has work not finished (a scheduled or running job, an open delivery); finish or cancel it before making it ${robot.kind}`,
      });
      continue;
    }
    await tx.update(robots).set(fields).where(eq(robots.id, row.id));
    counts.updated += 1;
  }
  if (problems.length > 0) throw new SiteImportError('site file', problems);
  return counts;
}

async function hasOpenWork(tx: Executor, robotId: string): Promise<boolean> {
  const [job] = await tx
    .select({ id: jobs.id })
    .from(jobs)
    .where(and(eq(jobs.robotId, robotId), inArray(jobs.status, ['Scheduled', 'Running'])))
    .limit(1);
  if (job) return true;
  const [delivery] = await tx
    .select({ id: deliveries.id })
    .from(deliveries)
    .where(and(eq(deliveries.robotId, robotId), notInArray(deliveries.status, [...FINAL_DELIVERY_STATUSES])))
    .limit(1);
  return delivery !== undefined;
}
