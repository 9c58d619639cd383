/**
 * Where a room's name is written on a floor plan: at the pole of inaccessibility of its outline, the interior
 * point farthest from every wall. The arithmetic mean of the vertices, used before, falls on or beside the wall
 * of an L-shaped room (a patient room with its bathroom cut out). Shared by the server, which draws the plan's
 * own labels, and the console, which draws them again at a readable size.
 *
 * The algorithm is polylabel's (Mapbox, ISC licence; Garcia-Castellanos & Lombardo 2007): cover the outline's
 * bounding box with square cells, and keep splitting the cells that could still hold a point farther from the
 * outline than the best found, until none can beat it by more than `precision`. A few dozen lines, for outlines
 * of a handful of vertices; the npm package adds a queue dependency and a GeoJSON-style ring format.
 */
import type { MapPoint } from './rooms.ts';

export interface RoomLabelPlace extends MapPoint {
  /** How far the point is from the nearest wall (the radius of the largest circle inside the room there). */
  distance: number;
}

/** The squared distance from `point` to the segment a–b. */
const segmentDistanceSquared = (point: MapPoint, a: MapPoint, b: MapPoint): number => {
  let { x, y } = a;
  let dx = b.x - x;
  let dy = b.y - y;
  if (dx !== 0 || dy !== 0) {
    const t = ((point.x - x) * dx + (point.y - y) * dy) / (dx * dx + dy * dy);
    if (t > 1) {
      x = b.x;
      y = b.y;
    } else if (t > 0) {
      x += dx * t;
      y += dy * t;
    }
  }
  dx = point.x - x;
  dy = point.y - y;
  return dx * dx + dy * dy;
};

/** The distance from `point` to the outline: positive inside, negative outside (even-odd rule). */
export const signedDistanceToOutline = (point: MapPoint, polygon: readonly MapPoint[]): number => {
  let inside = false;
  let nearest = Infinity;
  for (let i = 0, j = polygon.length - 1; i < polygon.length; j = i, i += 1) {
    const a = polygon[i];
    const b = polygon[j];
    if (!a || !b) continue;
    if (a.y > point.y !== b.y > point.y && point.x < ((b.x - a.x) * (point.y - a.y)) / (b.y - a.y) + a.x) inside = !inside;
    nearest = Math.min(nearest, segmentDistanceSquared(point, a, b));
  }
  return nearest === Infinity ? 0 : (inside ? 1 : -1) * Math.sqrt(nearest);
};

interface Cell {
  x: number;
  y: number;
  /** Half the cell's side. */
  half: number;
  /** The distance from the cell's centre to the outline. */
  distance: number;
  /** The farthest any point of the cell can be from the outline. */
  potential: number;
}

const cellAt = (x: number, y: number, half: number, polygon: readonly MapPoint[]): Cell => {
  const distance = signedDistanceToOutline({ x, y }, polygon);
  return { x, y, half, distance, potential: distance + half * Math.SQRT2 };
};

/**
 * The pole of inaccessibility of `polygon` (a simple outline, in any unit), within `precision` of the true one.
 * An outline of fewer than three points gives its first point (or the origin) at distance 0.
 */
export function roomLabelPlace(polygon: readonly MapPoint[], precision = 0.01): RoomLabelPlace {
  const [first] = polygon;
  if (!first || polygon.length < 3) return { x: first?.x ?? 0, y: first?.y ?? 0, distance: 0 };
  const xs = polygon.map((point) => point.x);
  const ys = polygon.map((point) => point.y);
  const [minX, maxX, minY, maxY] = [Math.min(...xs), Math.max(...xs), Math.min(...ys), Math.max(...ys)];
  const size = Math.min(maxX - minX, maxY - minY);
  if (size === 0) return { x: minX, y: minY, distance: 0 };

  // The area-weighted centroid first: for a convex room it is the answer or close to it, which prunes early.
  let area = 0;
  let cx = 0;
  let cy = 0;
  for (let i = 0, j = polygon.length - 1; i < polygon.length; j = i, i += 1) {
    const a = polygon[i] ?? first;
    const b = polygon[j] ?? first;
    const cross = a.x * b.y - b.x * a.y;
    cx += (a.x + b.x) * cross;
    cy += (a.y + b.y) * cross;
    area += cross * 3;
  }
  let best = area === 0 ? cellAt(first.x, first.y, 0, polygon) : cellAt(cx / area, cy / area, 0, polygon);
  const box = cellAt(minX + (maxX - minX) / 2, minY + (maxY - minY) / 2, 0, polygon);
  if (box.distance > best.distance) best = box;

  const queue: Cell[] = [];
  const half = size / 2;
  for (let x = minX; x < maxX; x += size) for (let y = minY; y < maxY; y += size) queue.push(cellAt(x + half, y + half, half, polygon));
  while (queue.length > 0) {
    // The cell that could hold the farthest point is split first (outlines are small: a sort beats a heap's code).
    queue.sort((a, b) => a.potential - b.potential);
    const cell = queue.pop();
    if (!cell) break;
    if (cell.distance > best.distance) best = cell;
    if (cell.potential - best.distance <= precision) continue;
    const quarter = cell.half / 2;
    for (const [dx, dy] of [[-1, -1], [1, -1], [-1, 1], [1, 1]] as const) queue.push(cellAt(cell.x + dx * quarter, cell.y + dy * quarter, quarter, polygon));
  }
  // A label is a line of text, wider than high: centred on the free span of the horizontal line through the pole,
  // it keeps as far from the walls to its left and right as it can (the pole may sit anywhere on a ridge).
  const x = horizontalSpanCentre(polygon, best);
  return { x, y: best.y, distance: signedDistanceToOutline({ x, y: best.y }, polygon) };
}

/** The middle of the stretch of the horizontal line through `point` that lies inside `polygon` and holds it. */
function horizontalSpanCentre(polygon: readonly MapPoint[], point: MapPoint): number {
  let left = -Infinity;
  let right = Infinity;
  for (let i = 0, j = polygon.length - 1; i < polygon.length; j = i, i += 1) {
    const a = polygon[i];
    const b = polygon[j];
    if (!a || !b || a.y > point.y === b.y > point.y) continue;
    const x = a.x + ((point.y - a.y) * (b.x - a.x)) / (b.y - a.y);
    if (x <= point.x) left = Math.max(left, x);
    else right = Math.min(right, x);
  }
  return Number.isFinite(left) && Number.isFinite(right) ? (left + right) / 2 : point.x;
}
