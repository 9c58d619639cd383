import type { MapPoint, MapRoom } from '@uvd/contracts';

/**
 * Even-odd ray casting: a ray from the point towards +x crosses the outline an odd number of times when the point
 * is inside. Works for the concave outlines rooms have (a patient room with its bathroom cut out).
 */
export const insidePolygon = (point: MapPoint, polygon: readonly MapPoint[]): boolean => {
  let inside = false;
  for (let i = 0, j = polygon.length - 1; i < polygon.length; j = i, i += 1) {
    const a = polygon[i];
    const b = polygon[j];
    if (!a || !b) continue;
    if (a.y > point.y !== b.y > point.y && point.x < ((b.x - a.x) * (point.y - a.y)) / (b.y - a.y) + a.x) inside = !inside;
  }
  return inside;
};

/** The room whose outline holds the point (metres on the floor's frame), or null when it is in none (a corridor). */
export const roomAt = <R extends Pick<MapRoom, 'polygon'>>(rooms: readonly R[], point: MapPoint): R | null =>
  rooms.find((room) => room.polygon.length >= 3 && insidePolygon(point, room.polygon)) ?? null;
