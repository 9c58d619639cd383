/**
 * Robots the browser tests play themselves, beside the demo fleet: seeded into the demo organization before the
 * server opens its data folder and left out of the demo process (`DEMO_SKIP_ROBOTS`), so a test can change what the
 * demo fleet never would (the robot's operating mode, its link, when its lamp is on) and watch its lamp. The test
 * side (a SimRobot in the test process) is `playRobot` in fleet.ts. No vitest here: the global setup imports it.
 */
import { and, eq } from 'drizzle-orm';
import { openDatabase } from '../../apps/server/src/db/client.ts';
import { buildings, floors, groups, robotGroups, robots } from '../../apps/server/src/db/schema.ts';
import { DEMO } from '../../apps/server/src/seed/demo-data.ts';
import { seedDemoIfEmpty } from '../../apps/server/src/seed/demo-seed.ts';

export interface OwnRobot {
  name: string;
  serialNumber: string;
  /** Metres east of the floor's dock, so two robots of one floor are told apart on the map. */
  offsetX: number;
}

/**
 * One robot per viewport of the safety tests (desktop, mobile). Ward A, the operator's group, on building A's
 * second floor, where no demo robot stands: the rooms they drive to are no other test's. Names follow the demo
 * seed's UVD-1…UVD-4, which the other browser tests drive.
 */
export const OWN_ROBOTS = [
  { name: 'UVD-5', serialNumber: 'UVDR-23-0105', offsetX: 0 },
  { name: 'UVD-6', serialNumber: 'UVDR-23-0106', offsetX: 1 },
] as const satisfies readonly OwnRobot[];

const GROUP = 'Ward A';
const LEVEL = 2;

/** Seeds the demo organizations into the empty data folder (the server then finds them seeded) and adds OWN_ROBOTS. */
export async function seedOwnRobots(dataDir: string): Promise<void> {
  const database = await openDatabase({ dataDir });
  try {
    await seedDemoIfEmpty(database);
    const { db } = database;
    const buildingName = DEMO.site.buildings[0]?.name;
    const floorPlan = DEMO.site.buildings[0]?.floors.find((floor) => floor.level === LEVEL);
    if (!buildingName || !floorPlan) throw new Error(`the demo hospital has no floor ${String(LEVEL)} in its first building`);
    const [floor] = await db
      .select({ id: floors.id })
      .from(floors)
      .innerJoin(buildings, eq(buildings.id, floors.buildingId))
      .where(and(eq(buildings.orgId, DEMO.id), eq(buildings.name, buildingName), eq(floors.name, floorPlan.name)));
    const [group] = await db.select({ id: groups.id }).from(groups).where(and(eq(groups.orgId, DEMO.id), eq(groups.name, GROUP)));
    if (!floor || !group) throw new Error(`the demo seed wrote no ${floorPlan.name} or ${GROUP}`);
    for (const robot of OWN_ROBOTS) {
      const home = { ...floorPlan.home, x: floorPlan.home.x + robot.offsetX };
      const [row] = await db
        .insert(robots)
        // Mode, battery and signal are the robot's to report once a test plays it, as for the demo seed's robots.
        .values({ orgId: DEMO.id, name: robot.name, manufacturer: 'uvd', serialNumber: robot.serialNumber, floorId: floor.id, pose: home, home })
        .returning({ id: robots.id });
      if (!row) throw new Error(`robot ${robot.name} was not created`);
      await db.insert(robotGroups).values({ robotId: row.id, groupId: group.id });
    }
  } finally {
    await database.close();
  }
}
