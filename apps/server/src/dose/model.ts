/**
 * The dose model (README.md): UV-C irradiance of a robot's lamp, the dose field it leaves over a room's polygon
 * from the lamp-on intervals and the recorded path, and the room's figures. Pure: no I/O, no clock.
 * Irradiance in W/m², doses in J/m², lengths in metres on the floor's map frame, times in seconds.
 */
import type { DoseGrid, LampModel, MapPoint, RoomDoseStats, TrajectoryPoint } from '@uvd/contracts';

/** Height of the surfaces the dose is computed on: bed and worktop height, where hands touch. */
export const REFERENCE_HEIGHT_M = 1.0;
/** Nearer than this to the lamp's axis is the robot's own body: the irradiance is taken at this radius. */
export const MIN_RADIUS_M = 0.3;
/** The lamp tube is split into this many point sources. */
export const LAMP_SEGMENTS = 16;
/** Cell side of a room's grid unless the room needs coarser cells to stay within MAX_CELLS. */
export const CELL_M = 0.2;
/** At most this many cells per room: the field's cost and its stored size stay bounded for any polygon. */
export const MAX_CELLS = 4096;
/** At most this many robot positions (exposures) per room: a long path inside a room is merged down to this. */
export const MAX_EXPOSURES = 256;

const TAU = 2 * Math.PI;

/**
 * Irradiance (W/m²) on a surface at REFERENCE_HEIGHT_M, facing the lamp's axis, at horizontal distance `r` from it,
 * with the profile's factor 1: each of LAMP_SEGMENTS point sources of power P/N radiates P/(4πN) W/sr; a source
 * at distance d and height difference dz meets the vertical surface at incidence cos θ = r/d.
 */
export function radialIrradiance(lamp: LampModel, r: number): number {
  const radius = Math.max(r, MIN_RADIUS_M);
  const intensity = lamp.uvc_power_w / LAMP_SEGMENTS / (2 * TAU);
  let sum = 0;
  for (let k = 0; k < LAMP_SEGMENTS; k += 1) {
    const z = lamp.height_m - lamp.length_m / 2 + ((k + 0.5) * lamp.length_m) / LAMP_SEGMENTS;
    const dz = z - REFERENCE_HEIGHT_M;
    const d2 = radius * radius + dz * dz;
    sum += (intensity * radius) / (d2 * Math.sqrt(d2));
  }
  return sum;
}

const TABLE_STEP_M = 0.005;
const TABLE_REACH_M = 60;
/** Tables kept, by lamp geometry (a fleet has a few robot models); all dropped when more are needed. */
const RADIAL_TABLES_KEPT = 32;
const radialTables = new Map<string, Float64Array>();

/**
 * radialIrradiance by a table of TABLE_STEP_M steps out to TABLE_REACH_M, linearly interpolated (relative error
 * below 0.03 % from MIN_RADIUS_M out); beyond it the tube (at most 5 m) is a point at its centre, within 0.2 %.
 * A field's cells × exposures × segments would otherwise cost up to ~17 M source terms per room.
 */
export function radialTable(lamp: LampModel): (r: number) => number {
  const size = Math.ceil(TABLE_REACH_M / TABLE_STEP_M) + 2;
  // Building a table costs ~200 000 source terms, more than a typical room's field: one per lamp geometry.
  const key = `${lamp.uvc_power_w}|${lamp.height_m}|${lamp.length_m}`;
  let table = radialTables.get(key);
  if (!table) {
    table = new Float64Array(size);
    for (let i = 0; i < size; i += 1) table[i] = radialIrradiance(lamp, i * TABLE_STEP_M);
    if (radialTables.size >= RADIAL_TABLES_KEPT) radialTables.clear();
    radialTables.set(key, table);
  }
  const values = table;
  return (r) => {
    const position = r / TABLE_STEP_M;
    const index = Math.floor(position);
    if (index + 1 >= size) {
      const dz = lamp.height_m - REFERENCE_HEIGHT_M;
      const d2 = r * r + dz * dz;
      return (lamp.uvc_power_w / (2 * TAU)) * (r / (d2 * Math.sqrt(d2)));
    }
    const here = values[index] ?? 0;
    return here + ((values[index + 1] ?? 0) - here) * (position - index);
  };
}

/**
 * The profile's factor at `azimuth` radians counter-clockwise from the robot's heading: the factors are evenly
 * spaced from the heading round, linearly interpolated between neighbours.
 */
export function profileFactor(profile: readonly number[], azimuth: number): number {
  const n = profile.length;
  if (n === 0) return 1;
  const turn = ((azimuth % TAU) + TAU) % TAU;
  const position = (turn / TAU) * n;
  const index = Math.floor(position) % n;
  const fraction = position - Math.floor(position);
  const here = profile[index] ?? 1;
  const next = profile[(index + 1) % n] ?? 1;
  return here + (next - here) * fraction;
}

/** The profile's mean: the factor taken when the robot's heading is not known. */
export const meanProfile = (profile: readonly number[]): number =>
  profile.length === 0 ? 1 : profile.reduce((sum, factor) => sum + factor, 0) / profile.length;

/**
 * Irradiance (W/m²) at (`dx`, `dy`) from the lamp's axis, with the robot heading `heading` radians (map frame,
 * counter-clockwise from x), or null when unknown (the profile's mean then).
 */
export function irradiance(lamp: LampModel, dx: number, dy: number, heading: number | null): number {
  const factor = heading === null ? meanProfile(lamp.radial_profile) : profileFactor(lamp.radial_profile, Math.atan2(dy, dx) - heading);
  return radialIrradiance(lamp, Math.hypot(dx, dy)) * factor;
}

/** The robot standing at (`x`, `y`) with its lamp on for `seconds`. */
export interface Exposure {
  x: number;
  y: number;
  heading: number | null;
  seconds: number;
}

/** A lamp-on span in seconds since the job's start (the trajectory's `t`). */
export interface Span {
  from: number;
  to: number;
}

/**
 * Where the robot stood while its lamp was on during `spans`, on floor `floorId`. The path is thinned as it is
 * recorded (a point only once the robot moved TRAJECTORY_STEP_M, robot-link/job-reducer.ts), so the robot is held
 * at its last recorded point until the next one: interpolating would move a robot that dwells in a room. Before
 * the first point it is taken to be at the first point. Its heading is the direction of its last move (null before
 * it moved). Time on another floor gives this room nothing. More than `maxExposures` positions are merged, in time
 * order, into `maxExposures` time-weighted means.
 */
export function exposuresOf(
  trajectory: readonly TrajectoryPoint[],
  floorId: string | null,
  spans: readonly Span[],
  maxExposures = MAX_EXPOSURES,
): Exposure[] {
  if (trajectory.length === 0) return [];
  const points = [...trajectory].sort((a, b) => a.t - b.t);
  const headings: (number | null)[] = [];
  let heading: number | null = null;
  for (let i = 0; i < points.length; i += 1) {
    const point = points[i];
    const previous = points[i - 1];
    if (point && previous && previous.floor_id === point.floor_id && (point.x !== previous.x || point.y !== previous.y)) {
      heading = Math.atan2(point.y - previous.y, point.x - previous.x);
    }
    headings.push(heading);
  }
  const exposures: Exposure[] = [];
  const add = (index: number, seconds: number) => {
    const point = points[index];
    if (!point || seconds <= 0 || (floorId !== null && point.floor_id !== floorId)) return;
    const last = exposures[exposures.length - 1];
    const pointHeading = headings[index] ?? null;
    if (last && last.x === point.x && last.y === point.y && last.heading === pointHeading) last.seconds += seconds;
    else exposures.push({ x: point.x, y: point.y, heading: pointHeading, seconds });
  };
  for (const span of [...spans].sort((a, b) => a.from - b.from)) {
    if (!(span.to > span.from)) continue;
    // The point held at `from`: the last at or before it, or the first.
    let index = 0;
    while (index + 1 < points.length && (points[index + 1]?.t ?? Infinity) <= span.from) index += 1;
    let at = span.from;
    while (at < span.to) {
      const nextT = points[index + 1]?.t;
      const until = nextT !== undefined && nextT > at ? Math.min(nextT, span.to) : span.to;
      add(index, until - at);
      at = until;
      if (nextT !== undefined && nextT <= at) index += 1;
    }
  }
  return exposures.length <= maxExposures ? exposures : mergeExposures(exposures, maxExposures);
}

/** `count` time-weighted means of consecutive runs of `exposures`; each keeps the heading of its longest member. */
function mergeExposures(exposures: readonly Exposure[], count: number): Exposure[] {
  const merged: Exposure[] = [];
  const size = exposures.length / count;
  for (let group = 0; group < count; group += 1) {
    const members = exposures.slice(Math.floor(group * size), Math.floor((group + 1) * size));
    const seconds = members.reduce((sum, member) => sum + member.seconds, 0);
    if (members.length === 0 || seconds <= 0) continue;
    let longest = members[0];
    for (const member of members) if (longest && member.seconds > longest.seconds) longest = member;
    merged.push({
      x: members.reduce((sum, member) => sum + member.x * member.seconds, 0) / seconds,
      y: members.reduce((sum, member) => sum + member.y * member.seconds, 0) / seconds,
      heading: longest?.heading ?? null,
      seconds,
    });
  }
  return merged;
}

/** Even-odd test of a point against a polygon. */
export function insidePolygon(polygon: readonly MapPoint[], x: number, y: number): boolean {
  let inside = false;
  for (let i = 0, j = polygon.length - 1; i < polygon.length; j = i, i += 1) {
    const a = polygon[i];
    const b = polygon[j];
    if (!a || !b) continue;
    if (a.y > y !== b.y > y && x < ((b.x - a.x) * (y - a.y)) / (b.y - a.y) + a.x) inside = !inside;
  }
  return inside;
}

/** The grid laid over a polygon: its frame and which cells' centres are inside. Null for a polygon without area. */
export interface RoomGrid {
  origin: MapPoint;
  cellM: number;
  columns: number;
  rows: number;
  inside: boolean[];
}

export function gridOver(polygon: readonly MapPoint[], maxCells = MAX_CELLS): RoomGrid | null {
  if (polygon.length < 3) return null;
  const xs = polygon.map((point) => point.x);
  const ys = polygon.map((point) => point.y);
  const minX = Math.min(...xs);
  const minY = Math.min(...ys);
  const width = Math.max(...xs) - minX;
  const height = Math.max(...ys) - minY;
  if (!(width > 0 && height > 0) || !Number.isFinite(width * height)) return null;
  // A small room still gets at least 4 cells across its narrow side; a large one coarser cells, within maxCells.
  let cellM = Math.min(CELL_M, Math.min(width, height) / 4);
  cellM = Math.max(cellM, Math.sqrt((width * height) / maxCells));
  let columns = Math.max(1, Math.ceil(width / cellM - 1e-9));
  let rows = Math.max(1, Math.ceil(height / cellM - 1e-9));
  while (columns * rows > maxCells) {
    cellM *= 1.02;
    columns = Math.max(1, Math.ceil(width / cellM - 1e-9));
    rows = Math.max(1, Math.ceil(height / cellM - 1e-9));
  }
  const inside: boolean[] = new Array<boolean>(columns * rows);
  let any = false;
  for (let row = 0; row < rows; row += 1) {
    for (let column = 0; column < columns; column += 1) {
      const hit = insidePolygon(polygon, minX + (column + 0.5) * cellM, minY + (row + 0.5) * cellM);
      inside[row * columns + column] = hit;
      any ||= hit;
    }
  }
  return any ? { origin: { x: minX, y: minY }, cellM, columns, rows, inside } : null;
}

/**
 * The dose (J/m²) the exposures leave in each cell of `grid`, at its centre; null outside the polygon. Values are
 * rounded to 0.01 J/m² (they are stored with the log); the figures come from `doseStats` of the same values.
 */
export function doseField(lamp: LampModel, grid: RoomGrid, exposures: readonly Exposure[]): DoseGrid {
  const values: (number | null)[] = new Array<number | null>(grid.columns * grid.rows).fill(null);
  const radial = radialTable(lamp);
  // Up to MAX_CELLS × MAX_EXPOSURES terms: flat arrays, and no Math.hypot (several times slower than sqrt in V8).
  const count = exposures.length;
  const xs = Float64Array.from(exposures, (exposure) => exposure.x);
  const ys = Float64Array.from(exposures, (exposure) => exposure.y);
  const seconds = Float64Array.from(exposures, (exposure) => exposure.seconds);
  const headings = Float64Array.from(exposures, (exposure) => exposure.heading ?? Number.NaN);
  const profile = Float64Array.from(lamp.radial_profile);
  const steps = profile.length;
  const stepsPerRadian = steps / TAU;
  const even = profile.every((factor) => factor === profile[0]);
  const mean = meanProfile(lamp.radial_profile);
  for (let row = 0; row < grid.rows; row += 1) {
    const y = grid.origin.y + (row + 0.5) * grid.cellM;
    for (let column = 0; column < grid.columns; column += 1) {
      const cell = row * grid.columns + column;
      if (!grid.inside[cell]) continue;
      const x = grid.origin.x + (column + 0.5) * grid.cellM;
      let dose = 0;
      for (let e = 0; e < count; e += 1) {
        const dx = x - (xs[e] ?? 0);
        const dy = y - (ys[e] ?? 0);
        const heading = headings[e] ?? Number.NaN;
        let factor = mean;
        if (!even && !Number.isNaN(heading)) {
          // profileFactor, inlined: it is the costliest term.
          let position = (Math.atan2(dy, dx) - heading) * stepsPerRadian;
          position -= Math.floor(position / steps) * steps;
          const index = Math.min(steps - 1, Math.floor(position));
          const here = profile[index] ?? 1;
          factor = here + ((profile[index + 1 === steps ? 0 : index + 1] ?? 1) - here) * (position - index);
        }
        dose += radial(Math.sqrt(dx * dx + dy * dy)) * factor * (seconds[e] ?? 0);
      }
      values[cell] = Math.round(dose * 100) / 100;
    }
  }
  return { origin: grid.origin, cell_m: grid.cellM, columns: grid.columns, rows: grid.rows, values };
}

/**
 * A room's figures from its field: min, the 10th percentile (nearest rank: the smallest value with at least 10 % of
 * the cells at or below it), mean, and coverage (share of cells at or above `planned`). Every cell has the same
 * area, so shares of cells are shares of the floor area. Null for a field without cells.
 */
export function doseStats(field: DoseGrid, planned: number): RoomDoseStats | null {
  const values = field.values.filter((value): value is number => value !== null).sort((a, b) => a - b);
  const n = values.length;
  if (n === 0) return null;
  const sum = values.reduce((total, value) => total + value, 0);
  const covered = values.filter((value) => value >= planned).length;
  return {
    min: values[0] ?? 0,
    p10: values[Math.max(0, Math.ceil(0.1 * n) - 1)] ?? 0,
    mean: sum / n,
    coverage: covered / n,
  };
}

/** One room of a log: its order, planned dose, polygon and floor, and its lamp-on spans. */
export interface RoomInput {
  order: number;
  dose: number;
  polygon: readonly MapPoint[];
  floorId: string | null;
  spans: readonly Span[];
}

/**
 * Each room's field and figures: only its own spans dose it (walls block UV-C; README.md). A room without a
 * polygon gets nulls.
 */
export function roomDoses(
  lamp: LampModel,
  trajectory: readonly TrajectoryPoint[],
  rooms: readonly RoomInput[],
): Map<number, { grid: DoseGrid | null; stats: RoomDoseStats | null }> {
  const result = new Map<number, { grid: DoseGrid | null; stats: RoomDoseStats | null }>();
  for (const room of rooms) {
    const grid = gridOver(room.polygon);
    if (!grid) {
      result.set(room.order, { grid: null, stats: null });
      continue;
    }
    const field = doseField(lamp, grid, exposuresOf(trajectory, room.floorId, room.spans));
    result.set(room.order, { grid: field, stats: doseStats(field, room.dose) });
  }
  return result;
}
