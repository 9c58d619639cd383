/**
 * The fleet of bench/web: the demo organization's robots cloned up to N in the data folder before the server
 * opens it, and played by simulated robots (apps/robot-sim) in the bench's own process, so the bench decides when
 * the robot stream is idle (no robot connected) and when it streams (every robot online and moving).
 */
import { randomBytes } from 'node:crypto';
import { createServer, type AddressInfo } from 'node:net';
import { and, eq, inArray } from 'drizzle-orm';
import { startSimFleet, type SimFleet, type SimFleetRobot } from '@uvd/robot-sim';
import { openDatabase } from '../apps/server/src/db/client.ts';
import { groups, robotGroups, robots, userGroups, users } from '../apps/server/src/db/schema.ts';
import { hashPassword } from '../apps/server/src/identity/passwords.ts';
import { seedDemoIfEmpty } from '../apps/server/src/seed/demo-seed.ts';

const ORG = 'demo';

/** A port free right now, for the server's embedded MQTT broker (the bench's robots must know where it is). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => { resolve(); }));
  return port;
}

export interface BenchFleetPlan {
  /** The robots the bench plays, with the one MQTT password they all log in with. */
  robots: SimFleetRobot[];
}

/**
 * Seeds the demo organization into the empty data folder and clones its robots (floor, mode, groups) up to
 * `total`. Every robot of the organization gets one MQTT password (one argon2 hash, not `total`), a pose at its
 * dock (so the map draws it before it connects) and `username` becomes a member of every group of the
 * organization, so that user sees all of them.
 */
export async function prepareFleet(dataDir: string, total: number, username: string): Promise<BenchFleetPlan> {
  const database = await openDatabase({ dataDir });
  try {
    await seedDemoIfEmpty(database);
    const { db } = database;
    const demo = await db.select().from(robots).where(eq(robots.orgId, ORG));
    const memberships = await db.select().from(robotGroups).where(inArray(robotGroups.robotId, demo.map((robot) => robot.id)));
    const clones = Array.from({ length: Math.max(0, total - demo.length) }, (_, index) => {
      const base = demo[index % demo.length];
      if (!base) throw new Error('the demo organization has no robot to clone');
      const home = base.home ?? { x: 0, y: 0, theta: 0 };
      return {
        base: base.id,
        row: {
          orgId: base.orgId,
          name: `Bench-${String(index + 1).padStart(3, '0')}`,
          manufacturer: base.manufacturer,
          serialNumber: `bench-${index + 1}`,
          mode: base.mode,
          battery: 40 + (index % 60),
          floorId: base.floorId,
          // Side by side near the original's dock, half a metre apart.
          home: { x: home.x + (index % 8) * 0.5, y: home.y + (Math.floor(index / 8) % 8) * 0.5, theta: home.theta },
        },
      };
    });
    for (let start = 0; start < clones.length; start += 50) {
      const chunk = clones.slice(start, start + 50);
      const inserted = await db.insert(robots).values(chunk.map((clone) => clone.row)).returning({ id: robots.id });
      const groupRows = inserted.flatMap((robot, index) =>
        memberships.filter((membership) => membership.robotId === chunk[index]?.base).map((membership) => ({ ...membership, robotId: robot.id })),
      );
      if (groupRows.length > 0) await db.insert(robotGroups).values(groupRows);
    }

    const [user] = await db.select({ id: users.id }).from(users).where(and(eq(users.orgId, ORG), eq(users.username, username)));
    if (!user) throw new Error(`the demo organization has no user ${username}`);
    const orgGroups = await db.select({ id: groups.id }).from(groups).where(eq(groups.orgId, ORG));
    await db
      .insert(userGroups)
      .values(orgGroups.map((group) => ({ userId: user.id, groupId: group.id })))
      .onConflictDoNothing();

    const password = randomBytes(18).toString('base64url');
    const mqttPasswordHash = await hashPassword(password);
    const fleet = await db.select().from(robots).where(eq(robots.orgId, ORG));
    const plan: BenchFleetPlan = { robots: [] };
    for (const robot of fleet) {
      if (!robot.floorId) continue;
      const home = robot.home ?? { x: 0, y: 0, theta: 0 };
      await db.update(robots).set({ mqttPasswordHash, pose: home }).where(eq(robots.id, robot.id));
      plan.robots.push({ manufacturer: robot.manufacturer, serialNumber: robot.serialNumber, password, mapId: robot.floorId, home, battery: Math.max(robot.battery, 50) });
    }
    return plan;
  } finally {
    await database.close();
  }
}

/** Round a dock at this radius: every 1 Hz state has moved the robot ~0.5 m, so each one is a pose update. */
const CIRCLE_METRES = 0.75;
const RADIANS_PER_SECOND = 0.5 / CIRCLE_METRES;
const MOVE_EVERY_MS = 250;
const CONNECT_BATCH = 20;
/** VDA 5050 headings lie in [-π, π]. */
const heading = (radians: number) => Math.atan2(Math.sin(radians), Math.cos(radians));

export interface MovingFleet {
  connected: number;
  failed: number;
  stop(): Promise<void>;
}

/**
 * Connects the planned robots to the broker and moves each one round its dock (its model's pose, which the
 * simulated robot publishes in its 1 Hz state), each at its own phase. They answer the gateway's pings as well.
 */
export async function startMovingFleet(brokerUrl: string, plan: BenchFleetPlan): Promise<MovingFleet> {
  // The broker checks each first login with argon2: all at once, the later ones outlast the 10 s connect timeout.
  const fleets: SimFleet[] = [];
  for (let start = 0; start < plan.robots.length; start += CONNECT_BATCH) {
    fleets.push(await startSimFleet({ brokerUrl, robots: plan.robots.slice(start, start + CONNECT_BATCH), timeFactor: 1 }));
  }
  const simRobots = fleets.flatMap((fleet) => fleet.robots);
  const failed = fleets.flatMap((fleet) => fleet.failed);
  if (failed[0]) console.error(`${failed.length} simulated robots did not connect, e.g. ${failed[0].serialNumber}: ${failed[0].error.message}`);
  const startedAt = performance.now();
  const move = setInterval(() => {
    const seconds = (performance.now() - startedAt) / 1000;
    simRobots.forEach((robot, index) => {
      const angle = RADIANS_PER_SECOND * seconds + (index * 2 * Math.PI) / simRobots.length;
      const { home } = robot.model;
      robot.model.pose = { x: home.x + CIRCLE_METRES * Math.cos(angle), y: home.y + CIRCLE_METRES * Math.sin(angle), theta: heading(angle + Math.PI / 2) };
    });
  }, MOVE_EVERY_MS);
  return {
    connected: simRobots.length,
    failed: failed.length,
    stop: async () => {
      clearInterval(move);
      await Promise.all(fleets.map((fleet) => fleet.stop()));
    },
  };
}
