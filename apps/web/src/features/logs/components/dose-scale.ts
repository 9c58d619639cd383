import { mjPerCm2 } from '@uvd/contracts';
import type { DoseGrid, LogDose } from '@uvd/contracts';

/**
 * The dose map's colour scale: viridis (van der Walt & Smith, matplotlib), perceptually ordered and readable with
 * the common colour-vision deficiencies and in greyscale print, in 8 classes. Classes rather than a continuous
 * ramp: a reader matches a cell to a legend entry, and cells of one class merge into few shapes.
 */
export const DOSE_COLOURS = ['#440154', '#46327e', '#365c8d', '#277f8e', '#1fa187', '#4ac16d', '#a0da39', '#fde725'] as const;
const CLASSES = DOSE_COLOURS.length;

export interface DoseScale {
  /** J/m² of the top class's lower bound × CLASSES / (CLASSES − 1): values at or above `top` take the last colour. */
  top: number;
  /** J/m² per class. */
  step: number;
  /** The planned doses of the log's rooms, J/m², ascending. */
  planned: number[];
}

/**
 * Twice the highest planned dose, so the planned dose is the scale's middle: the four dark classes are rooms' areas
 * below it, the four light ones at or above it. Next to the lamp the inverse square gives many times the planned
 * dose, which a scale up to the highest value would spread over every class and leave the rest in one colour.
 */
export const doseScaleOf = (dose: LogDose): DoseScale => {
  const planned = [...new Set(dose.rooms.map((room) => room.dose).filter((value) => value > 0))].sort((a, b) => a - b);
  const highestPlanned = planned[planned.length - 1];
  const highestValue = Math.max(0, ...dose.rooms.flatMap((room) => room.grid?.values.filter((value) => value !== null) ?? []));
  const top = highestPlanned === undefined ? highestValue || 1 : 2 * highestPlanned;
  return { top, step: top / CLASSES, planned };
};

/** The class (0 … CLASSES − 1) of a dose in J/m². */
export const doseClass = (scale: DoseScale, value: number): number => Math.min(CLASSES - 1, Math.max(0, Math.floor(value / scale.step)));

export interface DoseLegendEntry {
  colour: string;
  /** J/m² lower bound; the upper is `to`, null for the last class (open above). */
  from: number;
  to: number | null;
}

export const legendOf = (scale: DoseScale): DoseLegendEntry[] =>
  DOSE_COLOURS.map((colour, index) => ({ colour, from: index * scale.step, to: index === CLASSES - 1 ? null : (index + 1) * scale.step }));

/** A dose in J/m² as the console writes it: at most one decimal. */
export const formatJPerM2 = (value: number): string => String(Math.round(value * 10) / 10);
/** The same dose in mJ/cm² (a tenth): at most two decimals. */
export const formatMjPerCm2 = (value: number): string => String(Math.round(mjPerCm2(value) * 100) / 100);

/** One drawn run: cells of one row and one class side by side, in metres of the floor's frame (lower-left corner). */
export interface DoseRun {
  x: number;
  y: number;
  width: number;
  height: number;
  colour: string;
}

/**
 * A room's grid as runs of equal class, row by row from the origin up (DoseGrid's order); cells outside the room
 * (null) are left out. A 6 × 5 m room at 10 cm cells is 3000 cells; as runs a few hundred shapes.
 */
export const doseRuns = (grid: DoseGrid, scale: DoseScale): DoseRun[] => {
  const runs: DoseRun[] = [];
  for (let row = 0; row < grid.rows; row++) {
    let start = 0;
    let current: number | null = null;
    const close = (end: number) => {
      if (current === null) return;
      const colour = DOSE_COLOURS[current] ?? DOSE_COLOURS[0];
      runs.push({ x: grid.origin.x + start * grid.cell_m, y: grid.origin.y + row * grid.cell_m, width: (end - start) * grid.cell_m, height: grid.cell_m, colour });
    };
    for (let column = 0; column < grid.columns; column++) {
      const value = grid.values[row * grid.columns + column] ?? null;
      const cls = value === null ? null : doseClass(scale, value);
      if (cls !== current) {
        close(column);
        start = column;
        current = cls;
      }
    }
    close(grid.columns);
  }
  return runs;
};
