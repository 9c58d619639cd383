/**
 * A site as the seed and the importer write it: buildings → floors → rooms, in metres on each floor's map
 * frame, with an optional plan (SVG + metadata) per floor. Names are the keys: re-writing a site updates by name.
 */
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

export interface Site {
  buildings: SiteBuilding[];
}
