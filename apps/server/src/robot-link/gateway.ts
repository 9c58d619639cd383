/**
 * The fleet gateway: one MQTT client that reads every robot's state, connection and factsheet, validates
 * each message, keeps the robots table current and publishes robot_update events; and that sends orders
 * and instant actions. With no MQTT_URL it first starts the embedded broker. Its parts are in gateway/
 * (README.md, "Files").
 */
import { eq } from 'drizzle-orm';
import { robots } from '../db/schema.ts';
import type { Fleet, FleetDependencies, FleetLogger } from './fleet.ts';
import { startBroker } from './gateway/broker-start.ts';
import { createFloorCache } from './gateway/floor-cache.ts';
import { createFleetListeners } from './gateway/listeners.ts';
import { createMessageIntake } from './gateway/message-intake.ts';
import { createMessageStats } from './gateway/message-stats.ts';
import { connectGatewayClient } from './gateway/mqtt-client.ts';
import { startPings } from './gateway/pings.ts';
import { createRobotCache } from './gateway/robot-cache.ts';
import { createRowWriter } from './gateway/row-writer.ts';
import { createStateApply } from './gateway/state-apply.ts';
import { startWatchdog } from './gateway/watchdog.ts';

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

/** Starts the fleet link (the embedded broker when no MQTT_URL is set) and the gateway. */
export async function createFleet(deps: FleetDependencies): Promise<Fleet> {
  const { config, database, bus } = deps;
  const db = database.db;
  const log = deps.logger ?? consoleLogger(config.logLevel);
  const timing = config.fleet;

  const { broker, brokerUrl } = await startBroker(config, db);
  const messages = createMessageStats(log);
  const robotCache = createRobotCache(db, timing);
  const writer = createRowWriter({ database, bus, log });
  const listeners = createFleetListeners(log);
  const apply = createStateApply({ db, messages, floorOf: createFloorCache(db), writer, listeners });
  const intake = createMessageIntake({ robots: robotCache, messages, apply, log });
  const client = await connectGatewayClient({ brokerUrl, broker, config, log, onMessage: intake.onMessage });

  // With an external broker, robots the table says are online (heard by this or another process) are watched
  // from now on, so those that went away while no gateway ran are marked offline by the watchdog once silent
  // for the offline interval since they were last heard.
  for (const row of await db.select().from(robots).where(eq(robots.connectionState, 'ONLINE'))) robotCache.track(row);

  const stopPings = startPings({ robots: robotCache.byId, publishInstantActions: client.publishInstantActions, intervalMs: timing.pingIntervalMs, log });
  const stopWatchdog = startWatchdog({ robots: robotCache.byId, timing, enqueue: intake.enqueue, goOffline: apply.goOffline, writer });

  const known = async (robotId: string) => {
    const tracked = await robotCache.trackedById(robotId);
    if (!tracked) throw new Error(`Robot ${robotId} is not known.`);
    return tracked;
  };

  return {
    brokerUrl,
    async sendOrder(robotId, order) {
      await client.publish(await known(robotId), 'order', order);
    },
    async sendInstantActions(robotId, actions) {
      await client.publishInstantActions(await known(robotId), actions);
    },
    onState: listeners.onState,
    onConnection: listeners.onConnection,
    onStateEvent: listeners.onStateEvent,
    isOnline: (robotId) => {
      const tracked = robotCache.byId.get(robotId);
      return tracked !== undefined && robotCache.isOnline(tracked);
    },
    link: (robotId) => {
      const tracked = robotCache.byId.get(robotId);
      return tracked ? robotCache.linkOf(tracked) : undefined;
    },
    links: () => new Map([...robotCache.byId].map(([robotId, tracked]) => [robotId, robotCache.linkOf(tracked)])),
    stats: () => ({ ...messages.counts }),
    refusedLogins: () => broker?.refusedLogins() ?? 0,
    passwordVerifications: () => broker?.passwordVerifications() ?? 0,
    async close() {
      stopPings();
      stopWatchdog();
      await intake.settled();
      await Promise.allSettled([...robotCache.byId.values()].flatMap((tracked) => (tracked.writing ? [tracked.writing] : [])));
      await client.close();
      await broker?.close();
    },
  };
}
