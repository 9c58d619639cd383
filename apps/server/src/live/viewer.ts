/**
 * What one stream connection's caller may see, cached for the life of the connection. Checking visibility
 * with a query per event would cost every connection a round trip per event of its organization; instead a
 * teleoperator's robot set is read once and again when it is older than the refresh interval, so a change of
 * group membership reaches open streams within that interval.
 */
import type { Executor } from '../db/client.ts';
import type { Principal } from '../identity/principal.ts';
import { seesEverything, visibleRobotIds } from '../lib/visibility.ts';

export interface Viewer {
  readonly principal: Principal;
  /** True for the restricted roles, who see everything of their organization. */
  readonly seesEverything: boolean;
  /** Whether the caller may see this robot of their organization (and the jobs, logs and actions of it). */
  canSeeRobot(robotId: string): Promise<boolean>;
}

export function createViewer(db: Executor, principal: Principal, refreshMs: number, now: () => number = Date.now): Viewer {
  const everything = seesEverything(principal);
  let robots: ReadonlySet<string> | undefined;
  let loadedAt = 0;
  let loading: Promise<ReadonlySet<string>> | undefined;

  const visibleRobots = async (): Promise<ReadonlySet<string>> => {
    if (robots && now() - loadedAt < refreshMs) return robots;
    // Concurrent checks share one read.
    loading ??= visibleRobotIds(db, principal)
      .then((rows) => {
        robots = new Set(rows.map((row) => row.id));
        loadedAt = now();
        return robots;
      })
      .finally(() => {
        loading = undefined;
      });
    return loading;
  };

  return {
    principal,
    seesEverything: everything,
    async canSeeRobot(robotId) {
      if (everything) return true;
      return (await visibleRobots()).has(robotId);
    },
  };
}
