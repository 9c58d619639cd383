import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, count, eq, inArray } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import { buildings, contacts, floors, groups, jobRooms, jobs, lampIntervals, logs, organizations, robotGroups, robots, roomGroups, rooms, userGroups, users } from '../db/schema.ts';
import { verifyPassword } from '../identity/passwords.ts';
import { createTestDatabase, type TestDatabase } from '../testing/test-database.ts';
import { descendants, distanceToPolygon, insidePolygon, parseXml } from '../testing/seed-fixtures.ts';
import { DEMO, NORTHWIND } from './demo-data.ts';
import { seedDemoIfEmpty, type SeedSummary } from './demo-seed.ts';
import { DEFAULT_LAMP } from '../dose/lamp.ts';
import { generateHospital } from './hospital.ts';
import { toPixel } from './plan-svg.ts';

const DAY_MS = 24 * 3600 * 1000;
let testDatabase: TestDatabase;
let db: Db;
let summaries: SeedSummary[] | null;
let seedMs: number;
const now = new Date();

beforeAll(async () => {
  testDatabase = await createTestDatabase();
  db = testDatabase.database.db;
  const started = performance.now();
  summaries = await seedDemoIfEmpty(testDatabase.database, { now });
  seedMs = performance.now() - started;
});
afterAll(async () => {
  await testDatabase.drop();
});

const rowsOf = async (orgId: string) => ({
  buildings: await db.select().from(buildings).where(eq(buildings.orgId, orgId)),
  floors: await db.select().from(floors).where(eq(floors.orgId, orgId)),
  rooms: await db.select().from(rooms).where(eq(rooms.orgId, orgId)),
  robots: await db.select().from(robots).where(eq(robots.orgId, orgId)),
  users: await db.select().from(users).where(eq(users.orgId, orgId)),
  jobs: await db.select().from(jobs).where(eq(jobs.orgId, orgId)),
  logs: await db.select().from(logs).where(eq(logs.orgId, orgId)),
});

describe('demo seed', () => {
  it('seeds the demo hospital quickly', () => {
    expect(summaries?.map((summary) => summary.organization)).toEqual(['demo', 'northwind']);
    console.info(`demo seed took ${Math.round(seedMs)} ms`, summaries);
    expect(seedMs).toBeLessThan(10_000);
  });

  it('gives demo 2 buildings of 2-3 floors, at least 40 rooms, 4 autonomous robots on floors, the doses', async () => {
    const [organization] = await db.select().from(organizations).where(eq(organizations.id, 'demo'));
    expect(organization).toMatchObject({ name: 'Demo Hospital', uvcDoses: [10, 20, 30, 50, 100], defaultDose: 30 });
    const site = await rowsOf('demo');
    expect(site.buildings).toHaveLength(2);
    for (const building of site.buildings) {
      const count = site.floors.filter((floor) => floor.buildingId === building.id).length;
      expect(count).toBeGreaterThanOrEqual(2);
      expect(count).toBeLessThanOrEqual(3);
    }
    expect(site.rooms.length).toBeGreaterThanOrEqual(40);
    expect(site.rooms.find((room) => room.name.startsWith('A3-301'))).toBeDefined();
    expect(site.robots.map((robot) => robot.name).sort()).toEqual(['UVD-1', 'UVD-2', 'UVD-3', 'UVD-4']);
    for (const robot of site.robots) {
      // Registered, not heard from: what it reports (mode, battery) comes from the robot once it connects.
      expect(robot).toMatchObject({ manufacturer: 'uvd', kind: 'disinfection', mode: 0, connectionState: 'OFFLINE', lastSeenAt: null });
      expect(site.floors.map((floor) => floor.id)).toContain(robot.floorId);
      expect(robot.home).not.toBeNull();
    }
  });

  it('gives demo users of all three roles with the documented passwords', async () => {
    const site = await rowsOf('demo');
    expect(new Set(site.users.flatMap((user) => user.roles))).toEqual(new Set(['done-teleoperator', 'done-admin', 'done-superadmin']));
    for (const user of DEMO.users) {
      const row = site.users.find((candidate) => candidate.username === user.username);
      expect(row?.roles).toEqual(user.roles);
      expect(await verifyPassword(row?.passwordHash ?? '', user.password)).toBe(true);
      expect(user.password.length).toBeGreaterThanOrEqual(8);
    }
  });

  it('splits rooms and robots between groups by building, and seeds contacts', async () => {
    const site = await rowsOf('demo');
    const demoGroups = await db.select().from(groups).where(eq(groups.orgId, 'demo'));
    expect(demoGroups.map((group) => group.name).sort()).toEqual(['Ward A', 'Ward B']);
    const memberships = await db.select().from(roomGroups).where(inArray(roomGroups.groupId, demoGroups.map((group) => group.id)));
    expect(memberships).toHaveLength(site.rooms.length);
    const wardA = demoGroups.find((group) => group.name === 'Ward A');
    const buildingA = site.buildings.find((building) => building.name.startsWith('A'));
    for (const membership of memberships) {
      const room = site.rooms.find((candidate) => candidate.id === membership.roomId);
      expect(membership.groupId === wardA?.id).toBe(room?.buildingId === buildingA?.id);
    }
    const robotMemberships = await db.select().from(robotGroups).where(inArray(robotGroups.groupId, demoGroups.map((group) => group.id)));
    expect(robotMemberships).toHaveLength(4);
    expect(robotMemberships.filter((membership) => membership.groupId === wardA?.id)).toHaveLength(2);
    const [contactCount] = await db.select({ n: count() }).from(contacts).where(eq(contacts.orgId, 'demo'));
    expect(contactCount?.n).toBeGreaterThanOrEqual(3);
  });

  it('has a dose map for every log with a path, from lamp intervals that match the room results', async () => {
    const site = await rowsOf('demo');
    expect(site.robots.filter((robot) => robot.kind === 'disinfection').every((robot) => robot.lamp !== null)).toBe(true);
    expect(site.robots.find((robot) => robot.kind === 'disinfection')?.lamp).toEqual(DEFAULT_LAMP);
    const withPath = site.logs.filter((log) => log.trajectory && log.trajectory.length > 0);
    expect(withPath.length).toBeGreaterThan(0);
    expect(site.logs.every((log) => (log.dose !== null) === withPath.includes(log))).toBe(true);
    const intervals = await db
      .select()
      .from(lampIntervals)
      .where(inArray(lampIntervals.jobId, withPath.map((log) => log.jobId)));
    const figures: { dose: number; mean: number; coverage: number }[] = [];
    for (const log of withPath) {
      const dose = log.dose;
      if (!dose) continue;
      for (const room of log.rooms) {
        const ran = intervals.filter((interval) => interval.jobId === log.jobId && interval.orderNo === room.order);
        // The lamp ran in exactly the rooms logged done, within the job's times.
        expect(ran.length).toBe(room.state === 'done' ? 1 : 0);
        for (const interval of ran) {
          expect(interval.startedAt >= log.startTime && interval.endedAt !== null && interval.endedAt <= (log.endTime ?? now)).toBe(true);
        }
        expect(dose.grids[String(room.order)]).toBeDefined();
        const stats = room.dose_stats;
        expect(stats).toBeTruthy();
        if (!stats) continue;
        if (room.state === 'done') figures.push({ dose: room.dose, mean: stats.mean, coverage: stats.coverage });
        else expect(stats.mean).toBe(0);
      }
    }
    // Lit from its entry point at the door, most done rooms reach their planned dose over the whole floor (the
    // demo's lamp is made so, dose/lamp.ts), a few fall short in a corner, none is left unlit.
    const meanRatio = figures.reduce((sum, figure) => sum + figure.mean / figure.dose, 0) / figures.length;
    const fullyDosed = figures.filter((figure) => figure.coverage >= 1).length / figures.length;
    console.info('demo dose: mean / planned', meanRatio.toFixed(2), 'fully dosed', fullyDosed.toFixed(2));
    expect(meanRatio).toBeGreaterThan(1);
    expect(fullyDosed).toBeGreaterThan(0.7);
    expect(fullyDosed).toBeLessThan(1);
    expect(figures.every((figure) => figure.coverage > 0.5)).toBe(true);
  });

  it('has two weeks of logs, each with its Completed job and room results', async () => {
    const site = await rowsOf('demo');
    const days = new Set(site.logs.map((log) => Math.floor((now.getTime() - log.startTime.getTime()) / DAY_MS)));
    expect(Math.min(...days)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...days)).toBeLessThanOrEqual(14);
    expect(site.logs.every((log) => log.startTime < now && log.endTime !== null && log.endTime > log.startTime)).toBe(true);
    const calendarDays = new Set(site.logs.map((log) => log.startTime.toISOString().slice(0, 10)));
    expect(calendarDays.size).toBe(14);
    const states = new Set(site.logs.flatMap((log) => log.rooms.map((room) => room.state)));
    expect(states).toEqual(new Set(['done', 'not_ready', 'not_reached']));
    expect(new Set(site.logs.map((log) => log.completionStatus))).toEqual(new Set(['completed', 'aborted', 'failed']));
    const withTrajectory = site.logs.filter((log) => log.trajectory && log.trajectory.length > 2);
    expect(withTrajectory.length).toBeGreaterThan(site.logs.length / 3);
    expect(withTrajectory.length).toBeLessThan(site.logs.length);

    const completed = site.jobs.filter((job) => job.status === 'Completed');
    expect(completed).toHaveLength(site.logs.length);
    for (const log of site.logs) {
      const job = completed.find((candidate) => candidate.id === log.jobId);
      expect(job).toMatchObject({ performed: true, name: log.jobName, robotId: log.robotId });
      expect(job?.startTime.getTime()).toBe(log.startTime.getTime());
      expect(job).toMatchObject({ completionStatus: log.completionStatus, startedAt: log.startTime, endedAt: log.endTime });
      const jobRoomRows = await db.select().from(jobRooms).where(eq(jobRooms.jobId, log.jobId)).orderBy(jobRooms.orderNo);
      expect(jobRoomRows.map((row) => [row.roomId, row.dose, row.state])).toEqual(log.rooms.map((room) => [room.room_id, room.dose, room.state]));
      expect(job?.startTime.getUTCSeconds()).toBe(0);
    }
    const trajectoryFloors = new Set(withTrajectory.flatMap((log) => log.trajectory?.map((point) => point.floor_id) ?? []));
    expect([...trajectoryFloors].every((floorId) => site.floors.some((floor) => floor.id === floorId))).toBe(true);
  });

  it("names jobs with times on the hospital's clock (Europe/Helsinki, the demo users' timezone), as the console shows start times", async () => {
    const site = await rowsOf('demo');
    const firstNames = site.users.map((user) => user.firstName);
    const named = site.jobs.filter((job) => firstNames.some((name) => job.name.startsWith(`${name} `)));
    expect(named.length).toBeGreaterThan(5);
    for (const job of named) {
      // 'sv-SE' writes YYYY-MM-DD HH:mm.
      const [date = '', time = ''] = job.startTime
        .toLocaleString('sv-SE', { timeZone: 'Europe/Helsinki', hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit' })
        .split(' ');
      const [year, month, day] = date.split('-');
      expect(job.name.endsWith(` ${day}.${month}.${year} ${time}`), `${job.name} starting ${job.startTime.toISOString()}`).toBe(true);
    }
  });

  it('has a few Scheduled jobs in the coming days, with rooms of their robot\'s floor', async () => {
    const site = await rowsOf('demo');
    const scheduled = site.jobs.filter((job) => job.status === 'Scheduled');
    expect(scheduled.length).toBeGreaterThanOrEqual(3);
    for (const job of scheduled) {
      expect(job.performed).toBe(false);
      expect(job.startTime.getTime()).toBeGreaterThan(now.getTime());
      expect(job.startTime.getTime() - now.getTime()).toBeLessThan(4 * DAY_MS);
      const robot = site.robots.find((candidate) => candidate.id === job.robotId);
      const jobRoomRows = await db.select().from(jobRooms).where(eq(jobRooms.jobId, job.id));
      expect(jobRoomRows.length).toBeGreaterThanOrEqual(3);
      for (const jobRoom of jobRoomRows) {
        expect(jobRoom.state).toBe('pending');
        expect(site.rooms.find((room) => room.id === jobRoom.roomId)?.floorId).toBe(robot?.floorId);
        expect(DEMO.uvcDoses).toContain(jobRoom.dose);
      }
    }
  });

  it('keeps northwind to itself', async () => {
    const site = await rowsOf('northwind');
    expect(site.buildings).toHaveLength(1);
    expect(site.robots.map((robot) => robot.name)).toEqual(['NW-UVD-1']);
    expect(site.users.map((user) => user.username).sort()).toEqual(NORTHWIND.users.map((user) => user.username).sort());
    const demoRoomIds = new Set((await rowsOf('demo')).rooms.map((room) => room.id));
    const northwindJobRooms = await db
      .select({ roomId: jobRooms.roomId })
      .from(jobRooms)
      .innerJoin(jobs, eq(jobs.id, jobRooms.jobId))
      .where(eq(jobs.orgId, 'northwind'));
    expect(northwindJobRooms.length).toBeGreaterThan(0);
    expect(northwindJobRooms.some((row) => demoRoomIds.has(row.roomId))).toBe(false);
    const crossRobots = await db
      .select({ n: count() })
      .from(logs)
      .innerJoin(robots, eq(robots.id, logs.robotId))
      .where(and(eq(logs.orgId, 'demo'), eq(robots.orgId, 'northwind')));
    expect(crossRobots[0]?.n).toBe(0);
  });

  it('seeds only an empty database', async () => {
    const before = await rowsOf('demo');
    expect(await seedDemoIfEmpty(testDatabase.database)).toBeNull();
    const after = await rowsOf('demo');
    expect(after.rooms).toHaveLength(before.rooms.length);
    expect(after.logs).toHaveLength(before.logs.length);
    expect(after.jobs).toHaveLength(before.jobs.length);
    const [organizationCount] = await db.select({ n: count() }).from(organizations);
    expect(organizationCount?.n).toBe(2);
  });
});

describe('logistics seed (VARIANT=logistics)', () => {
  const logistics = DEMO.logistics;
  if (!logistics) throw new Error('the demo organization has a logistics part');

  /** The logistics part as the database holds it: demo's delivery robots (with their groups) and logistics users. */
  const logisticsRows = async (database: Db) => {
    const deliveryRobots = await database.select().from(robots).where(and(eq(robots.orgId, 'demo'), eq(robots.kind, 'delivery')));
    const robotGroupNames = await database
      .select({ robotId: robotGroups.robotId, group: groups.name })
      .from(robotGroups)
      .innerJoin(groups, eq(groups.id, robotGroups.groupId));
    const people = await database
      .select()
      .from(users)
      .where(and(eq(users.orgId, 'demo'), inArray(users.username, logistics.users.map((user) => user.username))));
    const userGroupNames = await database
      .select({ userId: userGroups.userId, group: groups.name })
      .from(userGroups)
      .innerJoin(groups, eq(groups.id, userGroups.groupId));
    return { deliveryRobots, robotGroupNames, people, userGroupNames };
  };

  const expectLogistics = async (database: Db) => {
    const rows = await logisticsRows(database);
    const floorRows = await database.select().from(floors).where(eq(floors.orgId, 'demo'));
    const uvRobots = await database.select().from(robots).where(and(eq(robots.orgId, 'demo'), eq(robots.kind, 'disinfection')));
    expect(rows.deliveryRobots.map((robot) => robot.name).sort()).toEqual(['DLV-1', 'DLV-2', 'DLV-3', 'DLV-4']);
    for (const robot of rows.deliveryRobots) {
      const planned = logistics.robots.find((candidate) => candidate.name === robot.name);
      // Registered like the UV robots: on a floor, with a home, not heard from, no MQTT login until the demo fleet asks for one.
      expect(robot).toMatchObject({ manufacturer: 'uvd', serialNumber: planned?.serialNumber, mode: 0, connectionState: 'OFFLINE', mqttPasswordHash: null });
      const floor = floorRows.find((candidate) => candidate.id === robot.floorId);
      expect(floor?.level).toBe(planned?.level);
      expect(robot.home).not.toBeNull();
      expect(robot.pose).toEqual(robot.home);
      // Not parked on the UV robot of its floor.
      for (const uv of uvRobots.filter((candidate) => candidate.floorId === robot.floorId)) expect(uv.home).not.toEqual(robot.home);
      expect(rows.robotGroupNames.filter((row) => row.robotId === robot.id).map((row) => row.group)).toEqual(planned?.groups);
    }
    expect(rows.people.map((user) => user.username).sort()).toEqual(logistics.users.map((user) => user.username).sort());
    for (const user of logistics.users) {
      const row = rows.people.find((candidate) => candidate.username === user.username);
      expect(row?.roles).toEqual(user.roles);
      expect(await verifyPassword(row?.passwordHash ?? '', user.password)).toBe(true);
      expect(rows.userGroupNames.filter((membership) => membership.userId === row?.id).map((membership) => membership.group).sort()).toEqual([...user.groups].sort());
    }
    // The delivery robots have no disinfection history.
    const deliveryJobs = await database.select({ n: count() }).from(jobs).where(inArray(jobs.robotId, rows.deliveryRobots.map((robot) => robot.id)));
    expect(deliveryJobs[0]?.n).toBe(0);
    // northwind has no logistics part.
    const northwindKinds = await database.select({ kind: robots.kind }).from(robots).where(eq(robots.orgId, 'northwind'));
    expect(northwindKinds.map((row) => row.kind)).toEqual(['disinfection']);
  };

  it('seeds a new database with the delivery robots and the logistics users besides the rest', async () => {
    const fresh = await createTestDatabase();
    try {
      const seeded = await seedDemoIfEmpty(fresh.database, { now, variant: 'logistics' });
      expect(seeded?.find((summary) => summary.organization === 'demo')).toMatchObject({
        robots: DEMO.robots.length + logistics.robots.length,
        users: DEMO.users.length + logistics.users.length,
      });
      await expectLogistics(fresh.database.db);
      // Starting again changes nothing.
      expect(await seedDemoIfEmpty(fresh.database, { variant: 'logistics' })).toBeNull();
      expect((await logisticsRows(fresh.database.db)).deliveryRobots).toHaveLength(logistics.robots.length);
    } finally {
      await fresh.drop();
    }
  });

  it('leaves a database seeded for disinfection without delivery robots, and adds them once when started with VARIANT=logistics', async () => {
    expect((await logisticsRows(db)).deliveryRobots).toEqual([]);
    expect((await logisticsRows(db)).people).toEqual([]);
    expect(await seedDemoIfEmpty(testDatabase.database, { variant: 'disinfection' })).toBeNull();
    expect((await logisticsRows(db)).deliveryRobots).toEqual([]);
    const jobsBefore = await rowsOf('demo');

    // Two server processes starting together add it once.
    const [first, second] = await Promise.all([
      seedDemoIfEmpty(testDatabase.database, { variant: 'logistics' }),
      seedDemoIfEmpty(testDatabase.database, { variant: 'logistics' }),
    ]);
    const added = [first, second].flatMap((summaries) => summaries ?? []);
    expect(added).toEqual([{ organization: 'demo', buildings: 0, floors: 0, rooms: 0, robots: 4, users: 4, jobs: 0, logs: 0 }]);
    await expectLogistics(db);
    expect(await seedDemoIfEmpty(testDatabase.database, { variant: 'logistics' })).toBeNull();
    const after = await rowsOf('demo');
    expect(after.robots).toHaveLength(DEMO.robots.length + logistics.robots.length);
    expect(after.users).toHaveLength(DEMO.users.length + logistics.users.length);
    expect(after.jobs).toHaveLength(jobsBefore.jobs.length);
    expect(after.rooms).toHaveLength(jobsBefore.rooms.length);
  });
});

describe('generated floor plans', () => {
  it('are the same on every run', () => {
    expect(generateHospital()).toEqual(generateHospital());
  });

  it('keep every room inside the map, with its entry point in the corridor by its door', async () => {
    const site = await rowsOf('demo');
    for (const floor of site.floors) {
      const metadata = floor.mapMetadata;
      if (!metadata) throw new Error(`floor ${floor.name} has no map metadata`);
      expect(metadata.resolution).toBe(0.05);
      const floorRooms = site.rooms.filter((room) => room.floorId === floor.id);
      expect(floorRooms.length).toBeGreaterThan(0);
      for (const room of floorRooms) {
        expect(room.polygon.length).toBeGreaterThanOrEqual(4);
        for (const point of room.polygon) {
          const { px, py } = toPixel(metadata, point);
          expect(px).toBeGreaterThanOrEqual(0);
          expect(px).toBeLessThanOrEqual(metadata.width);
          expect(py).toBeGreaterThanOrEqual(0);
          expect(py).toBeLessThanOrEqual(metadata.height);
        }
        const entry = room.entryPoint;
        if (!entry) throw new Error(`room ${room.name} has no entry point`);
        expect(floorRooms.some((other) => insidePolygon(entry, other.polygon))).toBe(false);
        expect(distanceToPolygon(entry, room.polygon)).toBeLessThan(1.5);
        // Facing the room: a step forward from the entry point is inside it.
        const ahead = { x: entry.x + 1.5 * Math.cos(entry.theta), y: entry.y + 1.5 * Math.sin(entry.theta) };
        expect(insidePolygon(ahead, room.polygon)).toBe(true);
      }
    }
  });

  it('draw an SVG per floor that parses as XML with one shape per room', async () => {
    const site = await rowsOf('demo');
    for (const floor of site.floors) {
      const svg = parseXml(floor.mapSvg ?? '');
      expect(svg.name).toBe('svg');
      expect(Number(svg.attributes.width)).toBe(floor.mapMetadata?.width);
      expect(Number(svg.attributes.height)).toBe(floor.mapMetadata?.height);
      const shapes = descendants(svg, (element) => element.attributes.class === 'room');
      const floorRooms = site.rooms.filter((room) => room.floorId === floor.id);
      expect(shapes).toHaveLength(floorRooms.length);
      expect(new Set(shapes.map((shape) => shape.attributes['data-room-name']))).toEqual(new Set(floorRooms.map((room) => room.name)));
    }
  });
});
