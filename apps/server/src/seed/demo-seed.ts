/**
 * Seeds the demo organizations into an empty database (docs/operations.md#run: `npm start` opens with organization `demo`).
 * Runs once: in one transaction, under an advisory lock so that several server processes starting together on
 * one PostgreSQL seed it only once, and only while no organization exists.
 *
 * With the logistics variant it also adds what a logistics demo needs (demo-data.ts `logistics`: delivery robots
 * and the people who send and receive deliveries), once: to a new database with the rest, or to a database first
 * seeded without it, the next time the server starts with `VARIANT=logistics`. What is already there (by robot
 * serial number, by username) is left as it is.
 */
import { and, count, eq, inArray, sql } from 'drizzle-orm';
import { ADVISORY_LOCKS } from '../db/advisory-locks.ts';
import type { Database, Executor } from '../db/client.ts';
import { buildings, contacts, floors, groups, jobRooms, jobs, lampIntervals, logs, organizations, robotGroups, robots, roomGroups, userGroups, users } from '../db/schema.ts';
import { hashPassword } from '../identity/passwords.ts';
import { DEMO_ORGANIZATIONS, type DemoOrganization, type DemoRobot, type DemoUser } from './demo-data.ts';
import { DEFAULT_LAMP } from '../dose/lamp.ts';
import { generateHistory, type HistoryRobot } from './history.ts';
import type { HospitalFloor } from './hospital.ts';
import { siteKey, writeSite } from './site-writer.ts';

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
  /** The server's VARIANT: 'logistics' adds the delivery robots and the logistics users (default 'disinfection'). */
  variant?: 'disinfection' | 'logistics';
}

const organizationCount = async (db: Executor) => {
  const [row] = await db.select({ n: count() }).from(organizations);
  return row?.n ?? 0;
};

/** The logistics part of each demo organization that has one. */
const logisticsOf = (variant: SeedOptions['variant']) =>
  variant === 'logistics' ? DEMO_ORGANIZATIONS.flatMap((organization) => (organization.logistics ? [{ organization, ...organization.logistics }] : [])) : [];

/** What of the logistics part is not in the database yet (robots by serial number, users by username). */
async function missingLogistics(db: Executor, variant: SeedOptions['variant']) {
  const missing: { organization: DemoOrganization; robots: DemoRobot[]; users: DemoUser[] }[] = [];
  for (const part of logisticsOf(variant)) {
    const orgId = part.organization.id;
    const [organization] = await db.select({ id: organizations.id }).from(organizations).where(eq(organizations.id, orgId));
    if (!organization) continue;
    const serials = part.robots.map((robot) => robot.serialNumber);
    const usernames = part.users.map((user) => user.username);
    const knownRobots = new Set(
      (await db.select({ serialNumber: robots.serialNumber }).from(robots).where(and(eq(robots.orgId, orgId), inArray(robots.serialNumber, serials)))).map(
        (row) => row.serialNumber,
      ),
    );
    const knownUsers = new Set(
      (await db.select({ username: users.username }).from(users).where(and(eq(users.orgId, orgId), inArray(users.username, usernames)))).map((row) => row.username),
    );
    const entry = {
      organization: part.organization,
      robots: part.robots.filter((robot) => !knownRobots.has(robot.serialNumber)),
      users: part.users.filter((user) => !knownUsers.has(user.username)),
    };
    if (entry.robots.length > 0 || entry.users.length > 0) missing.push(entry);
  }
  return missing;
}

/** argon2id takes tens of milliseconds per password on purpose: hash them all at once, outside the transaction. */
async function hashUsers(entries: readonly { organization: DemoOrganization; users: readonly DemoUser[] }[]): Promise<Map<string, string>> {
  const hashes = new Map<string, string>();
  await Promise.all(
    entries.flatMap(({ organization, users: people }) =>
      people.map(async (user) => {
        hashes.set(siteKey(organization.id, user.username), await hashPassword(user.password));
      }),
    ),
  );
  return hashes;
}

/**
 * Seeds `demo` and `northwind` when the database holds no organization, and with `variant: 'logistics'` adds
 * their logistics part where it is missing; returns what it wrote, or null when it wrote nothing.
 */
export async function seedDemoIfEmpty(database: Pick<Database, 'db'>, options: SeedOptions = {}): Promise<SeedSummary[] | null> {
  const { db } = database;
  if ((await organizationCount(db)) > 0) return addLogistics(database, options.variant);
  const now = options.now ?? new Date();
  const hashes = await hashUsers([
    ...DEMO_ORGANIZATIONS.map((organization) => ({ organization, users: organization.users })),
    ...logisticsOf(options.variant),
  ]);
  const seeded = await db.transaction(async (tx) => {
    await tx.execute(sql`SELECT pg_advisory_xact_lock(${ADVISORY_LOCKS.demoSeed})`);
    if ((await organizationCount(tx)) > 0) return null;
    const summaries: SeedSummary[] = [];
    for (const organization of DEMO_ORGANIZATIONS) summaries.push(await seedOrganization(tx, organization, hashes, now));
    for (const part of await missingLogistics(tx, options.variant)) {
      const added = await seedLogistics(tx, part.organization, part.robots, part.users, hashes);
      const summary = summaries.find((candidate) => candidate.organization === part.organization.id);
      if (summary) {
        summary.robots += added.robots;
        summary.users += added.users;
      }
    }
    return summaries;
  });
  // Another server process seeded first: it may have done so without the logistics part.
  return seeded ?? addLogistics(database, options.variant);
}

/** Whether `seedDemoIfEmpty` would write anything: no organization yet, or a logistics part missing. */
export async function demoSeedNeeded(db: Executor, variant: SeedOptions['variant']): Promise<boolean> {
  return (await organizationCount(db)) === 0 || (await missingLogistics(db, variant)).length > 0;
}

/** The logistics part where it is missing from demo organizations that exist (see the file's comment). */
async function addLogistics(database: Pick<Database, 'db'>, variant: SeedOptions['variant']): Promise<SeedSummary[] | null> {
  const { db } = database;
  const wanted = await missingLogistics(db, variant);
  if (wanted.length === 0) return null;
  const hashes = await hashUsers(wanted);
  const summaries = await db.transaction(async (tx) => {
    await tx.execute(sql`SELECT pg_advisory_xact_lock(${ADVISORY_LOCKS.demoSeed})`);
    // Looked at again under the lock: a server process starting beside this one may have added it meanwhile.
    const written: SeedSummary[] = [];
    for (const part of await missingLogistics(tx, variant)) {
      const added = await seedLogistics(tx, part.organization, part.robots, part.users, hashes);
      written.push({ organization: part.organization.id, buildings: 0, floors: 0, rooms: 0, jobs: 0, logs: 0, ...added });
    }
    return written;
  });
  return summaries.length > 0 ? summaries : null;
}

/** Where a demo robot stands: its floor (by building name and level) and its home by the lifts. */
function robotPlace(organization: DemoOrganization, robot: DemoRobot): { building: string; floor: HospitalFloor; home: HospitalFloor['home'] } {
  const building = organization.site.buildings.find((candidate) => candidate.name === robot.building);
  const floor = building?.floors.find((candidate) => candidate.level === robot.level);
  if (!building || !floor) throw new Error(`demo robot ${robot.name} stands on a floor that does not exist`);
  return { building: building.name, floor, home: { ...floor.home, x: floor.home.x + (robot.homeOffsetX ?? 0) } };
}

/**
 * A demo robot's row. Its MQTT login is left unset, as for every demo robot: the demo fleet asks the admin API
 * for a fresh password when it starts. Mode, battery, charging and signal are the robot's to report.
 */
const robotValues = (orgId: string, robot: DemoRobot, floorId: string, home: HospitalFloor['home']) => ({
  orgId,
  name: robot.name,
  manufacturer: 'uvd',
  serialNumber: robot.serialNumber,
  kind: robot.kind ?? 'disinfection',
  floorId,
  pose: home,
  home,
  // The demo's UV robots are one model with the default lamp (dose/lamp.ts); a delivery robot has none.
  lamp: (robot.kind ?? 'disinfection') === 'disinfection' ? DEFAULT_LAMP : null,
});

/** Adds the given logistics robots and users to an organization seeded before (groups and floors by name). */
async function seedLogistics(
  tx: Executor,
  organization: DemoOrganization,
  newRobots: readonly DemoRobot[],
  newUsers: readonly DemoUser[],
  hashes: Map<string, string>,
): Promise<{ robots: number; users: number }> {
  const orgId = organization.id;
  const groupRows = await tx.select({ id: groups.id, name: groups.name }).from(groups).where(eq(groups.orgId, orgId));
  // A group renamed or deleted since the first seed is left out of the memberships.
  const groupIds = (names: readonly string[]) => names.flatMap((name) => groupRows.filter((row) => row.name === name).slice(0, 1).map((row) => row.id));
  const floorRows = await tx
    .select({ id: floors.id, name: floors.name, building: buildings.name })
    .from(floors)
    .innerJoin(buildings, eq(buildings.id, floors.buildingId))
    .where(eq(floors.orgId, orgId));

  let robotCount = 0;
  for (const robot of newRobots) {
    const place = robotPlace(organization, robot);
    const floorId = floorRows.find((row) => row.building === place.building && row.name === place.floor.name)?.id;
    // Its floor was renamed or removed since the first seed: there is nowhere to put it.
    if (!floorId) continue;
    const [row] = await tx.insert(robots).values(robotValues(orgId, robot, floorId, place.home)).returning({ id: robots.id });
    if (!row) throw new Error(`robot ${robot.name} was not created`);
    const memberships = groupIds(robot.groups);
    if (memberships.length > 0) await tx.insert(robotGroups).values(memberships.map((groupId) => ({ robotId: row.id, groupId })));
    robotCount += 1;
  }

  if (newUsers.length > 0) {
    const userRows = await tx.insert(users).values(newUsers.map((user) => userValues(orgId, user, hashes))).returning({ id: users.id, username: users.username });
    const memberships = newUsers.flatMap((user) => {
      const userId = userRows.find((row) => row.username === user.username)?.id;
      return userId ? groupIds(user.groups).map((groupId) => ({ userId, groupId })) : [];
    });
    if (memberships.length > 0) await tx.insert(userGroups).values(memberships);
  }
  return { robots: robotCount, users: newUsers.length };
}

const userValues = (orgId: string, user: DemoUser, hashes: Map<string, string>) => ({
  orgId,
  username: user.username,
  firstName: user.firstName,
  lastName: user.lastName,
  email: user.email,
  passwordHash: hashes.get(siteKey(orgId, user.username)) ?? '',
  roles: user.roles,
});

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
    .values(organization.users.map((user) => userValues(orgId, user, hashes)))
    .returning({ id: users.id, username: users.username, firstName: users.firstName });
  const userGroupRows = organization.users.flatMap((user) => {
    const userId = userRows.find((row) => row.username === user.username)?.id;
    return userId ? user.groups.map((name) => ({ userId, groupId: groupId(name) })) : [];
  });
  if (userGroupRows.length > 0) await tx.insert(userGroups).values(userGroupRows);

  const historyRobots: HistoryRobot[] = [];
  for (const robot of organization.robots) {
    const { building, floor, home } = robotPlace(organization, robot);
    const floorId = site.floorIds.get(siteKey(building, floor.name));
    if (!floorId) throw new Error(`floor ${floor.name} was not written`);
    const [row] = await tx.insert(robots).values(robotValues(orgId, robot, floorId, home)).returning({ id: robots.id });
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
      home,
      corridorY: floor.corridorY,
      rooms: floor.rooms.map((room) => ({
        id: roomId(site.roomIds, building, floor.name, room.name),
        name: room.name,
        dose: room.dose,
        entryPoint: room.entryPoint,
        polygon: room.polygon,
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
  for (const chunk of chunks(history.lampIntervals, 2000)) await tx.insert(lampIntervals).values(chunk);

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
