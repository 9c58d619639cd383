/**
 * The demo hospital, generated from a fixed seed: two buildings, each floor a double-loaded corridor with
 * rooms on both sides and a lift core, drawn as an SVG plan whose pixels agree with the rooms' metres.
 */
import type { MapMetadata, Point, Pose } from '../db/schema.ts';
import { escapeXml, fmt, metadataForBounds, roomLayer, svgDocument, toPixel, type PlanRoomShape } from './plan-svg.ts';
import { createPrng, type Prng } from '@uvd/contracts';
import type { Site, SiteBuilding, SiteFloor, SiteRoom } from './site.ts';

/** A hospital floor also knows where the robot of that floor parks: in the corridor by the lifts. */
export interface HospitalFloor extends SiteFloor {
  home: Pose;
  /** The corridor's centre line (y, metres), which robots drive along between rooms. */
  corridorY: number;
}

export interface HospitalBuilding extends SiteBuilding {
  floors: HospitalFloor[];
}

export interface Hospital extends Site {
  buildings: HospitalBuilding[];
}

interface RoomKind {
  label: string;
  minWidth: number;
  maxWidth: number;
  fill: string;
  /** An en-suite bathroom in the corridor-side corner, cut out of the room's outline. */
  bathroom?: boolean;
  dose?: number;
}

const kind = (label: string, minWidth: number, maxWidth: number, fill: string, extra: Partial<RoomKind> = {}): RoomKind => ({
  label,
  minWidth,
  maxWidth,
  fill,
  ...extra,
});

const PATIENT = kind('Patient room', 3.6, 4.2, '#e3f2fd', { bathroom: true });
const ISOLATION = kind('Isolation room', 4.0, 4.6, '#fff3e0', { bathroom: true, dose: 100 });
const ICU = kind('ICU room', 4.4, 5.0, '#fce4ec');
const OPERATING = kind('Operating room', 6.6, 7.4, '#e8f5e9', { dose: 50 });
const RECOVERY = kind('Recovery room', 8.0, 9.0, '#f1f8e9');
const EXAMINATION = kind('Examination room', 3.2, 3.8, '#ede7f6');
const ENDOSCOPY = kind('Endoscopy room', 4.8, 5.6, '#e0f2f1', { dose: 50 });
const LABORATORY = kind('Laboratory', 6.0, 7.5, '#f3e5f5');
const WAITING = kind('Waiting area', 6.0, 7.0, '#fffde7');
const TOILET = kind('Patient toilet', 2.4, 2.8, '#eceff1');
const SHOWER = kind('Shower room', 2.8, 3.2, '#eceff1');
const DIRTY_UTILITY = kind('Dirty utility', 2.8, 3.2, '#efebe9');
const CLEAN_UTILITY = kind('Clean utility', 2.8, 3.2, '#e0f7fa');
const MEDICATION = kind('Medication room', 3.0, 3.4, '#e0f7fa');
const STERILE = kind('Sterile supply', 4.6, 5.4, '#e0f7fa');
const ANAESTHESIA = kind('Anaesthesia room', 4.0, 4.6, '#f1f8e9');
const SCRUB = kind('Scrub room', 3.2, 3.6, '#e0f2f1');
const DAY_ROOM = kind('Day room', 6.0, 7.0, '#fffde7');
const PLAYROOM = kind('Playroom', 5.5, 6.5, '#fffde7');

export interface FloorTheme {
  title: string;
  primary: RoomKind;
  specials: RoomKind[];
}

export interface BuildingPlan {
  letter: string;
  name: string;
  length: number;
  floors: FloorTheme[];
}

const HOSPITAL: BuildingPlan[] = [
  {
    letter: 'A',
    name: 'A – Main building',
    length: 44,
    floors: [
      { title: 'Surgery', primary: OPERATING, specials: [RECOVERY, RECOVERY, STERILE, SCRUB, SCRUB, ANAESTHESIA] },
      { title: 'Intensive care', primary: ICU, specials: [ISOLATION, ISOLATION, MEDICATION, CLEAN_UTILITY, DIRTY_UTILITY] },
      { title: 'Ward 3A', primary: PATIENT, specials: [ISOLATION, DAY_ROOM, SHOWER, DIRTY_UTILITY] },
    ],
  },
  {
    letter: 'B',
    name: 'B – Clinic building',
    length: 38,
    floors: [
      { title: 'Outpatient clinic', primary: EXAMINATION, specials: [LABORATORY, ENDOSCOPY, ENDOSCOPY, WAITING, TOILET] },
      { title: 'Ward 2B', primary: PATIENT, specials: [ISOLATION, ISOLATION, PLAYROOM, SHOWER, DIRTY_UTILITY] },
    ],
  },
];

// Floor geometry in metres: rooms 6 m deep on both sides of a 2.6 m corridor, walls 0.2 m thick.
const DEPTH = 6;
const CORRIDOR = 2.6;
const SOUTH_WALL = DEPTH; // y of the corridor's south wall
const NORTH_WALL = DEPTH + CORRIDOR; // y of the corridor's north wall
const OUTLINE_HEIGHT = 2 * DEPTH + CORRIDOR;
const HALF_WALL = 0.1;
const CORE_WIDTH = 6;
const BATHROOM = { width: 1.8, depth: 2.2 };
/** Entry points stand this far into the corridor from the door, clear of the door leaf. */
const ENTRY_OFFSET = 0.9;
const RESOLUTION = 0.05;
const MARGIN = 1;

type Side = 'south' | 'north';

interface Slot {
  side: Side;
  x0: number;
  x1: number;
  kind: RoomKind;
}

const round1 = (value: number) => Math.round(value * 10) / 10;

/** Widths for a corridor segment: the floor's specials first, then its primary rooms until the wall is full. */
function fillSegment(prng: Prng, start: number, end: number, specials: RoomKind[], primary: RoomKind): { kind: RoomKind; width: number }[] {
  const rooms: { kind: RoomKind; width: number }[] = [];
  const queue = [...specials];
  let x = start;
  while (end - x >= primary.minWidth) {
    const next = queue.shift() ?? primary;
    let width = round1(prng.between(next.minWidth, next.maxWidth));
    if (end - x - width < primary.minWidth) width = round1(end - x); // the last room takes the remainder
    rooms.push({ kind: next, width });
    x += width;
  }
  return prng.shuffle(rooms);
}

function layOut(prng: Prng, building: BuildingPlan, theme: FloorTheme): { slots: Slot[]; coreX: number } {
  const coreX = Math.round(building.length / 2 - CORE_WIDTH / 2);
  const specials = prng.shuffle(theme.specials);
  const bySegment: RoomKind[][] = [[], [], []];
  specials.forEach((special, index) => bySegment[index % 3]?.push(special));
  const segments: { side: Side; start: number; end: number; specials: RoomKind[]; reverse: boolean }[] = [
    { side: 'south', start: 0, end: coreX, specials: bySegment[0] ?? [], reverse: false },
    { side: 'south', start: coreX + CORE_WIDTH, end: building.length, specials: bySegment[1] ?? [], reverse: false },
    // Room numbers run round the corridor: along the south side, then back along the north side.
    { side: 'north', start: 0, end: building.length, specials: bySegment[2] ?? [], reverse: true },
  ];
  const slots: Slot[] = [];
  for (const segment of segments) {
    let x = segment.start;
    const placed = fillSegment(prng, segment.start, segment.end, segment.specials, theme.primary).map(({ kind: k, width }) => {
      const slot: Slot = { side: segment.side, x0: round1(x), x1: round1(x + width), kind: k };
      x += width;
      return slot;
    });
    slots.push(...(segment.reverse ? placed.reverse() : placed));
  }
  return { slots, coreX };
}

/** Metres from (along the corridor, depth away from the corridor wall) for a side. */
const onSide = (side: Side, u: number, v: number): Point => ({
  x: round2(u),
  y: round2(side === 'south' ? SOUTH_WALL - v : NORTH_WALL + v),
});
const round2 = (value: number) => Math.round(value * 100) / 100;

function roomGeometry(slot: Slot): { polygon: Point[]; door: number; bathroom: Point[] | null } {
  const { side, x0, x1 } = slot;
  const left = x0 + HALF_WALL;
  const right = x1 - HALF_WALL;
  const near = HALF_WALL;
  const far = DEPTH - HALF_WALL;
  if (!slot.kind.bathroom) {
    return {
      polygon: [onSide(side, left, near), onSide(side, right, near), onSide(side, right, far), onSide(side, left, far)],
      door: (x0 + x1) / 2,
      bathroom: null,
    };
  }
  const cut = left + BATHROOM.width;
  const back = near + BATHROOM.depth;
  return {
    polygon: [
      onSide(side, cut, near),
      onSide(side, right, near),
      onSide(side, right, far),
      onSide(side, left, far),
      onSide(side, left, back),
      onSide(side, cut, back),
    ],
    door: (cut + right) / 2,
    bathroom: [onSide(side, left, near), onSide(side, cut, near), onSide(side, cut, back), onSide(side, left, back)],
  };
}

function floorPlan(
  title: string,
  length: number,
  coreX: number,
  rooms: (PlanRoomShape & { door: number; side: Side; bathroom: Point[] | null })[],
): { svg: string; metadata: MapMetadata } {
  const metadata = metadataForBounds({ minX: 0, minY: 0, maxX: length, maxY: OUTLINE_HEIGHT }, RESOLUTION, MARGIN);
  const px = (point: Point) => toPixel(metadata, point);
  const rect = (cls: string, a: Point, b: Point, attributes: string) => {
    const p = px(a);
    const q = px(b);
    return `<rect class="${cls}" x="${fmt(Math.min(p.px, q.px))}" y="${fmt(Math.min(p.py, q.py))}" width="${fmt(Math.abs(q.px - p.px))}" height="${fmt(Math.abs(q.py - p.py))}" ${attributes}/>`;
  };
  const text = (at: Point, content: string, attributes = '') => {
    const p = px(at);
    return `<text x="${fmt(p.px)}" y="${fmt(p.py)}" ${attributes}>${escapeXml(content)}</text>`;
  };
  const corridorMid = (SOUTH_WALL + NORTH_WALL) / 2;
  const doors = rooms.map((room) => {
    const wallY = room.side === 'south' ? SOUTH_WALL - HALF_WALL : NORTH_WALL + HALF_WALL;
    const a = px({ x: room.door - 0.5, y: wallY });
    const b = px({ x: room.door + 0.5, y: wallY });
    return `<line x1="${fmt(a.px)}" y1="${fmt(a.py)}" x2="${fmt(b.px)}" y2="${fmt(b.py)}"/>`;
  });
  const bathrooms = rooms.flatMap((room) => {
    if (!room.bathroom) return [];
    const [a, , b] = room.bathroom;
    return a && b ? [rect('bathroom', a, b, 'fill="#cfd8dc" stroke="#37474f" stroke-width="2"')] : [];
  });
  const scaleStart = px({ x: 0, y: -0.5 });
  const scaleEnd = px({ x: 5, y: -0.5 });
  const layers = [
    `<rect class="background" width="${metadata.width}" height="${metadata.height}" fill="#eceff1"/>`,
    rect('building', { x: 0, y: 0 }, { x: length, y: OUTLINE_HEIGHT }, 'fill="#ffffff" stroke="#263238" stroke-width="6"'),
    rect('corridor', { x: 0, y: SOUTH_WALL }, { x: length, y: NORTH_WALL }, 'fill="#e1f5fe"'),
    rect('core', { x: coreX, y: 0 }, { x: coreX + CORE_WIDTH, y: SOUTH_WALL }, 'fill="#b0bec5" stroke="#263238" stroke-width="4"'),
    `<g id="bathrooms">${bathrooms.join('')}</g>`,
    roomLayer(metadata, rooms, '#e3f2fd'),
    `<g id="doors" stroke="#ffffff" stroke-width="5">${doors.join('')}</g>`,
    `<g id="annotations" font-family="sans-serif" fill="#455a64" text-anchor="middle">${[
      text({ x: coreX + CORE_WIDTH / 2, y: DEPTH / 2 }, 'Lifts / stairs', 'font-size="12"'),
      text({ x: 2.5, y: corridorMid - 0.2 }, 'Corridor', 'font-size="11"'),
      text({ x: length / 2, y: OUTLINE_HEIGHT + 0.35 }, title, 'font-size="14" font-weight="700"'),
      `<line x1="${fmt(scaleStart.px)}" y1="${fmt(scaleStart.py)}" x2="${fmt(scaleEnd.px)}" y2="${fmt(scaleEnd.py)}" stroke="#455a64" stroke-width="2"/>`,
      text({ x: 5.6, y: -0.65 }, '5 m', 'font-size="10" text-anchor="start"'),
    ].join('')}</g>`,
  ];
  return { svg: svgDocument(metadata, title, layers), metadata };
}

const CLINIC: BuildingPlan[] = [
  {
    letter: 'N',
    name: 'Main building',
    length: 26,
    floors: [{ title: 'Clinic', primary: EXAMINATION, specials: [WAITING, TOILET, ENDOSCOPY] }],
  },
];

/** The buildings' names of `generateHospital` and `generateClinic`, known without generating the sites. */
export const HOSPITAL_BUILDINGS = HOSPITAL.map((building) => building.name);
export const CLINIC_BUILDINGS = CLINIC.map((building) => building.name);

/** The demo hospital. Same seed, same hospital: room names and shapes are stable across runs. */
export const generateHospital = (seed = 20_240_601): Hospital => generateSite(HOSPITAL, seed);

/** The small clinic of the second demo organization. */
export const generateClinic = (seed = 20_240_602): Hospital => generateSite(CLINIC, seed);

export function generateSite(plans: readonly BuildingPlan[], seed: number): Hospital {
  const prng = createPrng(seed);
  const buildings = plans.map((building): HospitalBuilding => ({
    name: building.name,
    floors: building.floors.map((theme, index): HospitalFloor => {
      const level = index + 1;
      const { slots, coreX } = layOut(prng, building, theme);
      const shapes = slots.map((slot, position) => {
        const number = `${building.letter}${level}-${level}${String(position + 1).padStart(2, '0')}`;
        const geometry = roomGeometry(slot);
        const entry = onSide(slot.side, geometry.door, -ENTRY_OFFSET);
        const room: SiteRoom = {
          name: `${number} ${slot.kind.label}`,
          polygon: geometry.polygon,
          // Facing the door: the robot looks into the room it is about to disinfect.
          entryPoint: { ...entry, theta: slot.side === 'south' ? -Math.PI / 2 : Math.PI / 2 },
          dose: slot.kind.dose ?? null,
        };
        return { room, side: slot.side, door: geometry.door, bathroom: geometry.bathroom, fill: slot.kind.fill };
      });
      const title = `${building.letter}${level} ${theme.title}`;
      const plan = floorPlan(
        title,
        building.length,
        coreX,
        shapes.map((shape) => ({ name: shape.room.name, polygon: shape.room.polygon, fill: shape.fill, door: shape.door, side: shape.side, bathroom: shape.bathroom })),
      );
      return {
        name: `Floor ${level} – ${theme.title}`,
        level,
        plan,
        rooms: shapes.map((shape) => shape.room),
        home: { x: coreX + CORE_WIDTH / 2, y: round2(SOUTH_WALL + ENTRY_OFFSET), theta: 0 },
        corridorY: (SOUTH_WALL + NORTH_WALL) / 2,
      };
    }),
  }));
  return { buildings };
}
