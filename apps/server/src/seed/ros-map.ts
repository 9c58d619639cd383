/**
 * ROS map_server maps (a PGM image plus a YAML file with resolution, origin, negate, occupied_thresh and
 * free_thresh) turned into our floor plans: the occupancy grid is vectorised into run-length rectangles merged
 * across rows, which stays small for the mostly-uniform maps robots build, and needs no image encoder.
 */
import { z } from 'zod';
import type { MapMetadata } from '../db/schema.ts';
import { roomLayer, svgDocument, type PlanRoomShape } from './plan-svg.ts';
import type { SitePlan } from './site.ts';

export interface Pgm {
  width: number;
  height: number;
  maxValue: number;
  /** Row-major, row 0 at the top of the image (the map's far side from its origin). */
  pixels: Uint16Array;
}

export class PgmError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PgmError';
  }
}

const isSpace = (byte: number) => byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d || byte === 0x0b || byte === 0x0c;

/** Reads a binary (P5) or plain (P2) PGM, 8 or 16 bits per pixel. */
export function parsePgm(bytes: Uint8Array): Pgm {
  let at = 0;
  const token = (): string => {
    for (;;) {
      while (at < bytes.length && isSpace(bytes[at] ?? 0)) at += 1;
      if (bytes[at] !== 0x23) break; // '#': a comment to the end of the line
      while (at < bytes.length && bytes[at] !== 0x0a && bytes[at] !== 0x0d) at += 1;
    }
    const start = at;
    while (at < bytes.length && !isSpace(bytes[at] ?? 0)) at += 1;
    return String.fromCharCode(...bytes.subarray(start, at));
  };
  const integer = (what: string, min: number, max: number): number => {
    const text = token();
    const value = Number(text);
    if (!/^\d+$/.test(text) || value < min || value > max) throw new PgmError(`PGM: ${what} must be an integer from ${min} to ${max}, got "${text}"`);
    return value;
  };
  const magic = token();
  if (magic !== 'P5' && magic !== 'P2') throw new PgmError(`PGM: expected the magic number P5 or P2, got "${magic.slice(0, 8)}"`);
  const width = integer('width', 1, 100_000);
  const height = integer('height', 1, 100_000);
  const maxValue = integer('maxval', 1, 65_535);
  const count = width * height;
  if (count > 100_000_000) throw new PgmError(`PGM: ${width}×${height} pixels is more than this importer takes`);
  const pixels = new Uint16Array(count);
  if (magic === 'P2') {
    for (let i = 0; i < count; i += 1) pixels[i] = integer(`pixel ${i}`, 0, maxValue);
    return { width, height, maxValue, pixels };
  }
  at += 1; // the single whitespace character after maxval
  const wide = maxValue > 255;
  const needed = count * (wide ? 2 : 1);
  if (bytes.length - at < needed) throw new PgmError(`PGM: the image holds ${bytes.length - at} bytes of pixels, ${needed} expected for ${width}×${height}`);
  for (let i = 0; i < count; i += 1) {
    const value = wide ? ((bytes[at + 2 * i] ?? 0) << 8) | (bytes[at + 2 * i + 1] ?? 0) : (bytes[at + i] ?? 0);
    if (value > maxValue) throw new PgmError(`PGM: pixel ${i} is ${value}, above maxval ${maxValue}`);
    pixels[i] = value;
  }
  return { width, height, maxValue, pixels };
}

/** The map_server YAML (ROS 1 and ROS 2 share it). */
export const RosMapYaml = z.object({
  image: z.string().min(1),
  resolution: z.number().positive(),
  /** [x, y, yaw] of the bottom-left pixel; the yaw is taken as 0, as most ROS tools do. */
  origin: z.union([z.tuple([z.number(), z.number(), z.number()]), z.tuple([z.number(), z.number()])]),
  negate: z.union([z.literal(0), z.literal(1), z.boolean()]).default(0),
  occupied_thresh: z.number().min(0).max(1).default(0.65),
  free_thresh: z.number().min(0).max(1).default(0.196),
  mode: z.enum(['trinary', 'scale', 'raw']).optional(),
});
export type RosMapYaml = z.infer<typeof RosMapYaml>;

export const UNKNOWN = 0;
export const FREE = 1;
export const OCCUPIED = 2;

/** map_server's trinary interpretation: p = (max - value) / max (or value / max when negated). */
export function classify(pgm: Pgm, map: Pick<RosMapYaml, 'negate' | 'occupied_thresh' | 'free_thresh'>): Uint8Array {
  const negate = map.negate === 1 || map.negate === true;
  const cells = new Uint8Array(pgm.pixels.length);
  pgm.pixels.forEach((value, index) => {
    const p = negate ? value / pgm.maxValue : (pgm.maxValue - value) / pgm.maxValue;
    cells[index] = p > map.occupied_thresh ? OCCUPIED : p < map.free_thresh ? FREE : UNKNOWN;
  });
  return cells;
}

export interface CellRect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** Rectangles covering exactly the cells of `value`: runs along each row, stacked while the next row repeats them. */
export function cellRectangles(cells: Uint8Array, width: number, height: number, value: number): CellRect[] {
  const done: CellRect[] = [];
  let open = new Map<string, CellRect>();
  for (let y = 0; y < height; y += 1) {
    const next = new Map<string, CellRect>();
    let x = 0;
    while (x < width) {
      if (cells[y * width + x] !== value) {
        x += 1;
        continue;
      }
      const start = x;
      while (x < width && cells[y * width + x] === value) x += 1;
      const key = `${start}:${x}`;
      const above = open.get(key);
      if (above) {
        above.height += 1;
        open.delete(key);
        next.set(key, above);
      } else next.set(key, { x: start, y, width: x - start, height: 1 });
    }
    done.push(...open.values());
    open = next;
  }
  done.push(...open.values());
  return done.sort((a, b) => a.y - b.y || a.x - b.x);
}

export const rosMetadata = (pgm: Pgm, map: RosMapYaml): MapMetadata => ({
  resolution: map.resolution,
  origin: { x: map.origin[0], y: map.origin[1] },
  width: pgm.width,
  height: pgm.height,
});

const rects = (list: CellRect[]) => list.map((r) => `<rect x="${r.x}" y="${r.y}" width="${r.width}" height="${r.height}"/>`).join('');

/** The plan of a ROS map: the grid in map_server's greys, the rooms drawn over it. */
export function rosMapPlan(pgm: Pgm, map: RosMapYaml, title: string, rooms: readonly PlanRoomShape[]): SitePlan {
  const metadata = rosMetadata(pgm, map);
  const cells = classify(pgm, map);
  // A PGM's first row is the top of the map, which is also the SVG's first pixel row: no flip is needed.
  const layers = [
    `<rect class="unknown" width="${pgm.width}" height="${pgm.height}" fill="#cdcdcd"/>`,
    `<g class="free" fill="#fefefe" shape-rendering="crispEdges">${rects(cellRectangles(cells, pgm.width, pgm.height, FREE))}</g>`,
    `<g class="occupied" fill="#263238" shape-rendering="crispEdges">${rects(cellRectangles(cells, pgm.width, pgm.height, OCCUPIED))}</g>`,
    roomLayer(metadata, rooms, '#42a5f5', 0.3),
  ];
  return { svg: svgDocument(metadata, title, layers), metadata };
}
