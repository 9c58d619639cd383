/**
 * A site as the seed and the importer write it: buildings → floors → rooms, in metres on each floor's map
 * frame, with an optional plan (SVG + metadata) per floor. Names are the keys: re-writing a site updates by name.
 */
import type { RobotKind } from '@uvd/contracts';
import type { MapMetadata, Point, Pose } from '../db/schema.ts';

export interface SiteRoom {
  name: string;
  polygon: Point[];
  entryPoint: Pose;
  /** The room's default dose (J/m²); null leaves the choice to the job editor. */
  dose: number | null;
}

export interface SitePlan {
  svg: string;
  metadata: MapMetadata;
}

export interface SiteFloor {
  name: string;
  level: number;
  /** Null keeps the floor's current plan. */
  plan: SitePlan | null;
  rooms: SiteRoom[];
}

export interface SiteBuilding {
  name: string;
  floors: SiteFloor[];
}

/** A robot of the site, matched by its VDA 5050 identity (manufacturer, serial number) when written again. */
export interface SiteRobot {
  name: string;
  manufacturer: string;
  serialNumber: string;
  /** What it is for: disinfection jobs or deliveries, never both. */
  kind: RobotKind;
  /** The floor it works on (names of the site's building and floor). */
  building: string;
  floor: string;
  /** Where it parks; null keeps the robot's current home. */
  home: Pose | null;
}

export interface Site {
  buildings: SiteBuilding[];
  /** Robots to register or update; the demo seed registers its robots itself. */
  robots?: SiteRobot[];
}
