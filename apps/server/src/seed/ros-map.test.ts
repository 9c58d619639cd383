import { describe, expect, it } from 'vitest';
import { descendants, parseXml } from '../testing/seed-fixtures.ts';
import { createPrng } from '@uvd/contracts';
import { cellRectangles, classify, FREE, OCCUPIED, parsePgm, PgmError, RosMapYaml, rosMapPlan, rosMetadata, UNKNOWN } from './ros-map.ts';

// 4×3 pixels, top row first: walls (0), free floor (254) and unknown (205, map_server's grey).
const PIXELS = [
  [0, 254, 205, 0],
  [0, 254, 254, 0],
  [0, 0, 0, 0],
];
const p5 = (rows: number[][], maxValue = 255) => {
  const header = Buffer.from(`P5\n# a comment\n${rows[0]?.length ?? 0} ${rows.length}\n${maxValue}\n`, 'ascii');
  const wide = maxValue > 255;
  const body = Buffer.alloc(rows.flat().length * (wide ? 2 : 1));
  rows.flat().forEach((value, index) => {
    if (wide) body.writeUInt16BE(value, index * 2);
    else body.writeUInt8(value, index);
  });
  return new Uint8Array(Buffer.concat([header, body]));
};
const p2 = (rows: number[][]) =>
  new TextEncoder().encode(`P2\n${rows[0]?.length ?? 0} ${rows.length} 255\n${rows.map((row) => row.join(' ')).join('\n')}\n`);
const MAP = RosMapYaml.parse({ image: 'map.pgm', resolution: 0.1, origin: [-1, -2, 0] });

describe('PGM', () => {
  it('reads a binary P5 image of known pixels, and yields the map metadata', () => {
    const pgm = parsePgm(p5(PIXELS));
    expect(pgm).toMatchObject({ width: 4, height: 3, maxValue: 255 });
    expect([...pgm.pixels]).toEqual(PIXELS.flat());
    expect(rosMetadata(pgm, MAP)).toEqual({ resolution: 0.1, origin: { x: -1, y: -2 }, width: 4, height: 3 });
  });

  it('reads the plain P2 form and 16-bit images alike', () => {
    expect([...parsePgm(p2(PIXELS)).pixels]).toEqual(PIXELS.flat());
    const wide = parsePgm(p5([[0, 65_535, 300]], 65_535));
    expect([...wide.pixels]).toEqual([0, 65_535, 300]);
  });

  it('refuses what is not a PGM, or a truncated one, saying why', () => {
    expect(() => parsePgm(new TextEncoder().encode('P6\n1 1\n255\n\0\0\0'))).toThrow(/magic number P5 or P2/);
    expect(() => parsePgm(p5(PIXELS).slice(0, -2))).toThrow(PgmError);
    expect(() => parsePgm(p5(PIXELS).slice(0, -2))).toThrow(/10 bytes of pixels, 12 expected/);
    expect(() => parsePgm(new TextEncoder().encode('P2\n2 1 255\n0 300\n'))).toThrow(/pixel 1/);
  });
});

describe('occupancy', () => {
  it('classifies like map_server in trinary mode, negated or not', () => {
    const pgm = parsePgm(p5(PIXELS));
    expect([...classify(pgm, MAP)]).toEqual([OCCUPIED, FREE, UNKNOWN, OCCUPIED, OCCUPIED, FREE, FREE, OCCUPIED, OCCUPIED, OCCUPIED, OCCUPIED, OCCUPIED]);
    const negated = classify(pgm, { ...MAP, negate: 1 });
    expect(negated[0]).toBe(FREE);
    expect(negated[1]).toBe(OCCUPIED);
  });

  it('covers the cells of a class with merged rectangles, each cell exactly once', () => {
    const cells = classify(parsePgm(p5(PIXELS)), MAP);
    expect(cellRectangles(cells, 4, 3, OCCUPIED)).toEqual([
      { x: 0, y: 0, width: 1, height: 2 },
      { x: 3, y: 0, width: 1, height: 2 },
      { x: 0, y: 2, width: 4, height: 1 },
    ]);
    const prng = createPrng(3);
    const width = 37;
    const height = 23;
    const random = Uint8Array.from({ length: width * height }, () => (prng.chance(0.7) ? OCCUPIED : FREE));
    const covered = new Uint8Array(width * height);
    for (const rect of cellRectangles(random, width, height, OCCUPIED))
      for (let y = rect.y; y < rect.y + rect.height; y += 1) for (let x = rect.x; x < rect.x + rect.width; x += 1) covered[y * width + x] = (covered[y * width + x] ?? 0) + 1;
    random.forEach((cell, index) => {
      expect(covered[index]).toBe(cell === OCCUPIED ? 1 : 0);
    });
  });

  it('draws the plan as SVG with the grid and one shape per room', () => {
    const plan = rosMapPlan(parsePgm(p5(PIXELS)), MAP, 'Tiny & odd', [
      { name: 'R1 Room', polygon: [{ x: -0.9, y: -1.9 }, { x: -0.7, y: -1.9 }, { x: -0.7, y: -1.7 }] },
    ]);
    const svg = parseXml(plan.svg);
    expect(svg.attributes).toMatchObject({ width: '4', height: '3' });
    expect(descendants(svg, (element) => element.attributes.class === 'room')).toHaveLength(1);
    const occupied = descendants(svg, (element) => element.attributes.class === 'occupied')[0];
    expect(occupied?.children).toHaveLength(3);
  });
});
