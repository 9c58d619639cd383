/**
 * The site file of `npm run site:import` (format in ./README.md): JSON or YAML, validated with zod, with plans
 * read from files next to it. Every problem is reported with the path of the field it is about.
 */
import { readFile } from 'node:fs/promises';
import { dirname, extname, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { OrganizationId, RobotKind } from '@uvd/contracts';
import { boundsOf, metadataForBounds, roomLayer, svgDocument } from './plan-svg.ts';
import { parsePgm, PgmError, RosMapYaml, rosMapPlan } from './ros-map.ts';
import type { Site, SiteFloor, SitePlan } from './site.ts';

export interface SiteProblem {
  /** Where in the site file, e.g. `buildings[0].floors[1].rooms[2].polygon`. */
  path: string;
  message: string;
}

export class SiteImportError extends Error {
  readonly source: string;
  readonly problems: SiteProblem[];
  constructor(source: string, problems: SiteProblem[]) {
    super(`${source}: ${problems.map((p) => (p.path ? `${p.path}: ${p.message}` : p.message)).join('; ')}`);
    this.name = 'SiteImportError';
    this.source = source;
    this.problems = problems;
  }
}

export const formatPath = (path: readonly PropertyKey[]): string =>
  path.reduce<string>((text, key) => (typeof key === 'number' ? `${text}[${key}]` : text ? `${text}.${String(key)}` : String(key)), '');

const metres = z.number();
const Point = z.union([z.strictObject({ x: metres, y: metres }), z.tuple([metres, metres])]).transform((p) => (Array.isArray(p) ? { x: p[0], y: p[1] } : p));
const Pose = z
  .union([z.strictObject({ x: metres, y: metres, theta: metres.default(0) }), z.tuple([metres, metres, metres])])
  .transform((p) => (Array.isArray(p) ? { x: p[0], y: p[1], theta: p[2] } : p));
const Name = z.string().trim().min(1, 'must not be empty');
const Dose = z.int().positive();
/** An organization id is its realm name in sign-in and token addresses: lowercase, URL-safe. */

const Room = z.strictObject({
  name: Name,
  polygon: z.array(Point).min(3, 'needs at least 3 points'),
  entry_point: Pose,
  dose: Dose.optional(),
});

const Metadata = z.strictObject({
  resolution: z.number().positive(),
  origin: z.strictObject({ x: metres, y: metres }),
  width: z.int().positive(),
  height: z.int().positive(),
});

const Plan = z
  .strictObject({
    /** An SVG file drawn in the map's pixel space; needs `metadata`. */
    svg: z.string().min(1).optional(),
    metadata: Metadata.optional(),
    /** A ROS map_server YAML file; its `image` names the PGM. */
    ros_map: z.string().min(1).optional(),
  })
  .superRefine((plan, ctx) => {
    if ((plan.svg === undefined) === (plan.ros_map === undefined))
      ctx.addIssue({ code: 'custom', message: 'give either svg (with metadata) or ros_map', path: [] });
    if (plan.svg !== undefined && !plan.metadata) ctx.addIssue({ code: 'custom', message: 'is required with svg', path: ['metadata'] });
    if (plan.ros_map !== undefined && plan.metadata) ctx.addIssue({ code: 'custom', message: 'comes from the ros_map file; remove it', path: ['metadata'] });
  });

const Floor = z.strictObject({
  name: Name,
  level: z.int().optional(),
  plan: Plan.optional(),
  rooms: z.array(Room).default([]),
});

const Building = z.strictObject({
  name: Name,
  floors: z.array(Floor).min(1, 'needs at least one floor'),
});

/**
 * A robot of the site. `kind` is read as text and checked in SiteFile's refinement, so that a wrong one is reported
 * with the robot's name.
 */
const SiteFileRobot = z.strictObject({
  name: Name,
  serial_number: Name,
  manufacturer: Name.default('uvd'),
  kind: z.string().optional(),
  building: Name,
  floor: Name,
  home: Pose.optional(),
});

const uniqueNames = (items: readonly { name: string }[], path: PropertyKey[], ctx: z.RefinementCtx) => {
  const seen = new Set<string>();
  items.forEach((item, index) => {
    if (seen.has(item.name)) ctx.addIssue({ code: 'custom', message: `"${item.name}" appears twice; names identify what a re-import updates`, path: [...path, index, 'name'] });
    seen.add(item.name);
  });
};

export const SiteFile = z
  .strictObject({
    organization: z
      .strictObject({
        id: OrganizationId.optional(),
        name: Name.optional(),
        uvc_doses: z.array(Dose).min(1).optional(),
        default_dose: Dose.optional(),
      })
      .default({}),
    buildings: z.array(Building).min(1, 'needs at least one building'),
    robots: z.array(SiteFileRobot).default([]),
  })
  .superRefine((file, ctx) => {
    const doses = file.organization.uvc_doses;
    const defaultDose = file.organization.default_dose;
    if (doses && defaultDose !== undefined && !doses.includes(defaultDose))
      ctx.addIssue({ code: 'custom', message: `${defaultDose} is not one of uvc_doses`, path: ['organization', 'default_dose'] });
    uniqueNames(file.buildings, ['buildings'], ctx);
    file.buildings.forEach((building, b) => {
      uniqueNames(building.floors, ['buildings', b, 'floors'], ctx);
      building.floors.forEach((floor, f) => {
        uniqueNames(floor.rooms, ['buildings', b, 'floors', f, 'rooms'], ctx);
      });
    });
    uniqueNames(file.robots, ['robots'], ctx);
    const identities = new Set<string>();
    file.robots.forEach((robot, r) => {
      if (robot.kind !== undefined && !RobotKind.safeParse(robot.kind).success)
        ctx.addIssue({
          code: 'custom',
          message: `robot "${robot.name}" has the unknown kind "${robot.kind}"; a robot is ${RobotKind.options.join(' or ')}`,
          path: ['robots', r, 'kind'],
        });
      const identity = `${robot.manufacturer}/${robot.serial_number}`;
      if (identities.has(identity))
        ctx.addIssue({ code: 'custom', message: `robot "${robot.name}": ${identity} appears twice; the serial number identifies the robot`, path: ['robots', r, 'serial_number'] });
      identities.add(identity);
      const building = file.buildings.find((candidate) => candidate.name === robot.building);
      if (!building) ctx.addIssue({ code: 'custom', message: `robot "${robot.name}": no building "${robot.building}" in this file`, path: ['robots', r, 'building'] });
      else if (!building.floors.some((floor) => floor.name === robot.floor))
        ctx.addIssue({ code: 'custom', message: `robot "${robot.name}": no floor "${robot.floor}" in building "${robot.building}"`, path: ['robots', r, 'floor'] });
    });
  });
export type SiteFile = z.output<typeof SiteFile>;

export interface LoadedSite {
  organization: { id?: string | undefined; name?: string | undefined; uvcDoses?: number[] | undefined; defaultDose?: number | undefined };
  site: Site;
  /** Where each room's dose came from in the file, to report doses the organization does not offer. */
  roomDosePaths: { path: string; dose: number }[];
}

function parseText(text: string, file: string): unknown {
  const extension = extname(file).toLowerCase();
  try {
    if (extension === '.json') return JSON.parse(text) as unknown;
    if (extension === '.yaml' || extension === '.yml') return parseYaml(text) as unknown;
  } catch (error) {
    throw new SiteImportError(file, [{ path: '', message: `not valid ${extension === '.json' ? 'JSON' : 'YAML'}: ${(error as Error).message}` }]);
  }
  throw new SiteImportError(file, [{ path: '', message: 'the site file must end in .json, .yaml or .yml' }]);
}

const readText = async (path: string, fieldPath: string): Promise<string> => {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    throw new SiteImportError('site file', [{ path: fieldPath, message: `cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? 'error'})` }]);
  }
};

async function loadPlan(plan: NonNullable<SiteFile['buildings'][number]['floors'][number]['plan']>, floor: SiteFloor, title: string, baseDir: string, fieldPath: string): Promise<SitePlan> {
  if (plan.svg !== undefined && plan.metadata) {
    const svg = await readText(resolve(baseDir, plan.svg), `${fieldPath}.svg`);
    if (!/<svg[\s>]/.test(svg)) throw new SiteImportError('site file', [{ path: `${fieldPath}.svg`, message: `${plan.svg} is not an SVG document` }]);
    return { svg, metadata: plan.metadata };
  }
  const yamlPath = resolve(baseDir, plan.ros_map ?? '');
  const where = `${fieldPath}.ros_map`;
  let parsedYaml: unknown;
  try {
    parsedYaml = parseYaml(await readText(yamlPath, where));
  } catch (error) {
    if (error instanceof SiteImportError) throw error;
    throw new SiteImportError('site file', [{ path: where, message: `${plan.ros_map ?? ''} is not valid YAML: ${(error as Error).message}` }]);
  }
  const map = RosMapYaml.safeParse(parsedYaml);
  if (!map.success)
    throw new SiteImportError(
      'site file',
      map.error.issues.map((issue) => ({ path: `${where} (${plan.ros_map ?? ''}) ${formatPath(issue.path)}`, message: issue.message })),
    );
  const imagePath = resolve(dirname(yamlPath), map.data.image);
  let bytes: Buffer;
  try {
    bytes = await readFile(imagePath);
  } catch (error) {
    throw new SiteImportError('site file', [{ path: `${where} (${plan.ros_map ?? ''}) image`, message: `cannot read ${imagePath} (${(error as NodeJS.ErrnoException).code ?? 'error'})` }]);
  }
  try {
    return rosMapPlan(parsePgm(bytes), map.data, title, floor.rooms);
  } catch (error) {
    if (error instanceof PgmError) throw new SiteImportError('site file', [{ path: `${where} (${plan.ros_map ?? ''}) image`, message: error.message }]);
    throw error;
  }
}

/** Validates a parsed site document; `baseDir` is where its plan files are looked up. */
export async function loadSiteDocument(document: unknown, baseDir: string, source = 'site file'): Promise<LoadedSite> {
  const parsed = SiteFile.safeParse(document);
  if (!parsed.success)
    throw new SiteImportError(
      source,
      parsed.error.issues.map((issue) => ({ path: formatPath(issue.path), message: issue.message })),
    );
  const file = parsed.data;
  const roomDosePaths: LoadedSite['roomDosePaths'] = [];
  const buildings = [];
  try {
    for (const [b, building] of file.buildings.entries()) {
      const floors: SiteFloor[] = [];
      for (const [f, floorInput] of building.floors.entries()) {
        const floor: SiteFloor = {
          name: floorInput.name,
          level: floorInput.level ?? f + 1,
          plan: null,
          rooms: floorInput.rooms.map((room, r) => {
            if (room.dose !== undefined) roomDosePaths.push({ path: `buildings[${b}].floors[${f}].rooms[${r}].dose`, dose: room.dose });
            return { name: room.name, polygon: room.polygon, entryPoint: room.entry_point, dose: room.dose ?? null };
          }),
        };
        const title = `${building.name} – ${floor.name}`;
        floor.plan = floorInput.plan
          ? await loadPlan(floorInput.plan, floor, title, baseDir, `buildings[${b}].floors[${f}].plan`)
          : roomsOnlyPlan(floor, title);
        floors.push(floor);
      }
      buildings.push({ name: building.name, floors });
    }
  } catch (error) {
    if (error instanceof SiteImportError) throw new SiteImportError(source, error.problems);
    throw error;
  }
  return {
    organization: {
      id: file.organization.id,
      name: file.organization.name,
      uvcDoses: file.organization.uvc_doses,
      defaultDose: file.organization.default_dose,
    },
    site: {
      buildings,
      robots: file.robots.map((robot) => ({
        name: robot.name,
        manufacturer: robot.manufacturer,
        serialNumber: robot.serial_number,
        kind: RobotKind.parse(robot.kind ?? 'disinfection'),
        building: robot.building,
        floor: robot.floor,
        home: robot.home ?? null,
      })),
    },
    roomDosePaths,
  };
}

/** Reads and validates a site file (.json, .yaml or .yml) and the plan files it names. */
export async function loadSiteFile(file: string): Promise<LoadedSite> {
  const text = await readText(file, '').catch((error: unknown) => {
    throw error instanceof SiteImportError ? new SiteImportError(file, error.problems) : error;
  });
  return loadSiteDocument(parseText(text, file), dirname(resolve(file)), file);
}

/** The plan of a floor the file gives none: its rooms on a neutral ground, so the map screen has something to show. */
export function roomsOnlyPlan(floor: SiteFloor, title: string): SitePlan | null {
  const points = floor.rooms.flatMap((room) => [...room.polygon, room.entryPoint]);
  if (points.length === 0) return null;
  const metadata = metadataForBounds(boundsOf(points), 0.05, 1);
  const ground = `<rect class="background" width="${metadata.width}" height="${metadata.height}" fill="#fafafa"/>`;
  return { svg: svgDocument(metadata, title, [ground, roomLayer(metadata, floor.rooms, '#e3f2fd')]), metadata };
}
