/** Floors per organization, so a state's mapId is only taken when it names a floor of the robot's organization. */
import { eq } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { floors } from '../../db/schema.ts';

/** An organization's floors are read again after this long when a state names a floor not among them. */
const FLOOR_CACHE_MS = 5000;

/** The floor `mapId` names in `orgId`: undefined when no mapId was reported, null when it is no floor of the organization. */
export type FloorOf = (orgId: string, mapId: string | undefined) => Promise<string | null | undefined>;

export function createFloorCache(db: Db): FloorOf {
  const floorCache = new Map<string, { ids: Set<string>; loadedAt: number }>();
  // One read per organization at a time: every robot reporting a map that is no floor used to read the floors
  // again once the cache was older than FLOOR_CACHE_MS, hundreds of reads a second at 1000 robots.
  const floorLoads = new Map<string, Promise<{ ids: Set<string>; loadedAt: number }>>();
  const loadFloors = (orgId: string) => {
    let load = floorLoads.get(orgId);
    if (!load) {
      load = db
        .select({ id: floors.id })
        .from(floors)
        .where(eq(floors.orgId, orgId))
        .then((rows) => {
          const entry = { ids: new Set(rows.map((row) => row.id)), loadedAt: Date.now() };
          floorCache.set(orgId, entry);
          return entry;
        })
        .finally(() => floorLoads.delete(orgId));
      floorLoads.set(orgId, load);
    }
    return load;
  };
  const floorOf = async (orgId: string, mapId: string | undefined): Promise<string | null | undefined> => {
    if (mapId === undefined) return undefined;
    let entry = floorCache.get(orgId);
    if (!entry || (!entry.ids.has(mapId) && Date.now() - entry.loadedAt > FLOOR_CACHE_MS)) entry = await loadFloors(orgId);
    return entry.ids.has(mapId) ? mapId : null;
  };
  return floorOf;
}
