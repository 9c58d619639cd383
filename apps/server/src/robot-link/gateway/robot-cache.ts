/**
 * The robots the gateway knows: each one's link as last heard (`Tracked`), by id and by VDA 5050 identity,
 * loaded from the robots table when a robot first speaks (or is first addressed).
 */
import { and, eq } from 'drizzle-orm';
import { Id, RobotMode, UvdActionType, type ConnectionState, type OperatingMode } from '@uvd/contracts';
import type { Config } from '../../config.ts';
import type { Db } from '../../db/client.ts';
import { robots } from '../../db/schema.ts';
import type { RobotWork } from '../events.ts';
import type { FleetRobot, RobotLink } from '../fleet.ts';
import type { RobotFields } from '../robot-fields.ts';

export interface Tracked {
  robot: FleetRobot;
  connection: ConnectionState;
  /** headerId of the last state applied in this connection session; reset when the robot reconnects. */
  lastHeaderId: number | undefined;
  /** When the last state (or ONLINE) arrived, ms since epoch; 0 if the robot was never heard from. */
  lastHeardAt: number;
  stale: boolean;
  operatingMode: OperatingMode | undefined;
  work: RobotWork | undefined;
  /** The fields as last published on the stream, and as last written to the row. */
  current: RobotFields;
  written: RobotFields;
  poseWrittenAt: number;
  seenWrittenAt: number;
  /** The row write in flight, and whether the fields changed again meanwhile (written after it). */
  writing: Promise<void> | undefined;
  writeAgain: boolean;
  /** Pings in flight: actionId → sent at (ms). */
  pings: Map<string, number>;
  headerIds: Record<'order' | 'instantActions', number>;
  /** uvd_ping, or the standard stateRequest for robots that refuse uvd_ping. */
  pingAction: string;
  lastNode: RobotLink['lastNode'];
}

/** A robot unknown to the table is looked up again after this long (it may have been added meanwhile). */
const UNKNOWN_ROBOT_RETRY_MS = 5000;

export const identityKey = (manufacturer: string, serialNumber: string): string => `${manufacturer}/${serialNumber}`;

type RobotRow = typeof robots.$inferSelect;

export interface RobotCache {
  /** Every robot known since start, by robot id. */
  readonly byId: ReadonlyMap<string, Tracked>;
  /** Starts tracking the robot of `row` (or returns it when tracked already). */
  track: (row: RobotRow) => Tracked;
  /** The robot of a VDA 5050 identity, from the table when not tracked yet; undefined when it is no robot. */
  lookup: (manufacturer: string, serialNumber: string) => Promise<Tracked | undefined>;
  /** The robot of `robotId`, from the table when not tracked yet. */
  trackedById: (robotId: string) => Promise<Tracked | undefined>;
  /** Whether the robot counts as online now (see `isOnline`). */
  isOnline: (tracked: Tracked) => boolean;
  /** What the rest of the server sees of the robot's link. */
  linkOf: (tracked: Tracked) => RobotLink;
}

export function createRobotCache(db: Db, timing: Config['fleet']): RobotCache {
  const byIdentity = new Map<string, Tracked>();
  const byId = new Map<string, Tracked>();
  const unknownUntil = new Map<string, number>();
  const loading = new Map<string, Promise<Tracked | undefined>>();

  const track = (row: RobotRow): Tracked => {
    const existing = byId.get(row.id);
    if (existing) return existing;
    // What the robots list shows of the row (robots/repository.ts), so the first message's events are the
    // changes a client sees: a robot not online has mode 0 and no signal, one never heard from no battery.
    const online = row.connectionState === 'ONLINE';
    const fields: RobotFields = {
      battery: row.lastSeenAt ? row.battery : null,
      chargingStatus: row.chargingStatus === 1 ? 1 : 0,
      mode: online ? row.mode : RobotMode.offline,
      status: online ? row.status : 'offline',
      pose: row.pose ?? null,
      floorId: row.floorId,
      errors: [],
      signal: online ? row.signal : -1,
      connectionState: row.connectionState,
    };
    const tracked: Tracked = {
      robot: { robotId: row.id, orgId: row.orgId, manufacturer: row.manufacturer, serialNumber: row.serialNumber },
      connection: online ? 'ONLINE' : row.connectionState === 'CONNECTIONBROKEN' ? 'CONNECTIONBROKEN' : 'OFFLINE',
      lastHeaderId: row.lastStateHeaderId ?? undefined,
      // Silence is counted from when the robot was last heard by any process, not from when this one looked.
      lastHeardAt: row.lastSeenAt?.getTime() ?? 0,
      stale: false,
      operatingMode: undefined,
      work: undefined,
      current: { ...fields },
      written: fields,
      poseWrittenAt: 0,
      seenWrittenAt: 0,
      writing: undefined,
      writeAgain: false,
      pings: new Map(),
      headerIds: { order: 0, instantActions: 0 },
      pingAction: UvdActionType.ping,
      lastNode: null,
    };
    byId.set(row.id, tracked);
    byIdentity.set(identityKey(row.manufacturer, row.serialNumber), tracked);
    return tracked;
  };

  const lookup = async (manufacturer: string, serialNumber: string): Promise<Tracked | undefined> => {
    const key = identityKey(manufacturer, serialNumber);
    const known = byIdentity.get(key);
    if (known) return known;
    if ((unknownUntil.get(key) ?? 0) > Date.now()) return undefined;
    let pending = loading.get(key);
    if (!pending) {
      pending = db
        .select()
        .from(robots)
        .where(and(eq(robots.manufacturer, manufacturer), eq(robots.serialNumber, serialNumber)))
        .then(([row]) => {
          if (row) return track(row);
          // Random identities on an open external broker must not grow the map without bound.
          if (unknownUntil.size >= 10_000) unknownUntil.clear();
          unknownUntil.set(key, Date.now() + UNKNOWN_ROBOT_RETRY_MS);
          return undefined;
        })
        .finally(() => loading.delete(key));
      loading.set(key, pending);
    }
    return pending;
  };

  const trackedById = async (robotId: string): Promise<Tracked | undefined> => {
    const known = byId.get(robotId);
    if (known) return known;
    if (!Id.safeParse(robotId).success) return undefined;
    const [row] = await db.select().from(robots).where(eq(robots.id, robotId));
    return row ? track(row) : undefined;
  };

  // The watchdog marks a silent robot offline within a tick; a command in between must not count on it (a row
  // left ONLINE under an external broker is tracked with the silence since it was last heard).
  const isOnline = (tracked: Tracked) => tracked.connection === 'ONLINE' && Date.now() - tracked.lastHeardAt < timing.offlineMs;

  const linkOfTracked = (tracked: Tracked): RobotLink => ({
    online: isOnline(tracked),
    mode: tracked.current.mode,
    stale: tracked.stale,
    lastHeardAt: tracked.lastHeardAt,
    pose: tracked.current.pose,
    floorId: tracked.current.floorId,
    battery: tracked.current.battery,
    errors: tracked.current.errors,
    lastNode: tracked.lastNode,
    work: tracked.work,
  });

  return { byId, track, lookup, trackedById, isOnline, linkOf: linkOfTracked };
}
