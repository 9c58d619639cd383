/**
 * What one stream connection's caller may see, cached for the life of the connection. Checking visibility
 * with a query per event would cost every connection a round trip per event of its organization; instead a
 * teleoperator's robot set is read once and again when it is older than the refresh interval, so a change of
 * group membership reaches open streams within that interval.
 */
import type { Executor } from '../db/client.ts';
import type { Principal } from '../identity/principal.ts';
import { seesEverything, visibleRobotIds, visibleRoomIds } from '../lib/visibility.ts';

export interface Viewer {
  readonly principal: Principal;
  /** True for the restricted roles, who see everything of their organization. */
  readonly seesEverything: boolean;
  /** Whether the caller may see this robot of their organization (and the jobs, logs and actions of it). */
  canSeeRobot(robotId: string): Promise<boolean>;
  /** Whether the caller may see this room of their organization (a delivery's pickup or drop-off). */
  canSeeRoom(roomId: string): Promise<boolean>;
}

/** A set of ids read once and again when older than `refreshMs`; concurrent checks share one read. */
function cachedIds(read: () => Promise<{ id: string }[]>, refreshMs: number, now: () => number): () => Promise<ReadonlySet<string>> {
  let ids: ReadonlySet<string> | undefined;
  let loadedAt = 0;
  let loading: Promise<ReadonlySet<string>> | undefined;
  return async () => {
    if (ids && now() - loadedAt < refreshMs) return ids;
    loading ??= read()
      .then((rows) => {
        ids = new Set(rows.map((row) => row.id));
        loadedAt = now();
        return ids;
      })
      .finally(() => {
        loading = undefined;
      });
    return loading;
  };
}

export function createViewer(db: Executor, principal: Principal, refreshMs: number, now: () => number = Date.now): Viewer {
  const everything = seesEverything(principal);
  const visibleRobots = cachedIds(() => visibleRobotIds(db, principal), refreshMs, now);
  const visibleRooms = cachedIds(() => visibleRoomIds(db, principal), refreshMs, now);

  return {
    principal,
    seesEverything: everything,
    async canSeeRobot(robotId) {
      if (everything) return true;
      return (await visibleRobots()).has(robotId);
    },
    async canSeeRoom(roomId) {
      if (everything) return true;
      return (await visibleRooms()).has(roomId);
    },
  };
}
