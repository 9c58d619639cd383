import { describe, expect, it } from 'vitest';
import type { DoseGrid, LampModel, MapPoint, TrajectoryPoint } from '@uvd/contracts';
import { DEFAULT_LAMP } from './lamp.ts';
import {
  MAX_CELLS,
  MAX_EXPOSURES,
  REFERENCE_HEIGHT_M,
  doseField,
  doseStats,
  exposuresOf,
  gridOver,
  irradiance,
  profileFactor,
  radialIrradiance,
  radialTable,
  roomDoses,
} from './model.ts';

const FLOOR = '00000000-0000-4000-8000-000000000001';

/** A point-like lamp at the reference height radiating 1 W/sr evenly: E = 1 / r² W/m² on a surface facing it. */
const POINT_LAMP: LampModel = { uvc_power_w: 4 * Math.PI, height_m: REFERENCE_HEIGHT_M, length_m: 0.001, radial_profile: [1] };

const square = (x0: number, y0: number, x1: number, y1: number): MapPoint[] => [
  { x: x0, y: y0 },
  { x: x1, y: y0 },
  { x: x1, y: y1 },
  { x: x0, y: y1 },
];
const at = (t: number, x: number, y: number, floor = FLOOR): TrajectoryPoint => ({ t, x, y, floor_id: floor });

/** The value of the cell whose centre is (x, y). */
function cellAt(grid: DoseGrid, x: number, y: number): number | null | undefined {
  const column = Math.floor((x - grid.origin.x) / grid.cell_m);
  const row = Math.floor((y - grid.origin.y) / grid.cell_m);
  return grid.values[row * grid.columns + column];
}

describe('irradiance', () => {
  it('of a point-like lamp is 1/r² W/m² for 1 W/sr', () => {
    expect(irradiance(POINT_LAMP, 2, 0, null)).toBeCloseTo(0.25, 6);
    expect(irradiance(POINT_LAMP, 0, -4, null)).toBeCloseTo(1 / 16, 6);
    // Off the reference height the surface meets the light obliquely: cos θ / d² with d = √5, cos θ = 2/√5.
    const raised: LampModel = { ...POINT_LAMP, height_m: REFERENCE_HEIGHT_M + 1 };
    expect(irradiance(raised, 2, 0, null)).toBeCloseTo(2 / Math.pow(5, 1.5), 6);
  });

  it('of the default lamp is at least 1/6 W/m² 7 m in front of the robot, the far corner of a demo room, as the demo assumes', () => {
    expect(irradiance(DEFAULT_LAMP, 7, 0, 0)).toBeGreaterThan(1 / 6);
    expect(irradiance(DEFAULT_LAMP, 9, 0, 0)).toBeLessThan(1 / 6);
  });
});

describe('dose field', () => {
  it('of a point-like lamp at a known distance for a known time is E × t in each cell', () => {
    // Lamp at the origin for 60 s; the room is a 0.4 m square centred 2 m away: 4 × 4 cells of 0.1 m.
    const grid = gridOver(square(1.8, -0.2, 2.2, 0.2));
    expect(grid).not.toBeNull();
    if (!grid) return;
    expect(grid.cellM).toBeCloseTo(0.1, 9);
    const field = doseField(POINT_LAMP, grid, exposuresOf([at(0, 0, 0)], FLOOR, [{ from: 0, to: 60 }]));
    expect(field.columns * field.rows).toBe(16);
    // Hand-computed: 60 s / (1.95² + 0.05²) m² = 60 / 3.805 = 15.769 J/m².
    expect(cellAt(field, 1.95, 0.05)).toBeCloseTo(15.77, 2);
    // The far corner: 60 / (2.15² + 0.15²) = 60 / 4.645 = 12.917 J/m²: the minimum.
    expect(cellAt(field, 2.15, -0.15)).toBeCloseTo(12.92, 2);
    const stats = doseStats(field, 15);
    expect(stats?.min).toBeCloseTo(12.92, 2);
  });

  it('gives a room the path never comes near less than one it passes through', () => {
    // The robot drives along y = 1 from x = 0 to x = 10 with its lamp on, through room A (x 4–6); room B is 8 m off.
    const path = Array.from({ length: 11 }, (_, i) => at(i * 10, i, 1));
    const span = [{ from: 0, to: 100 }];
    // A lamp of a sixth of the default's power, so that the far room falls short of its plan.
    const doses = roomDoses({ ...DEFAULT_LAMP, uvc_power_w: 20 }, path, [
      { order: 0, dose: 10, polygon: square(4, 0, 6, 2), floorId: FLOOR, spans: span },
      { order: 1, dose: 10, polygon: square(4, 8, 6, 10), floorId: FLOOR, spans: span },
    ]);
    const passed = doses.get(0)?.stats;
    const far = doses.get(1)?.stats;
    expect(passed && far).toBeTruthy();
    if (!passed || !far) return;
    expect(far.mean).toBeLessThan(passed.mean / 5);
    expect(far.min).toBeLessThan(passed.min);
    expect(passed.coverage).toBeGreaterThan(far.coverage);
  });

  it('doses a room only during its own spans', () => {
    const doses = roomDoses(POINT_LAMP, [at(0, 0, 0)], [
      { order: 0, dose: 1, polygon: square(1, -1, 3, 1), floorId: FLOOR, spans: [{ from: 0, to: 30 }] },
      { order: 1, dose: 1, polygon: square(-3, -1, -1, 1), floorId: FLOOR, spans: [] },
    ]);
    expect(doses.get(0)?.stats?.min).toBeGreaterThan(0);
    // Lit from beside its wall, but not by its own lamp time: nothing.
    expect(doses.get(1)?.stats).toEqual({ min: 0, p10: 0, mean: 0, coverage: 0 });
  });

  it('leaves cells outside the polygon null', () => {
    // An L: the upper right quarter of the 2 × 2 square is not the room's.
    const polygon = [
      { x: 0, y: 0 },
      { x: 2, y: 0 },
      { x: 2, y: 1 },
      { x: 1, y: 1 },
      { x: 1, y: 2 },
      { x: 0, y: 2 },
    ];
    const grid = gridOver(polygon);
    if (!grid) throw new Error('no grid');
    const field = doseField(POINT_LAMP, grid, exposuresOf([at(0, -1, -1)], FLOOR, [{ from: 0, to: 10 }]));
    expect(cellAt(field, 1.5, 1.5)).toBeNull();
    expect(cellAt(field, 0.5, 1.5)).toBeGreaterThan(0);
    expect(field.values.filter((value) => value === null).length).toBe(field.values.length / 4);
  });

  it('has no grid for a polygon without area', () => {
    expect(gridOver([])).toBeNull();
    expect(gridOver(square(0, 0, 0, 5))).toBeNull();
  });
});

describe('room figures', () => {
  it('are min, nearest-rank p10, mean and the share at or above the planned dose', () => {
    // 20 cells of 1…20 J/m² and 5 outside the room.
    const values = [null, ...Array.from({ length: 20 }, (_, i) => 20 - i), null, null, null, null];
    const field: DoseGrid = { origin: { x: 0, y: 0 }, cell_m: 1, columns: 5, rows: 5, values };
    // p10: the 2nd smallest of 20 (10 % of 20 = 2 cells at or below it); 6 of 20 cells reach 15.
    expect(doseStats(field, 15)).toEqual({ min: 1, p10: 2, mean: 10.5, coverage: 0.3 });
    expect(doseStats(field, 0)?.coverage).toBe(1);
    expect(doseStats(field, 21)?.coverage).toBe(0);
  });

  it('p10 of 25 cells is the 3rd smallest', () => {
    const field: DoseGrid = { origin: { x: 0, y: 0 }, cell_m: 1, columns: 5, rows: 5, values: Array.from({ length: 25 }, (_, i) => i * 2) };
    expect(doseStats(field, 10)?.p10).toBe(4);
  });
});

describe('heading and radial profile', () => {
  // Full output ahead, half to the sides, none behind (the mast).
  const lamp: LampModel = { ...POINT_LAMP, radial_profile: [1, 0.5, 0, 0.5] };

  it('interpolates the profile counter-clockwise from the heading', () => {
    expect(profileFactor(lamp.radial_profile, 0)).toBe(1);
    expect(profileFactor(lamp.radial_profile, Math.PI / 4)).toBeCloseTo(0.75, 9);
    expect(profileFactor(lamp.radial_profile, Math.PI)).toBeCloseTo(0, 9);
    expect(profileFactor(lamp.radial_profile, -Math.PI / 2)).toBeCloseTo(0.5, 9);
    expect(profileFactor(lamp.radial_profile, 2 * Math.PI)).toBe(1);
  });

  it('takes the heading from the direction of travel', () => {
    // The robot drives from (0, 0) to (0, 2) (heading +y) and stands there with its lamp on for 100 s.
    const path = [at(0, 0, 0), at(10, 0, 2)];
    const ahead = roomDoses(lamp, path, [{ order: 0, dose: 1, polygon: square(-0.5, 3.5, 0.5, 4.5), floorId: FLOOR, spans: [{ from: 10, to: 110 }] }]);
    const behind = roomDoses(lamp, path, [{ order: 0, dose: 1, polygon: square(-0.5, -0.5, 0.5, 0.5), floorId: FLOOR, spans: [{ from: 10, to: 110 }] }]);
    const left = roomDoses(lamp, path, [{ order: 0, dose: 1, polygon: square(-2.5, 1.5, -1.5, 2.5), floorId: FLOOR, spans: [{ from: 10, to: 110 }] }]);
    // 2 m ahead at factor 1: 100 s × 1/4 W/m² = 25 J/m² at the room's centre line; 2 m to the left at factor 0.5.
    expect(ahead.get(0)?.stats?.mean).toBeCloseTo(25, -0.5);
    expect(left.get(0)?.stats?.mean).toBeCloseTo(12.5, -0.5);
    expect(behind.get(0)?.stats?.mean).toBeLessThan(2);
  });

  it('uses the profile mean before the robot has moved', () => {
    const exposures = exposuresOf([at(0, 0, 0)], FLOOR, [{ from: 0, to: 10 }]);
    expect(exposures).toEqual([{ x: 0, y: 0, heading: null, seconds: 10 }]);
    const grid = gridOver(square(1.9, -0.1, 2.1, 0.1));
    if (!grid) throw new Error('no grid');
    const mean = doseStats(doseField(lamp, grid, exposures), 0)?.mean ?? 0;
    // 10 s × 1/4 W/m² × the profile's mean 0.5, within the square's spread.
    expect(mean).toBeCloseTo(1.25, 1);
  });
});

describe('robot positions', () => {
  it('hold the last recorded point until the next (the path is thinned by distance)', () => {
    const path = [at(0, 0, 0), at(100, 5, 0), at(200, 5, 3)];
    expect(exposuresOf(path, FLOOR, [{ from: 20, to: 150 }])).toEqual([
      { x: 0, y: 0, heading: null, seconds: 80 },
      { x: 5, y: 0, heading: 0, seconds: 50 },
    ]);
    // After the last point the robot stays there; before the first it is taken at the first.
    expect(exposuresOf(path, FLOOR, [{ from: 250, to: 260 }])).toEqual([{ x: 5, y: 3, heading: Math.PI / 2, seconds: 10 }]);
    expect(exposuresOf([at(50, 1, 1)], FLOOR, [{ from: 0, to: 10 }])).toEqual([{ x: 1, y: 1, heading: null, seconds: 10 }]);
  });

  it('give nothing while the robot is on another floor, or for an empty span', () => {
    const other = '00000000-0000-4000-8000-000000000002';
    expect(exposuresOf([at(0, 0, 0, other)], FLOOR, [{ from: 0, to: 10 }])).toEqual([]);
    expect(exposuresOf([at(0, 0, 0)], FLOOR, [{ from: 10, to: 10 }, { from: 20, to: 5 }])).toEqual([]);
    expect(exposuresOf([], FLOOR, [{ from: 0, to: 10 }])).toEqual([]);
  });
});

describe('bounds', () => {
  it('keeps a huge polygon within the cell cap, and a long path within the exposure cap, quickly', () => {
    const huge = square(0, 0, 1000, 250);
    const grid = gridOver(huge);
    if (!grid) throw new Error('no grid');
    expect(grid.columns * grid.rows).toBeLessThanOrEqual(MAX_CELLS);
    expect(grid.columns * grid.cellM).toBeGreaterThanOrEqual(1000);
    expect(grid.rows * grid.cellM).toBeGreaterThanOrEqual(250);
    // A path of 20 000 points, lamp on throughout.
    const path = Array.from({ length: 20_000 }, (_, i) => at(i, (i * 0.3) % 1000, 125 + Math.sin(i / 50) * 100));
    const exposures = exposuresOf(path, FLOOR, [{ from: 0, to: 20_000 }]);
    expect(exposures.length).toBeLessThanOrEqual(MAX_EXPOSURES);
    expect(exposures.reduce((sum, exposure) => sum + exposure.seconds, 0)).toBeCloseTo(20_000, 6);
    const started = performance.now();
    const doses = roomDoses(DEFAULT_LAMP, path, [{ order: 0, dose: 10, polygon: huge, floorId: FLOOR, spans: [{ from: 0, to: 20_000 }] }]);
    const elapsed = performance.now() - started;
    expect(doses.get(0)?.grid?.values.length).toBeLessThanOrEqual(MAX_CELLS);
    expect(elapsed).toBeLessThan(5_000);
  });

  it('a tiny room still gets cells', () => {
    const grid = gridOver(square(0, 0, 0.1, 0.1));
    expect(grid?.columns).toBe(4);
    expect(grid?.inside.every(Boolean)).toBe(true);
  });
});

describe('the radial table', () => {
  it('agrees with the direct sum within 0.03 % out to 60 m, and 0.2 % beyond', () => {
    const radial = radialTable(DEFAULT_LAMP);
    for (const r of [0, 0.1, 0.3, 0.3051, 0.77, 1.234, 3, 7.777, 59.999]) {
      const direct = radialIrradiance(DEFAULT_LAMP, r);
      expect(Math.abs(radial(r) - direct) / direct).toBeLessThan(3e-4);
    }
    const long: LampModel = { ...DEFAULT_LAMP, length_m: 5, height_m: 2.5 };
    const longRadial = radialTable(long);
    for (const r of [60.2, 75, 400]) expect(Math.abs(longRadial(r) - radialIrradiance(long, r)) / radialIrradiance(long, r)).toBeLessThan(2e-3);
  });
});
