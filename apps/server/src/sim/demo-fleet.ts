/**
 * The demo fleet of `npm start`: every robot in the database that stands on a floor is played by a simulated
 * robot (apps/robot-sim) in this process, logging in to the broker like a real one. Each start gives each robot
 * a fresh random MQTT password, so no demo secret lives in the repository or survives the process.
 */
import { randomBytes } from 'node:crypto';
import { eq, isNotNull } from 'drizzle-orm';
import { startSimFleet } from '@uvd/robot-sim';
import type { SimFleet, SimFleetRobot } from '@uvd/robot-sim';
import type { AppContext } from '../context.ts';
import { robots } from '../db/schema.ts';
import { hashPassword } from '../identity/passwords.ts';

export interface DemoFleetOptions {
  timeFactor: number;
  faultRate?: number;
  /** Only this organization's robots (all organizations' by default). */
  orgId?: string;
}

export interface DemoFleet extends SimFleet {
  /** Ids of the robots that connected (what the demo activity gives jobs to). */
  robotIds: string[];
}

export async function startDemoFleet(context: AppContext, options: DemoFleetOptions): Promise<DemoFleet> {
  const rows = await context.db
    .select({ id: robots.id, orgId: robots.orgId, manufacturer: robots.manufacturer, serialNumber: robots.serialNumber, floorId: robots.floorId, home: robots.home, battery: robots.battery })
    .from(robots)
    .where(isNotNull(robots.floorId));
  const mine = rows.filter((row) => options.orgId === undefined || row.orgId === options.orgId);
  const fleetRobots: SimFleetRobot[] = [];
  const hashes: { id: string; hash: string }[] = [];
  await Promise.all(
    mine.map(async (row) => {
      if (!row.floorId) return;
      const password = randomBytes(18).toString('base64url');
      hashes.push({ id: row.id, hash: await hashPassword(password) });
      fleetRobots.push({
        manufacturer: row.manufacturer,
        serialNumber: row.serialNumber,
        password,
        mapId: row.floorId,
        home: row.home ?? { x: 0, y: 0, theta: 0 },
        // A robot the seed left nearly empty would only ever go charging.
        battery: row.battery >= 30 ? row.battery : 100,
      });
    }),
  );
  await context.db.transaction(async (tx) => {
    for (const { id, hash } of hashes) await tx.update(robots).set({ mqttPasswordHash: hash }).where(eq(robots.id, id));
  });
  const fleet = await startSimFleet({
    brokerUrl: context.fleet.brokerUrl,
    robots: fleetRobots,
    timeFactor: options.timeFactor,
    faultRate: options.faultRate ?? 0,
  });
  const playing = new Set(fleet.robots.map((robot) => `${robot.manufacturer}/${robot.serialNumber}`));
  const robotIds = mine.filter((row) => playing.has(`${row.manufacturer}/${row.serialNumber}`)).map((row) => row.id);
  return { ...fleet, robotIds };
}
