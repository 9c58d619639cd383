/** Extra site data for the rooms and robots tests: floor plans and group memberships. */
import { eq } from 'drizzle-orm';
import type { Executor } from '../db/client.ts';
import { floors, robotGroups, roomGroups, type MapMetadata } from '../db/schema.ts';

export const TEST_MAP_METADATA: MapMetadata = { resolution: 0.05, origin: { x: -1, y: -2 }, width: 400, height: 200 };

/** Gives a floor an SVG plan and its metadata; returns the SVG stored. */
export async function addFloorMap(db: Executor, floorId: string, metadata: MapMetadata = TEST_MAP_METADATA): Promise<string> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${metadata.width} ${metadata.height}"><rect id="${floorId}" width="10" height="10"/></svg>`;
  await db.update(floors).set({ mapSvg: svg, mapMetadata: metadata }).where(eq(floors.id, floorId));
  return svg;
}

/** Puts rooms in a group (teleoperator visibility). */
export async function putRoomsInGroup(db: Executor, groupId: string, roomIds: readonly string[]): Promise<void> {
  if (roomIds.length > 0) await db.insert(roomGroups).values(roomIds.map((roomId) => ({ roomId, groupId })));
}

/** Puts robots in a group (teleoperator visibility). */
export async function putRobotsInGroup(db: Executor, groupId: string, robotIds: readonly string[]): Promise<void> {
  if (robotIds.length > 0) await db.insert(robotGroups).values(robotIds.map((robotId) => ({ robotId, groupId })));
}
