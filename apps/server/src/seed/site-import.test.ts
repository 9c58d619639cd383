import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { asc, eq } from 'drizzle-orm';
import { stringify as toYaml } from 'yaml';
import type { Db } from '../db/client.ts';
import { buildings, floors, jobs, organizations, robots, rooms } from '../db/schema.ts';
import { runServerCli } from '../testing/cli.ts';
import { createTestDatabase, type TestDatabase } from '../testing/test-database.ts';
import { descendants, parseXml } from '../testing/seed-fixtures.ts';
import { SiteImportError } from './site-file.ts';
import { importSiteFile } from './site-import.ts';

const EXAMPLES = fileURLToPath(new URL('./examples/', import.meta.url));
let testDatabase: TestDatabase;
let db: Db;
let dir: string;

beforeAll(async () => {
  testDatabase = await createTestDatabase();
  db = testDatabase.database.db;
  dir = await mkdtemp(join(tmpdir(), 'site-import-'));
  await cp(EXAMPLES, dir, { recursive: true });
});
afterAll(async () => {
  await testDatabase.drop();
  await rm(dir, { recursive: true, force: true });
});

const uniqueOrg = () => `site-${randomBytes(4).toString('hex')}`;

const siteOf = async (orgId: string) => ({
  organization: (await db.select().from(organizations).where(eq(organizations.id, orgId)))[0],
  buildings: await db.select().from(buildings).where(eq(buildings.orgId, orgId)),
  floors: await db.select().from(floors).where(eq(floors.orgId, orgId)).orderBy(asc(floors.level)),
  rooms: await db.select().from(rooms).where(eq(rooms.orgId, orgId)).orderBy(asc(rooms.name)),
  robots: await db.select().from(robots).where(eq(robots.orgId, orgId)).orderBy(asc(robots.serialNumber)),
});

/** A serial number no other test (or run on a shared PostgreSQL) uses. */
const uniqueSerial = () => `SIM-${randomBytes(4).toString('hex')}`;

/** A small valid site as a JSON document; tests break one field of it at a time. */
const jsonSite = (orgId: string) => ({
  organization: { id: orgId, name: 'JSON Clinic', uvc_doses: [20, 40], default_dose: 20 },
  buildings: [
    {
      name: 'House 1',
      floors: [
        {
          name: 'Ground',
          rooms: [
            { name: '001 Waiting room', polygon: [[0, 0], [4, 0], [4, 3], [0, 3]], entry_point: { x: 2, y: -0.8, theta: 1.57 } },
            { name: '002 Toilet', polygon: [{ x: 4, y: 0 }, { x: 6, y: 0 }, { x: 6, y: 3 }, { x: 4, y: 3 }], entry_point: [5, -0.8, 1.57], dose: 40 },
          ],
        },
      ],
    },
  ],
});

const writeSite = async (name: string, content: unknown, format: 'json' | 'yaml' = 'json') => {
  const path = join(dir, `${name}.${format}`);
  await writeFile(path, format === 'json' ? JSON.stringify(content) : toYaml(content));
  return path;
};

/** The import must fail naming `path`, and leave the organization as it was. */
const expectRefused = async (file: string, orgId: string, path: string | RegExp, message?: RegExp) => {
  const before = await siteOf(orgId);
  const error = await importSiteFile(db, file, { orgId }).then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(SiteImportError);
  const problems = error instanceof SiteImportError ? error.problems : [];
  expect(problems.some((problem) => (typeof path === 'string' ? problem.path === path : path.test(problem.path)))).toBe(true);
  if (message) expect(problems.map((problem) => problem.message).join('\n')).toMatch(message);
  expect(await siteOf(orgId)).toEqual(before);
};

describe('site import', () => {
  it('imports the YAML example with its ROS map (PGM + YAML) and its SVG plan', async () => {
    const orgId = uniqueOrg();
    const summary = await importSiteFile(db, join(dir, 'site.yaml'), { orgId });
    expect(summary).toMatchObject({ organization: orgId, organizationCreated: true, rooms: { created: 5, updated: 0 } });
    const site = await siteOf(orgId);
    expect(site.organization).toMatchObject({ name: 'Example Health Centre', uvcDoses: [10, 20, 30, 50], defaultDose: 20 });
    expect(site.buildings.map((building) => building.name)).toEqual(['Health centre']);
    const [ground, first] = site.floors;
    expect(ground?.mapMetadata).toEqual({ resolution: 0.1, origin: { x: -1, y: -1 }, width: 120, height: 70 });
    const groundSvg = parseXml(ground?.mapSvg ?? '');
    expect(descendants(groundSvg, (element) => element.attributes.class === 'room')).toHaveLength(3);
    expect(descendants(groundSvg, (element) => element.attributes.class === 'occupied')[0]?.children.length).toBeGreaterThan(5);
    expect(first?.mapMetadata).toEqual({ resolution: 0.05, origin: { x: -1, y: -1 }, width: 240, height: 140 });
    expect(first?.mapSvg).toContain('1-202 Laboratory');
    const shower = site.rooms.find((room) => room.name === 'W-103 Shower room');
    expect(shower).toMatchObject({ dose: 50, entryPoint: { x: 8.5, y: 0.9, theta: 1.5708 }, floorId: ground?.id, orderNo: 2 });
    expect(shower?.polygon).toEqual([{ x: 7.1, y: 1.9 }, { x: 9.9, y: 1.9 }, { x: 9.9, y: 4.9 }, { x: 7.1, y: 4.9 }]);
    // Its robots: a UV robot by default, and a delivery robot.
    expect(summary.robots).toEqual({ created: 2, updated: 0 });
    expect(site.robots.map((robot) => [robot.name, robot.kind, robot.manufacturer, robot.floorId])).toEqual([
      ['DLV-7', 'delivery', 'uvd', first?.id],
      ['UVD-7', 'disinfection', 'uvd', ground?.id],
    ]);
    expect(site.robots[0]).toMatchObject({ home: { x: 11, y: 1.2, theta: 3.1416 }, pose: { x: 11, y: 1.2, theta: 3.1416 }, mqttPasswordHash: null });
  });

  it('registers robots of either kind and updates them by serial number on a new import', async () => {
    const orgId = uniqueOrg();
    const [uvSerial, deliverySerial] = [uniqueSerial(), uniqueSerial()];
    const site = {
      ...jsonSite(orgId),
      robots: [
        { name: 'UV 1', serial_number: uvSerial, building: 'House 1', floor: 'Ground', home: { x: 1, y: -1 } },
        { name: 'Courier 1', serial_number: deliverySerial, kind: 'delivery', building: 'House 1', floor: 'Ground' },
      ],
    };
    const first = await importSiteFile(db, await writeSite('robots-1', site));
    expect(first.robots).toEqual({ created: 2, updated: 0 });
    const before = await siteOf(orgId);
    const courier = before.robots.find((robot) => robot.serialNumber === deliverySerial);
    expect(courier).toMatchObject({ name: 'Courier 1', kind: 'delivery', home: null, floorId: before.floors[0]?.id });
    expect(before.robots.find((robot) => robot.serialNumber === uvSerial)).toMatchObject({ kind: 'disinfection', home: { x: 1, y: -1, theta: 0 } });

    // Renamed, made a UV robot, given a home: the same robot (same id), matched by its serial number.
    const again = { ...site, robots: [{ name: 'UV 2', serial_number: deliverySerial, kind: 'disinfection', building: 'House 1', floor: 'Ground', home: [2, -1, 0] }] };
    const second = await importSiteFile(db, await writeSite('robots-2', again, 'yaml'));
    expect(second.robots).toEqual({ created: 0, updated: 1 });
    const after = await siteOf(orgId);
    expect(after.robots).toHaveLength(2);
    expect(after.robots.find((robot) => robot.id === courier?.id)).toMatchObject({ name: 'UV 2', kind: 'disinfection', home: { x: 2, y: -1, theta: 0 } });
  });

  it('imports JSON, drawing a plan of the rooms for a floor given none', async () => {
    const orgId = uniqueOrg();
    await importSiteFile(db, await writeSite('plain', jsonSite(orgId)));
    const site = await siteOf(orgId);
    expect(site.organization).toMatchObject({ name: 'JSON Clinic', uvcDoses: [20, 40], defaultDose: 20 });
    expect(site.rooms.map((room) => room.name)).toEqual(['001 Waiting room', '002 Toilet']);
    expect(site.rooms[0]).toMatchObject({ dose: null, polygon: [{ x: 0, y: 0 }, { x: 4, y: 0 }, { x: 4, y: 3 }, { x: 0, y: 3 }] });
    expect(site.floors[0]).toMatchObject({ name: 'Ground', level: 1 });
    const svg = parseXml(site.floors[0]?.mapSvg ?? '');
    expect(descendants(svg, (element) => element.attributes.class === 'room')).toHaveLength(2);
  });

  it('updates by name when the same site is imported again', async () => {
    const orgId = uniqueOrg();
    const original = jsonSite(orgId);
    await importSiteFile(db, await writeSite('again-1', original));
    const before = await siteOf(orgId);
    const changed = jsonSite(orgId);
    const floor = changed.buildings[0]?.floors[0];
    if (!floor) throw new Error('fixture has a floor');
    floor.rooms.reverse();
    floor.rooms.push({ name: '003 Office', polygon: [[6, 0], [9, 0], [9, 3]], entry_point: { x: 7.5, y: -0.8, theta: 1.57 } });
    changed.organization.name = 'JSON Clinic (renamed)';
    const summary = await importSiteFile(db, await writeSite('again-2', changed, 'yaml'));
    expect(summary).toMatchObject({
      organizationCreated: false,
      buildings: { created: 0, updated: 1 },
      floors: { created: 0, updated: 1 },
      rooms: { created: 1, updated: 2 },
    });
    const after = await siteOf(orgId);
    expect(after.organization?.name).toBe('JSON Clinic (renamed)');
    expect(after.buildings.map((building) => building.id)).toEqual(before.buildings.map((building) => building.id));
    expect(after.rooms).toHaveLength(3);
    const waiting = after.rooms.find((room) => room.name === '001 Waiting room');
    expect(waiting?.id).toBe(before.rooms.find((room) => room.name === '001 Waiting room')?.id);
    expect(waiting?.orderNo).toBe(1);
  });

  it('takes the organization from --org over the file', async () => {
    const orgId = uniqueOrg();
    await importSiteFile(db, await writeSite('org-option', jsonSite('ignored-org')), { orgId });
    expect((await siteOf(orgId)).rooms).toHaveLength(2);
    expect((await siteOf('ignored-org')).organization).toBeUndefined();
  });
});

describe('bad site files', () => {
  it('names the field and writes nothing', async () => {
    const orgId = uniqueOrg();
    const broken = (change: (site: ReturnType<typeof jsonSite>) => void) => {
      const site = jsonSite(orgId);
      change(site);
      return site;
    };
    const room = (site: ReturnType<typeof jsonSite>, index = 0) => {
      const found = site.buildings[0]?.floors[0]?.rooms[index];
      if (!found) throw new Error('fixture has rooms');
      return found;
    };
    const cases: [string, unknown, string | RegExp, RegExp?][] = [
      ['two-points', broken((site) => { room(site).polygon = [[0, 0], [1, 1]]; }), 'buildings[0].floors[0].rooms[0].polygon', /at least 3/],
      ['no-entry', broken((site) => { Reflect.deleteProperty(room(site), 'entry_point'); }), 'buildings[0].floors[0].rooms[0].entry_point'],
      ['text-x', broken((site) => { room(site, 1).entry_point = ['a', 1, 2] as unknown as number[]; }), /^buildings\[0\]\.floors\[0\]\.rooms\[1\]\.entry_point/],
      ['typo', broken((site) => { Object.assign(room(site), { nmae: 'x' }); }), 'buildings[0].floors[0].rooms[0]', /nmae/],
      ['twice', broken((site) => { room(site, 1).name = '001 Waiting room'; }), 'buildings[0].floors[0].rooms[1].name', /twice/],
      ['no-buildings', broken((site) => { site.buildings = []; }), 'buildings'],
      ['bad-default', broken((site) => { site.organization.default_dose = 30; }), 'organization.default_dose'],
      ['svg-no-metadata', broken((site) => { Object.assign(site.buildings[0]?.floors[0] ?? {}, { plan: { svg: 'first-floor.svg' } }); }), 'buildings[0].floors[0].plan.metadata'],
      ['svg-missing', broken((site) => {
        Object.assign(site.buildings[0]?.floors[0] ?? {}, { plan: { svg: 'nope.svg', metadata: { resolution: 0.05, origin: { x: 0, y: 0 }, width: 10, height: 10 } } });
      }), 'buildings[0].floors[0].plan.svg', /ENOENT/],
      ['ros-missing', broken((site) => { Object.assign(site.buildings[0]?.floors[0] ?? {}, { plan: { ros_map: 'nope.yaml' } }); }), 'buildings[0].floors[0].plan.ros_map'],
      ['dose', broken((site) => { room(site).dose = 35; }), 'buildings[0].floors[0].rooms[0].dose', /not one of the organization's doses/],
      ['robot-kind', { ...jsonSite(orgId), robots: [{ name: 'Forklift 9', serial_number: 'K-1', kind: 'forklift', building: 'House 1', floor: 'Ground' }] }, 'robots[0].kind', /robot "Forklift 9" has the unknown kind "forklift"; a robot is disinfection or delivery/],
      ['robot-floor', { ...jsonSite(orgId), robots: [{ name: 'R1', serial_number: 'K-2', building: 'House 1', floor: 'Attic' }] }, 'robots[0].floor', /robot "R1": no floor "Attic" in building "House 1"/],
      ['robot-building', { ...jsonSite(orgId), robots: [{ name: 'R1', serial_number: 'K-2', building: 'House 9', floor: 'Ground' }] }, 'robots[0].building', /no building "House 9"/],
      ['robot-serial-twice', {
        ...jsonSite(orgId),
        robots: [{ name: 'R1', serial_number: 'K-3', building: 'House 1', floor: 'Ground' }, { name: 'R2', serial_number: 'K-3', building: 'House 1', floor: 'Ground' }],
      }, 'robots[1].serial_number', /robot "R2": uvd\/K-3 appears twice/],
      ['robot-typo', { ...jsonSite(orgId), robots: [{ name: 'R1', serial_number: 'K-4', building: 'House 1', floor: 'Ground', knd: 'delivery' }] }, 'robots[0]', /knd/],
    ];
    for (const [name, content, path, message] of cases) await expectRefused(await writeSite(name, content), orgId, path, message);
    expect((await siteOf(orgId)).organization).toBeUndefined();
  });

  it('reports a bad ROS map YAML and a bad PGM by the plan field', async () => {
    const orgId = uniqueOrg();
    await writeFile(join(dir, 'bad-map.yaml'), 'image: ward.pgm\nresolution: -1\norigin: [0, 0, 0]\n');
    await writeFile(join(dir, 'broken.pgm'), 'P5\n10 10\n255\n\0\0');
    await writeFile(join(dir, 'broken-map.yaml'), 'image: broken.pgm\nresolution: 0.05\norigin: [0, 0, 0]\n');
    const withMap = (map: string) => ({ ...jsonSite(orgId), buildings: [{ name: 'H', floors: [{ name: 'F', plan: { ros_map: map }, rooms: [] }] }] });
    await expectRefused(await writeSite('bad-map', withMap('bad-map.yaml')), orgId, /^buildings\[0\]\.floors\[0\]\.plan\.ros_map .*resolution$/);
    await expectRefused(await writeSite('broken-map', withMap('broken-map.yaml')), orgId, /plan\.ros_map .*image$/, /100 expected/);
  });

  it('refuses a file that does not parse, and a dose an existing organization does not offer, rolling back', async () => {
    const orgId = uniqueOrg();
    await importSiteFile(db, await writeSite('existing', jsonSite(orgId)));
    const yamlPath = join(dir, 'syntax.yaml');
    await writeFile(yamlPath, 'buildings: [\n  - name: x\n');
    await expectRefused(yamlPath, orgId, '', /not valid YAML/);
    const site = jsonSite(orgId);
    Reflect.deleteProperty(site.organization, 'uvc_doses');
    Reflect.deleteProperty(site.organization, 'default_dose');
    site.organization.name = 'Must not be renamed';
    const firstRoom = site.buildings[0]?.floors[0]?.rooms[0];
    if (firstRoom) firstRoom.dose = 30;
    site.buildings.push({ name: 'Must not appear', floors: [{ name: 'F', rooms: [] }] });
    await expectRefused(await writeSite('existing-bad-dose', site), orgId, 'buildings[0].floors[0].rooms[0].dose');
  });

  it("refuses another organization's robot, and a new kind for a robot with a job to do, rolling back", async () => {
    const orgId = uniqueOrg();
    const serial = uniqueSerial();
    const robot = { name: 'UV 1', serial_number: serial, building: 'House 1', floor: 'Ground' };
    await importSiteFile(db, await writeSite('robot-owner', { ...jsonSite(orgId), robots: [robot] }));

    const otherOrg = uniqueOrg();
    await importSiteFile(db, await writeSite('robot-other', jsonSite(otherOrg)));
    const taken = { ...jsonSite(otherOrg), robots: [{ ...robot, name: 'Mine now' }] };
    taken.buildings.push({ name: 'Must not appear', floors: [{ name: 'F', rooms: [] }] });
    await expectRefused(await writeSite('robot-taken', taken), otherOrg, 'robots[0].serial_number', /robot "Mine now": uvd\/SIM-[0-9a-f]+ is registered in another organization/);

    const [row] = (await siteOf(orgId)).robots;
    if (!row) throw new Error('the robot was imported');
    await db.insert(jobs).values({ orgId, robotId: row.id, name: 'Evening round', startTime: new Date(Date.now() + 3600_000), createdBy: 'admin' });
    const delivery = { ...jsonSite(orgId), robots: [{ ...robot, kind: 'delivery' }] };
    delivery.buildings.push({ name: 'Must not appear', floors: [{ name: 'F', rooms: [] }] });
    await expectRefused(await writeSite('robot-kind-busy', delivery), orgId, 'robots[0].kind', /robot "UV 1" is disinfection and has work not finished/);
    // Without the job it may become a delivery robot.
    await db.delete(jobs).where(eq(jobs.robotId, row.id));
    await importSiteFile(db, await writeSite('robot-kind-free', delivery));
    expect((await siteOf(orgId)).robots[0]?.kind).toBe('delivery');
  });
});

describe('npm run site:import', () => {
  const run = (args: string[], dataDir: string) => runServerCli('src/seed/site-import-cli.ts', args, { DATA_DIR: dataDir, DATABASE_URL: '' });

  it('imports a file into the data folder, and explains a bad one', async () => {
    const dataDir = join(dir, 'data');
    const good = await run([join(dir, 'site.yaml'), '--org', 'cli-example'], dataDir);
    expect(good.stdout).toContain('into organization cli-example (new)');
    expect(good.stdout).toContain('robots: 2 created, 0 updated');
    expect(good.code).toBe(0);
    const bad = await run([await writeSite('cli-bad', { buildings: [{ name: 'H', floors: [] }] })], dataDir);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('Nothing was imported');
    expect(bad.stderr).toContain('buildings[0].floors: needs at least one floor');
  }, 120_000);
});
