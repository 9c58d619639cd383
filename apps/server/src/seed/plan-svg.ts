/**
 * Floor plans in SVG, drawn in pixel space of the floor's map (ROS convention: `origin` is the metre position of
 * the bottom-left pixel, y grows upwards in metres and downwards in pixels), so a robot pose in metres lands on
 * the plan at px = (x - origin.x) / resolution, py = height - (y - origin.y) / resolution.
 */
import { roomLabelPlace } from '@uvd/contracts';
import type { MapMetadata, Point } from '../db/schema.ts';

export interface PixelPoint {
  px: number;
  py: number;
}

export const toPixel = (metadata: MapMetadata, point: Point): PixelPoint => ({
  px: (point.x - metadata.origin.x) / metadata.resolution,
  py: metadata.height - (point.y - metadata.origin.y) / metadata.resolution,
});

export const toMetres = (metadata: MapMetadata, pixel: PixelPoint): Point => ({
  x: metadata.origin.x + pixel.px * metadata.resolution,
  y: metadata.origin.y + (metadata.height - pixel.py) * metadata.resolution,
});

export interface Bounds {
  minX: number;
  minY: number;
  maxX: number;
  maxY: number;
}

export function boundsOf(points: readonly Point[]): Bounds {
  return points.reduce<Bounds>(
    (b, p) => ({ minX: Math.min(b.minX, p.x), minY: Math.min(b.minY, p.y), maxX: Math.max(b.maxX, p.x), maxY: Math.max(b.maxY, p.y) }),
    { minX: Infinity, minY: Infinity, maxX: -Infinity, maxY: -Infinity },
  );
}

/** Metadata of a map that covers `bounds` plus `margin` metres on every side. */
export function metadataForBounds(bounds: Bounds, resolution: number, margin: number): MapMetadata {
  return {
    resolution,
    origin: { x: bounds.minX - margin, y: bounds.minY - margin },
    width: Math.ceil((bounds.maxX - bounds.minX + 2 * margin) / resolution),
    height: Math.ceil((bounds.maxY - bounds.minY + 2 * margin) / resolution),
  };
}

export const escapeXml = (text: string): string =>
  text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;').replaceAll("'", '&apos;');

/** Pixel coordinates keep two decimals: sub-millimetre at 0.05 m/px, and a plan of a few kilobytes less. */
export const fmt = (value: number): string => String(Math.round(value * 100) / 100);

export const svgPoints = (metadata: MapMetadata, polygon: readonly Point[]): string =>
  polygon
    .map((point) => {
      const { px, py } = toPixel(metadata, point);
      return `${fmt(px)},${fmt(py)}`;
    })
    .join(' ');

export interface PlanRoomShape {
  name: string;
  polygon: readonly Point[];
  fill?: string;
}

const LABEL_FONT_PX = 11;
/** Average advance of a sans-serif character, as a share of the font size. */
const CHAR_WIDTH = 0.58;

/** Greedy word wrap of the room's name to the room's width; the room number ("A2-214") stays on a line of its own. */
function labelLines(name: string, widthPx: number): string[] {
  const maxChars = Math.max(6, Math.floor((widthPx - 6) / (LABEL_FONT_PX * CHAR_WIDTH)));
  const [first = '', ...words] = name.split(/\s+/).filter(Boolean);
  const lines = [first];
  let line = '';
  for (const word of words) {
    if (line && line.length + 1 + word.length > maxChars) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines;
}

/**
 * One `<polygon class="room">` per room, and its label centred on the point of the room farthest from its walls
 * (`roomLabelPlace`): the vertices' mean of an L-shaped room (its bathroom cut out) lies by the bathroom's wall.
 */
export function roomLayer(metadata: MapMetadata, rooms: readonly PlanRoomShape[], defaultFill: string, fillOpacity = 1): string {
  const shapes = rooms.map(
    (room) =>
      `<polygon class="room" data-room-name="${escapeXml(room.name)}" points="${svgPoints(metadata, room.polygon)}" fill="${room.fill ?? defaultFill}"/>`,
  );
  const labels = rooms.map((room) => {
    const { px, py } = toPixel(metadata, roomLabelPlace(room.polygon));
    const bounds = boundsOf(room.polygon);
    const lines = labelLines(room.name, (bounds.maxX - bounds.minX) / metadata.resolution);
    const lineHeight = LABEL_FONT_PX + 1;
    const spans = lines
      .map((line, index) => `<tspan x="${fmt(px)}" dy="${index === 0 ? fmt((-(lines.length - 1) * lineHeight) / 2) : lineHeight}">${escapeXml(line)}</tspan>`)
      .join('');
    return `<text class="room-label" x="${fmt(px)}" y="${fmt(py + 4)}">${spans}</text>`;
  });
  return [
    `<g id="rooms" stroke="#37474f" stroke-width="3" stroke-linejoin="round"${fillOpacity < 1 ? ` fill-opacity="${fillOpacity}"` : ''}>${shapes.join('')}</g>`,
    `<g id="room-labels" font-family="sans-serif" font-size="${LABEL_FONT_PX}" fill="#263238" text-anchor="middle">${labels.join('')}</g>`,
  ].join('\n');
}

export function svgDocument(metadata: MapMetadata, title: string, layers: readonly string[]): string {
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${metadata.width}" height="${metadata.height}" viewBox="0 0 ${metadata.width} ${metadata.height}">`,
    `<title>${escapeXml(title)}</title>`,
    ...layers,
    '</svg>',
    '',
  ].join('\n');
}
