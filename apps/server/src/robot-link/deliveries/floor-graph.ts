/**
 * The floor graph the dispatcher measures "nearest" on (README.md, "Deliveries"): what a site tells us is its
 * buildings, their floors (with a level), the rooms' entry points and the robots' homes, all in metres on each
 * floor's map frame. Corridors are not drawn, so on one floor two places are joined by a straight edge. Floors of a
 * building are joined through the building's lift: each floor's lift lobby is the centre of the places known on
 * that floor (entry points and homes: a hospital's lift core lies within its wards), and riding costs
 * `LIFT_BOARDING_METRES` (the wait, as metres driven in that time) plus `LIFT_LEVEL_METRES` per level. Buildings are
 * joined through their lowest floors' lifts at `BUILDING_CHANGE_METRES`. Since straight edges on a floor obey the
 * triangle inequality, the shortest path is direct on a floor, and otherwise runs through the lifts: that is what
 * `distance` computes, without a general search.
 */
import type { Point } from '../../db/schema.ts';

/** Waiting for a lift and getting in, as metres a robot drives in that time (about two minutes at 0.5 m/s). */
export const LIFT_BOARDING_METRES = 60;
export const LIFT_LEVEL_METRES = 10;
/** From one building to another, between their lowest floors' lifts. */
export const BUILDING_CHANGE_METRES = 300;

export interface GraphPlace {
  floorId: string;
  x: number;
  y: number;
}

export interface GraphFloor {
  id: string;
  buildingId: string;
  level: number;
  /** The places known on the floor (rooms' entry points, robots' homes); their centre is the lift lobby. */
  places: readonly Point[];
}

interface FloorNode {
  buildingId: string;
  level: number;
  lift: Point;
}

const between = (a: Point, b: Point) => Math.hypot(a.x - b.x, a.y - b.y);

export class FloorGraph {
  private readonly floors = new Map<string, FloorNode>();
  /** Per building, the lift lobby of its lowest floor and that floor's level. */
  private readonly ground = new Map<string, { level: number; lift: Point }>();

  constructor(floors: readonly GraphFloor[]) {
    for (const floor of floors) {
      const n = floor.places.length;
      const lift = n === 0 ? { x: 0, y: 0 } : { x: floor.places.reduce((s, p) => s + p.x, 0) / n, y: floor.places.reduce((s, p) => s + p.y, 0) / n };
      this.floors.set(floor.id, { buildingId: floor.buildingId, level: floor.level, lift });
      const ground = this.ground.get(floor.buildingId);
      if (!ground || floor.level < ground.level) this.ground.set(floor.buildingId, { level: floor.level, lift });
    }
  }

  /** Metres along the shortest path from `a` to `b`; Infinity when either floor is unknown. */
  distance(a: GraphPlace, b: GraphPlace): number {
    if (a.floorId === b.floorId) return between(a, b);
    const from = this.floors.get(a.floorId);
    const to = this.floors.get(b.floorId);
    if (!from || !to) return Number.POSITIVE_INFINITY;
    const ride = (levels: number) => LIFT_BOARDING_METRES + LIFT_LEVEL_METRES * Math.abs(levels);
    const ends = between(a, from.lift) + between(to.lift, b);
    if (from.buildingId === to.buildingId) return ends + ride(from.level - to.level);
    const groundFrom = this.ground.get(from.buildingId);
    const groundTo = this.ground.get(to.buildingId);
    if (!groundFrom || !groundTo) return Number.POSITIVE_INFINITY;
    const down = from.level === groundFrom.level ? 0 : ride(from.level - groundFrom.level);
    const up = to.level === groundTo.level ? 0 : ride(to.level - groundTo.level);
    // A floor's own lift lobby is its ground lobby when it is the lowest floor, so the legs add up.
    return ends + down + BUILDING_CHANGE_METRES + up;
  }
}
