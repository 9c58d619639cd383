/**
 * Seeds the demo organizations into an empty database (DESIGN.md: `npm start` opens with organization `demo`).
 * Runs once: in one transaction, under an advisory lock so that several server processes starting together on
 * one PostgreSQL seed it only once, and only while no organization exists.
 */
import { count, sql } from 'drizzle-orm';
import type { Database, Executor } from '../db/client.ts';
import { contacts, groups, jobRooms, jobs, logs, organizations, robotGroups, robots, roomGroups, userGroups, users } from '../db/schema.ts';
import { hashPassword } from '../identity/passwords.ts';
import { DEMO_ORGANIZATIONS, type DemoOrganization } from './demo-data.ts';
import { generateHistory, type HistoryRobot } from './history.ts';
import { siteKey, writeSite } from './site-writer.ts';

const SEED_LOCK_KEY = 726_351_002;

export interface SeedSummary {
  organization: string;
  buildings: number;
  floors: number;
  rooms: number;
  robots: number;
  users: number;
  jobs: number;
  logs: number;
}

export interface SeedOptions {
  /** The moment the history is relative to (default: now). */
  now?: Date;
}

const organizationCount = async (db: Executor) => {
  const [row] = await db.select({ n: count() }).from(organizations);
  return row?.n ?? 0;
};

/** Seeds `demo` and `northwind` when the database holds no organization; returns what it wrote, or null. */
export async function seedDemoIfEmpty(database: Pick<Database, 'db'>, options: SeedOptions = {}): Promise<SeedSummary[] | null> {
  const { db } = database;
  if ((await organizationCount(db)) > 0) return null;
  const now = options.now ?? new Date();
  // argon2id takes tens of milliseconds per password on purpose: hash them all at once, outside the transaction.
  const hashes = new Map<string, string>();
  await Promise.all(
    DEMO_ORGANIZATIONS.flatMap((organization) =>
      organization.users.map(async (user) => {
        hashes.set(siteKey(organization.id, user.username), await hashPassword(user.password));
      }),
    ),
  );
  return db.transaction(async (tx) => {
    await tx.execute(sql`SELECT pg_advisory_xact_lock(${SEED_LOCK_KEY})`);
    if ((await organizationCount(tx)) > 0) return null;
    const summaries: SeedSummary[] = [];
    for (const organization of DEMO_ORGANIZATIONS) summaries.push(await seedOrganization(tx, organization, hashes, now));
    return summaries;
  });
}

async function seedOrganization(tx: Executor, organization: DemoOrganization, hashes: Map<string, string>, now: Date): Promise<SeedSummary> {
  const orgId = organization.id;
  await tx.insert(organizations).values({ id: orgId, name: organization.name, uvcDoses: organization.uvcDoses, defaultDose: organization.defaultDose });
  const site = await writeSite(tx, orgId, organization.site);

  const groupRows = await tx
    .insert(groups)
    .values(organization.groups.map((group) => ({ orgId, name: group.name })))
    .returning({ id: groups.id, name: groups.name });
  const groupId = (name: string) => {
    const row = groupRows.find((group) => group.name === name);
    if (!row) throw new Error(`demo group ${name} is not defined`);
    return row.id;
  };

  const roomGroupRows = organization.groups.flatMap((group) =>
    organization.site.buildings
      .filter((building) => group.buildings.includes(building.name))
      .flatMap((building) =>
        building.floors.flatMap((floor) =>
          floor.rooms.map((room) => ({ roomId: roomId(site.roomIds, building.name, floor.name, room.name), groupId: groupId(group.name) })),
        ),
      ),
  );
  if (roomGroupRows.length > 0) await tx.insert(roomGroups).values(roomGroupRows);

  const userRows = await tx
    .insert(users)
    .values(
      organization.users.map((user) => ({
        orgId,
        username: user.username,
        firstName: user.firstName,
        lastName: user.lastName,
        email: user.email,
        passwordHash: hashes.get(siteKey(orgId, user.username)) ?? '',
        roles: user.roles,
      })),
    )
    .returning({ id: users.id, username: users.username, firstName: users.firstName });
  const userGroupRows = organization.users.flatMap((user) => {
    const userId = userRows.find((row) => row.username === user.username)?.id;
    return userId ? user.groups.map((name) => ({ userId, groupId: groupId(name) })) : [];
  });
  if (userGroupRows.length > 0) await tx.insert(userGroups).values(userGroupRows);

  const historyRobots: HistoryRobot[] = [];
  for (const robot of organization.robots) {
    const building = organization.site.buildings.find((candidate) => candidate.name === robot.building);
    const floor = building?.floors.find((candidate) => candidate.level === robot.level);
    if (!building || !floor) throw new Error(`demo robot ${robot.name} stands on a floor that does not exist`);
    const floorId = site.floorIds.get(siteKey(building.name, floor.name));
    if (!floorId) throw new Error(`floor ${floor.name} was not written`);
    const [row] = await tx
      .insert(robots)
      .values({
        orgId,
        name: robot.name,
        manufacturer: 'uvd',
        serialNumber: robot.serialNumber,
        // Mode, battery, charging and signal are the robot's to report once it connects (the demo fleet plays it).
        floorId,
        pose: floor.home,
        home: floor.home,
      })
      .returning({ id: robots.id });
    if (!row) throw new Error(`robot ${robot.name} was not created`);
    if (robot.groups.length > 0) await tx.insert(robotGroups).values(robot.groups.map((name) => ({ robotId: row.id, groupId: groupId(name) })));
    // A robot's jobs are made by the people of its groups, and now and then by an admin.
    const creators = organization.users
      .filter((user) => user.groups.some((name) => robot.groups.includes(name)))
      .flatMap((user) => userRows.filter((candidate) => candidate.username === user.username));
    historyRobots.push({
      id: row.id,
      name: robot.name,
      floorId,
      home: floor.home,
      corridorY: floor.corridorY,
      rooms: floor.rooms.map((room) => ({
        id: roomId(site.roomIds, building.name, floor.name, room.name),
        name: room.name,
        dose: room.dose,
        entryPoint: room.entryPoint,
      })),
      creators: creators.length > 0 ? creators : userRows,
    });
  }

  if (organization.contacts.length > 0) await tx.insert(contacts).values(organization.contacts.map((contact) => ({ orgId, ...contact })));

  const history = generateHistory(historyRobots, {
    now,
    seed: organization.seed,
    days: organization.historyDays,
    scheduledDays: organization.scheduledDays,
    doses: organization.uvcDoses,
    defaultDose: organization.defaultDose,
  });
  // Chunks keep each statement well under PostgreSQL's 65 535 bind parameters.
  for (const chunk of chunks(history.jobs, 500)) await tx.insert(jobs).values(chunk.map((job) => ({ orgId, ...job })));
  for (const chunk of chunks(history.jobRooms, 2000)) await tx.insert(jobRooms).values(chunk);
  for (const chunk of chunks(history.logs, 500)) await tx.insert(logs).values(chunk.map((log) => ({ orgId, ...log })));

  const floorsWritten = organization.site.buildings.reduce((n, building) => n + building.floors.length, 0);
  return {
    organization: orgId,
    buildings: organization.site.buildings.length,
    floors: floorsWritten,
    rooms: site.roomIds.size,
    robots: organization.robots.length,
    users: organization.users.length,
    jobs: history.jobs.length,
    logs: history.logs.length,
  };
}

function roomId(roomIds: Map<string, string>, building: string, floor: string, room: string): string {
  const id = roomIds.get(siteKey(building, floor, room));
  if (!id) throw new Error(`room ${room} was not written`);
  return id;
}

function chunks<T>(items: readonly T[], size: number): T[][] {
  const result: T[][] = [];
  for (let start = 0; start < items.length; start += size) result.push(items.slice(start, start + size));
  return result;
}
