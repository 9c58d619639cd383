/**
 * The fleet gateway: one MQTT client that reads every robot's state, connection and factsheet, validates
 * each message, keeps the robots table current and publishes robot_update events; and that sends orders
 * and instant actions. With no MQTT_URL it first starts the embedded broker.
 */
import { randomBytes } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import mqtt, { type MqttClient } from 'mqtt';
import type {
  RobotUpdate} from '@uvd/contracts';
import {
  ConnectionMessage,
  FactsheetMessage,
  Id,
  modeFromOperatingMode,
  RobotMode,
  StateMessage,
  UvdActionType,
  VDA_VERSION,
  vdaTopic,
  type ConnectionState,
  type InstantActionsMessage,
  type OperatingMode,
  type VdaTopicName,
} from '@uvd/contracts';
import { floors, robots } from '../db/schema.ts';
import { GATEWAY_CLIENT_ID_PREFIX, parseVdaTopic, startEmbeddedBroker, type EmbeddedBroker } from './broker.ts';
import { readState, type RobotWork } from './events.ts';
import type { ConnectionListener, Fleet, FleetDependencies, FleetLogger, FleetRobot, FleetStats, RobotLink, StateEventListener, StateListener } from './fleet.ts';
import { needsWrite, POSE_WRITE_MS, updatesBetween, type RobotFields } from './robot-fields.ts';
import { createRobotRowWriter } from './robot-rows.ts';

interface Tracked {
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

const PING_ID_PREFIX = 'ping-';

/** The ping an error refers to: a robot that does not know an instant action reports an error naming its id. */
const pingOfError = (error: StateMessage['errors'][number]): string | undefined =>
  error.errorReferences?.find((ref) => ref.referenceKey === 'actionId' && ref.referenceValue.startsWith(PING_ID_PREFIX))?.referenceValue;

/** A robot unknown to the table is looked up again after this long (it may have been added meanwhile). */
const UNKNOWN_ROBOT_RETRY_MS = 5000;
/** Each drop reason is logged at most once per this interval, with the count since. */
const DROP_LOG_INTERVAL_MS = 10_000;
const WATCHDOG_MS = 500;
const FLOOR_CACHE_MS = 5000;

const consoleLogger = (level: string): FleetLogger => {
  const quiet = level === 'silent' || level === 'fatal' || level === 'error';
  return {
    warn: (data, message) => {
      if (!quiet) console.warn(message, data);
    },
    info: (data, message) => {
      if (level === 'info' || level === 'debug' || level === 'trace') console.info(message, data);
    },
  };
};

const decodeJson = (payload: Buffer): { ok: true; value: unknown } | { ok: false } => {
  try {
    return { ok: true, value: JSON.parse(payload.toString('utf8')) as unknown };
  } catch {
    return { ok: false };
  }
};

/** Starts the fleet link (the embedded broker when no MQTT_URL is set) and the gateway. */
export async function createFleet(deps: FleetDependencies): Promise<Fleet> {
  const { config, database, bus } = deps;
  const db = database.db;
  const log = deps.logger ?? consoleLogger(config.logLevel);
  const timing = config.fleet;

  let broker: EmbeddedBroker | undefined;
  if (!config.mqttUrl) {
    // No robot is connected to a broker that is only starting: rows the previous run left ONLINE are not true
    // any more, and a robot is online again once it speaks (its last battery, status and pose stay shown).
    await db
      .update(robots)
      .set({ connectionState: 'OFFLINE', mode: RobotMode.offline, status: 'offline', signal: -1 })
      .where(eq(robots.connectionState, 'ONLINE'));
    broker = await startEmbeddedBroker({ db, host: config.mqttHost, port: config.mqttPort });
  }
  const brokerUrl = config.mqttUrl ?? broker?.url ?? '';

  const stats: FleetStats = { accepted: 0, malformed: 0, invalid: 0, unknownRobot: 0, spoofed: 0, duplicate: 0 };
  const dropLog = new Map<string, { loggedAt: number; since: number }>();
  const drop = (reason: Exclude<keyof FleetStats, 'accepted'>, topic: string, detail?: string) => {
    stats[reason]++;
    const now = Date.now();
    const entry = dropLog.get(reason) ?? { loggedAt: 0, since: 0 };
    entry.since++;
    if (now - entry.loggedAt >= DROP_LOG_INTERVAL_MS) {
      log.warn({ reason, topic, detail, dropped: entry.since }, 'fleet gateway dropped MQTT messages');
      entry.loggedAt = now;
      entry.since = 0;
    }
    dropLog.set(reason, entry);
  };

  // ---------------------------------------------------------------- robots known to the gateway
  const byIdentity = new Map<string, Tracked>();
  const byId = new Map<string, Tracked>();
  const unknownUntil = new Map<string, number>();
  const loading = new Map<string, Promise<Tracked | undefined>>();
  const identityKey = (manufacturer: string, serialNumber: string) => `${manufacturer}/${serialNumber}`;

  type RobotRow = typeof robots.$inferSelect;
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

  // Floors per organization, so a state's mapId is only taken when it names a floor of the robot's organization.
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

  // ---------------------------------------------------------------- applying what robots report
  const publishUpdate = (tracked: Tracked, update: RobotUpdate) => {
    bus.publishTransient({ orgId: tracked.robot.orgId, stream: 'robots', key: tracked.robot.robotId, type: 'robot_update', payload: update });
  };

  const rows = createRobotRowWriter(database);
  /** Writes the robot's current fields to its row; one write at a time per robot, the latest fields last. */
  const writeRow = (tracked: Tracked): void => {
    if (tracked.writing) {
      tracked.writeAgain = true;
      return;
    }
    const run = async () => {
      for (;;) {
        const now = Date.now();
        const next = tracked.current;
        const poseDue = now - tracked.poseWrittenAt >= POSE_WRITE_MS || next.floorId !== tracked.written.floorId;
        const pose = poseDue ? next.pose : tracked.written.pose;
        try {
          await rows.write(tracked.robot.robotId, {
            ...next,
            battery: next.battery ?? undefined,
            pose,
            lastStateHeaderId: tracked.lastHeaderId ?? null,
            lastSeenAt: tracked.lastHeardAt > 0 ? new Date(tracked.lastHeardAt) : null,
          });
          tracked.written = { ...next, pose };
          if (poseDue) tracked.poseWrittenAt = now;
          tracked.seenWrittenAt = now;
        } catch (error) {
          log.warn({ err: error, robotId: tracked.robot.robotId }, 'fleet gateway could not write a robot row');
        }
        // Decided in the same step as the end, so a change after it starts a new write.
        if (!tracked.writeAgain) {
          tracked.writing = undefined;
          return;
        }
        tracked.writeAgain = false;
      }
    };
    tracked.writing = run();
  };

  /**
   * Moves the robot to `next`: events for what changed at once, a row write when it matters. The write is not
   * awaited: the robot's next message does not wait for the database (a busy database, job transactions), and
   * writes of one robot never overlap, the last one carrying its latest fields.
   */
  const commit = (tracked: Tracked, next: RobotFields, now: number, force = false): void => {
    for (const update of updatesBetween(tracked.robot.robotId, tracked.current, next)) publishUpdate(tracked, update);
    tracked.current = next;
    const since = { poseMs: now - tracked.poseWrittenAt, seenMs: now - tracked.seenWrittenAt };
    if (!force && !needsWrite(tracked.written, next, since)) return;
    writeRow(tracked);
  };

  const stateListeners = new Set<StateListener>();
  const eventListeners = new Set<StateEventListener>();
  /** Calls a listener without waiting for it: a listener's failure or slowness is its own. */
  const notify = (robotId: string, call: () => void | Promise<void>) => {
    const failed = (error: unknown) => {
      log.warn({ err: error, robotId }, 'a fleet state listener failed');
    };
    try {
      const result = call();
      if (result) result.catch(failed);
    } catch (error) {
      failed(error);
    }
  };

  const connectionListeners = new Set<ConnectionListener>();
  /**
   * Tells the connection listeners that the robot came or went, once its row says so (the job lists read the
   * row's connection): the row write is awaited here, outside the robot's chain.
   */
  const notifyConnection = (tracked: Tracked, online: boolean) => {
    if (connectionListeners.size === 0) return;
    const written = tracked.writing ?? Promise.resolve();
    void written.then(() => {
      for (const listener of connectionListeners) notify(tracked.robot.robotId, () => listener(tracked.robot, online));
    });
  };

  const applyState = async (tracked: Tracked, state: StateMessage) => {
    if (tracked.lastHeaderId !== undefined && state.headerId <= tracked.lastHeaderId) {
      drop('duplicate', 'state', `headerId ${state.headerId} <= ${tracked.lastHeaderId}`);
      return;
    }
    stats.accepted++;
    const now = Date.now();
    tracked.lastHeaderId = state.headerId;
    tracked.lastHeardAt = now;
    tracked.operatingMode = state.operatingMode;
    tracked.lastNode = { orderId: state.orderId, nodeId: state.lastNodeId, sequenceId: state.lastNodeSequenceId };
    // A state is proof of a live connection, whatever the last connection message said.
    tracked.connection = 'ONLINE';
    if (tracked.stale) {
      tracked.stale = false;
      publishUpdate(tracked, { robot_id: tracked.robot.robotId, field: 'stale', value: false });
    }
    let signal = tracked.current.signal;
    for (const action of state.actionStates) {
      // Any report of the ping proves the round trip: a robot that does not know uvd_ping reports it FAILED.
      const sentAt = tracked.pings.get(action.actionId);
      if (sentAt === undefined) continue;
      tracked.pings.delete(action.actionId);
      signal = Math.max(0, Math.round(now - sentAt));
    }
    // A robot that refused uvd_ping is pinged with VDA 5050's stateRequest from now on; its refusal counts as
    // the answer, and is not one of the robot's own errors.
    const errors = state.errors.filter((error) => {
      const pingId = pingOfError(error);
      if (pingId === undefined) return true;
      const sentAt = tracked.pings.get(pingId);
      if (sentAt !== undefined) {
        tracked.pings.delete(pingId);
        signal = Math.max(0, Math.round(now - sentAt));
        tracked.pingAction = 'stateRequest';
      }
      return false;
    });
    const floorId = await floorOf(tracked.robot.orgId, state.agvPosition?.mapId);
    const event = readState(tracked.robot, { ...state, errors }, now);
    tracked.work = event.work;
    const next: RobotFields = {
      ...event.fields,
      floorId: floorId === undefined ? tracked.current.floorId : floorId,
      signal,
      connectionState: 'ONLINE',
    };
    const wasOnline = tracked.current.connectionState === 'ONLINE';
    commit(tracked, next, now, !wasOnline);
    if (!wasOnline) notifyConnection(tracked, true);
    const { robotId } = tracked.robot;
    for (const listener of stateListeners) notify(robotId, () => listener(tracked.robot, state));
    for (const listener of eventListeners) notify(robotId, () => listener(event));
  };

  const goOffline = async (tracked: Tracked, connection: ConnectionState) => {
    tracked.connection = connection;
    tracked.pings.clear();
    const wasOnline = tracked.current.connectionState === 'ONLINE';
    // What a robot does while it is not connected is unknown: its last status is not shown as if it were live.
    const next: RobotFields = { ...tracked.current, mode: RobotMode.offline, status: 'offline', signal: -1, connectionState: connection };
    commit(tracked, next, Date.now(), true);
    if (wasOnline) notifyConnection(tracked, false);
  };

  const applyConnection = async (tracked: Tracked, message: ConnectionMessage) => {
    stats.accepted++;
    const now = Date.now();
    if (message.connectionState !== 'ONLINE') {
      await goOffline(tracked, message.connectionState);
      return;
    }
    const wasOnline = tracked.connection === 'ONLINE';
    tracked.connection = 'ONLINE';
    tracked.lastHeardAt = now;
    // A robot that (re)connects starts its headerIds again (VDA 5050 counts per topic and session).
    if (!wasOnline) tracked.lastHeaderId = undefined;
    // Until the first state tells the operating mode, the robot stays in the mode it had.
    const mode = tracked.operatingMode === undefined ? tracked.current.mode : modeFromOperatingMode(tracked.operatingMode);
    const rowWasOnline = tracked.current.connectionState === 'ONLINE';
    commit(tracked, { ...tracked.current, mode, connectionState: 'ONLINE' }, now, true);
    if (!rowWasOnline) notifyConnection(tracked, true);
  };

  const applyFactsheet = async (tracked: Tracked, message: FactsheetMessage) => {
    stats.accepted++;
    await db.update(robots).set({ factsheet: message }).where(eq(robots.id, tracked.robot.robotId));
  };

  // Messages of one robot are applied one after another, in arrival order, so headerId checks hold.
  const chains = new Map<string, Promise<void>>();
  const enqueue = (key: string, work: () => Promise<void>) => {
    const previous = chains.get(key) ?? Promise.resolve();
    const next = previous
      .then(work)
      .catch((error: unknown) => {
        log.warn({ err: error, robot: key }, 'fleet gateway could not apply a message');
      })
      .finally(() => {
        if (chains.get(key) === next) chains.delete(key);
      });
    chains.set(key, next);
  };

  /** Validates a message of `topic`; undefined (and counted) when it must be dropped. */
  const validate = <T extends { manufacturer: string; serialNumber: string }>(
    schema: { safeParse(value: unknown): { success: true; data: T } | { success: false; error: { issues: { path: PropertyKey[]; message: string }[] } } },
    topic: string,
    manufacturer: string,
    serialNumber: string,
    payload: Buffer,
  ): T | undefined => {
    const json = decodeJson(payload);
    if (!json.ok) {
      drop('malformed', topic);
      return undefined;
    }
    const parsed = schema.safeParse(json.value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      drop('invalid', topic, issue ? `${issue.path.map(String).join('.')}: ${issue.message}` : undefined);
      return undefined;
    }
    // A robot may only speak for itself: the header must name the robot of the topic.
    if (parsed.data.manufacturer !== manufacturer || parsed.data.serialNumber !== serialNumber) {
      drop('spoofed', topic, `header names ${parsed.data.manufacturer}/${parsed.data.serialNumber}`);
      return undefined;
    }
    return parsed.data;
  };

  const onMessage = (topic: string, payload: Buffer) => {
    const parsedTopic = parseVdaTopic(topic);
    if (!parsedTopic) { drop('invalid', topic, 'not a VDA 5050 v2 topic'); return; }
    const { manufacturer, serialNumber, name } = parsedTopic;
    // An empty retained message clears the topic's retained message (a robot taken out of service): not news.
    if (payload.length === 0) return;
    let apply: ((tracked: Tracked) => Promise<void>) | undefined;
    if (name === 'state') {
      const state = validate(StateMessage, topic, manufacturer, serialNumber, payload);
      if (state) apply = (tracked) => applyState(tracked, state);
    } else if (name === 'connection') {
      const connection = validate(ConnectionMessage, topic, manufacturer, serialNumber, payload);
      if (connection) apply = (tracked) => applyConnection(tracked, connection);
    } else if (name === 'factsheet') {
      const factsheet = validate(FactsheetMessage, topic, manufacturer, serialNumber, payload);
      if (factsheet) apply = (tracked) => applyFactsheet(tracked, factsheet);
    }
    if (!apply) return;
    const run = apply;
    enqueue(identityKey(manufacturer, serialNumber), async () => {
      const tracked = await lookup(manufacturer, serialNumber);
      if (!tracked) { drop('unknownRobot', topic); return; }
      await run(tracked);
    });
  };

  // ---------------------------------------------------------------- MQTT client
  const client: MqttClient = mqtt.connect(brokerUrl, {
    clientId: `${GATEWAY_CLIENT_ID_PREFIX}${randomBytes(6).toString('hex')}`,
    clean: true,
    // mqtt-packet (shared with the embedded broker) otherwise keeps a cache of 65 536 two-byte Buffers, one per
    // packet id: 6 MB of the JavaScript heap (a heap snapshot of the server, bench/README.md "bench:memory"). This
    // turns it off for the whole process; each id is then written into a new 2-byte Buffer.
    writeCache: false,
    reconnectPeriod: 1000,
    connectTimeout: 10_000,
    ...(broker ? broker.gatewayLogin : {}),
  });
  client.on('message', onMessage);
  client.on('error', (error) => { log.warn({ err: error }, 'fleet gateway MQTT error'); });
  client.on('offline', () => { log.warn({ brokerUrl }, 'fleet gateway lost the broker; reconnecting'); });
  // Several server processes share one external broker: a shared subscription hands each state to one of
  // them, so a state is applied, streamed and turned into job progress once, not once per process (the bus
  // carries the resulting robot_update events to the other processes' clients). Connection messages stay a
  // plain subscription: they are rare, and retained ones are not delivered to shared subscriptions.
  const shared = (topic: string) => (broker ? topic : `$share/${config.mqttShareGroup}/${topic}`);
  const subscriptions = {
    [shared(`uagv/v2/+/+/state`)]: { qos: 0 as const },
    [`uagv/v2/+/+/connection`]: { qos: 1 as const },
    [shared(`uagv/v2/+/+/factsheet`)]: { qos: 0 as const },
  };
  const subscribed = new Promise<void>((resolve) => {
    client.on('connect', () => {
      client
        .subscribeAsync(subscriptions)
        .then(() => { resolve(); })
        .catch((error: unknown) => { log.warn({ err: error }, 'fleet gateway could not subscribe'); });
    });
  });
  // An external broker that is down must not stop the server: the client keeps reconnecting.
  const startTimeout = new Promise<void>((resolve) => setTimeout(resolve, 10_000).unref());
  await Promise.race([subscribed, startTimeout]);

  // With an external broker, robots the table says are online (heard by this or another process) are watched
  // from now on, so those that went away while no gateway ran are marked offline by the watchdog once silent
  // for the offline interval since they were last heard.
  for (const row of await db.select().from(robots).where(eq(robots.connectionState, 'ONLINE'))) track(row);

  const publish = async (tracked: Tracked, topic: VdaTopicName, body: Record<string, unknown>) => {
    const kind = topic === 'order' ? 'order' : 'instantActions';
    const header = {
      headerId: tracked.headerIds[kind]++,
      timestamp: new Date().toISOString(),
      version: VDA_VERSION,
      manufacturer: tracked.robot.manufacturer,
      serialNumber: tracked.robot.serialNumber,
    };
    await client.publishAsync(vdaTopic(tracked.robot.manufacturer, tracked.robot.serialNumber, topic), JSON.stringify({ ...header, ...body }), { qos: 0 });
  };

  /**
   * The VDA 5050 2.0 document and JSON schema name the list `actions`; implementations that followed the 2.0
   * draft (vda-5050-lib among them) require `instantActions`. Both are sent, so either kind of robot obeys.
   */
  const publishInstantActions = (tracked: Tracked, actions: InstantActionsMessage['actions']) =>
    publish(tracked, 'instantActions', { actions, instantActions: actions });

  const sendInstantActions = async (robotId: string, actions: InstantActionsMessage['actions']) => {
    const tracked = await trackedById(robotId);
    if (!tracked) throw new Error(`Robot ${robotId} is not known.`);
    await publishInstantActions(tracked, actions);
  };

  // ---------------------------------------------------------------- pings and the watchdog
  let pingCounter = 0;
  const pingTimer = setInterval(() => {
    for (const tracked of byId.values()) {
      if (tracked.connection !== 'ONLINE') continue;
      const actionId = `${PING_ID_PREFIX}${Date.now()}-${pingCounter++}`;
      tracked.pings.set(actionId, Date.now());
      publishInstantActions(tracked, [
        {
          actionType: tracked.pingAction,
          actionId,
          blockingType: 'NONE',
          actionParameters: [{ key: 'sent_at', value: new Date().toISOString() }],
        },
      ]).catch((error: unknown) => { log.warn({ err: error }, 'ping could not be sent'); });
    }
  }, timing.pingIntervalMs);
  pingTimer.unref();

  const watchdog = setInterval(() => {
    const now = Date.now();
    for (const tracked of byId.values()) {
      if (tracked.connection !== 'ONLINE') continue;
      const key = identityKey(tracked.robot.manufacturer, tracked.robot.serialNumber);
      const silent = now - tracked.lastHeardAt;
      if (silent >= timing.offlineMs) {
        enqueue(key, () => goOffline(tracked, 'CONNECTIONBROKEN'));
        continue;
      }
      if (silent >= timing.staleMs && !tracked.stale) {
        tracked.stale = true;
        publishUpdate(tracked, { robot_id: tracked.robot.robotId, field: 'stale', value: true });
      }
      let lost = false;
      for (const [actionId, sentAt] of tracked.pings) {
        if (now - sentAt < timing.pingTimeoutMs) continue;
        tracked.pings.delete(actionId);
        lost = true;
      }
      if (lost && tracked.current.signal >= 0) {
        enqueue(key, async () => {
          commit(tracked, { ...tracked.current, signal: -1 }, Date.now());
        });
      }
    }
  }, Math.min(WATCHDOG_MS, timing.staleMs));
  watchdog.unref();

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
  const linkOf = (robotId: string): RobotLink | undefined => {
    const tracked = byId.get(robotId);
    return tracked ? linkOfTracked(tracked) : undefined;
  };

  return {
    brokerUrl,
    async sendOrder(robotId, order) {
      const tracked = await trackedById(robotId);
      if (!tracked) throw new Error(`Robot ${robotId} is not known.`);
      await publish(tracked, 'order', order);
    },
    sendInstantActions,
    onState(listener) {
      stateListeners.add(listener);
      return () => {
        stateListeners.delete(listener);
      };
    },
    onConnection(listener) {
      connectionListeners.add(listener);
      return () => {
        connectionListeners.delete(listener);
      };
    },
    onStateEvent(listener) {
      eventListeners.add(listener);
      return () => {
        eventListeners.delete(listener);
      };
    },
    isOnline: (robotId) => {
      const tracked = byId.get(robotId);
      return tracked !== undefined && isOnline(tracked);
    },
    link: linkOf,
    links: () => new Map([...byId].map(([robotId, tracked]) => [robotId, linkOfTracked(tracked)])),
    stats: () => ({ ...stats }),
    refusedLogins: () => broker?.refusedLogins() ?? 0,
    passwordVerifications: () => broker?.passwordVerifications() ?? 0,
    async close() {
      clearInterval(pingTimer);
      clearInterval(watchdog);
      await Promise.allSettled([...chains.values()]);
      await Promise.allSettled([...byId.values()].flatMap((tracked) => (tracked.writing ? [tracked.writing] : [])));
      await client.endAsync(true);
      await broker?.close();
    },
  };
}
