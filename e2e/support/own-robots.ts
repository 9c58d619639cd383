/**
 * Robots the browser tests play themselves, beside the demo fleet: seeded into a demo organization before the
 * server opens its data folder and left out of the demo process (`DEMO_SKIP_ROBOTS`), so a test can change what the
 * demo fleet never would (the robot's operating mode, its link, when its lamp is on) and watch its lamp. The test
 * side (a SimRobot in the test process) is `playRobot` in fleet.ts. No vitest here: the global setup imports it.
 */
import { and, eq } from 'drizzle-orm';
import { openMigratedDataFolder } from '../../apps/server/src/testing/data-folder.ts';
import { buildings, floors, groups, robotGroups, robots } from '../../apps/server/src/db/schema.ts';
import { NORTHWIND } from '../../apps/server/src/seed/demo-data.ts';
import { seedDemoIfEmpty } from '../../apps/server/src/seed/demo-seed.ts';

export interface OwnRobot {
  name: string;
  serialNumber: string;
  /** Metres east of the floor's dock, so two robots of one floor are told apart on the map. */
  offsetX: number;
}

/**
 * One robot per viewport of the safety tests (desktop, mobile), in the northwind organization, which no other browser
 * test signs in to: the demo organization's screens, measured at 375 px by other tests, never list them (offline
 * while no test plays them), and the rooms they drive to are no other test's. In the clinic's group, the northwind
 * operator's, on its one floor beside NW-UVD-1 (which the demo fleet plays and no test gives a job).
 */
export const OWN_ROBOTS = [
  { name: 'NW-UVD-2', serialNumber: 'UVDR-23-0878', offsetX: 1 },
  { name: 'NW-UVD-3', serialNumber: 'UVDR-23-0879', offsetX: 2 },
] as const satisfies readonly OwnRobot[];

const ORGANIZATION = NORTHWIND;
const GROUP = 'Clinic';
const LEVEL = 1;

/** Seeds the demo organizations into the empty data folder (the server then finds them seeded) and adds OWN_ROBOTS. */
export async function seedOwnRobots(dataDir: string): Promise<void> {
  const database = await openMigratedDataFolder(dataDir);
  try {
    await seedDemoIfEmpty(database);
    const { db } = database;
    const buildingName = ORGANIZATION.site.buildings[0]?.name;
    const floorPlan = ORGANIZATION.site.buildings[0]?.floors.find((floor) => floor.level === LEVEL);
    if (!buildingName || !floorPlan) throw new Error(`${ORGANIZATION.id}'s site has no floor ${String(LEVEL)} in its first building`);
    const [floor] = await db
      .select({ id: floors.id })
      .from(floors)
      .innerJoin(buildings, eq(buildings.id, floors.buildingId))
      .where(and(eq(buildings.orgId, ORGANIZATION.id), eq(buildings.name, buildingName), eq(floors.name, floorPlan.name)));
    const [group] = await db.select({ id: groups.id }).from(groups).where(and(eq(groups.orgId, ORGANIZATION.id), eq(groups.name, GROUP)));
    if (!floor || !group) throw new Error(`the demo seed wrote no ${floorPlan.name} or ${GROUP} in ${ORGANIZATION.id}`);
    for (const robot of OWN_ROBOTS) {
      const home = { ...floorPlan.home, x: floorPlan.home.x + robot.offsetX };
      const [row] = await db
        .insert(robots)
        // Mode, battery and signal are the robot's to report once a test plays it, as for the demo seed's robots.
        .values({ orgId: ORGANIZATION.id, name: robot.name, manufacturer: 'uvd', serialNumber: robot.serialNumber, floorId: floor.id, pose: home, home })
        .returning({ id: robots.id });
      if (!row) throw new Error(`robot ${robot.name} was not created`);
      await db.insert(robotGroups).values({ robotId: row.id, groupId: group.id });
    }
  } finally {
    await database.close();
  }
}
