import { describe, expect, it } from 'vitest';
import type { LampModel, TrajectoryPoint } from '@uvd/contracts';
import { computeLogDose, pathClock, type LogDoseInput } from './log-dose.ts';
import { REFERENCE_HEIGHT_M } from './model.ts';

const FLOOR = '00000000-0000-4000-8000-000000000001';
const POINT_LAMP: LampModel = { uvc_power_w: 4 * Math.PI, height_m: REFERENCE_HEIGHT_M, length_m: 0.001, radial_profile: [1] };
const at = (t: number, x: number, y: number): TrajectoryPoint => ({ t, x, y, floor_id: FLOOR });
const START = new Date('2030-01-01T10:00:00Z');
const later = (seconds: number) => new Date(START.getTime() + seconds * 1000);
const square = (x0: number, y0: number, x1: number, y1: number) => [
  { x: x0, y: y0 },
  { x: x1, y: y0 },
  { x: x1, y: y1 },
  { x: x0, y: y1 },
];

const input = (overrides: Partial<LogDoseInput> = {}): LogDoseInput => ({
  lamp: POINT_LAMP,
  trajectory: [at(0, 0, 0)],
  rooms: [{ order: 0, dose: 10, state: 'aborted', polygon: square(1, -1, 3, 1), floorId: FLOOR }],
  intervals: [{ order: 0, startedAt: later(0), endedAt: null }],
  jobEnd: later(40),
  robotStartedAt: START,
  startedAt: START,
  ...overrides,
});

describe('the log dose', () => {
  it('ties the robot clock to the path by the first report, whatever their offset', () => {
    const toSeconds = pathClock([at(3, 0, 0), at(9, 1, 0)], later(600), START);
    expect(toSeconds(later(610))).toBe(13);
    // Without the robot's start the clocks are taken to agree.
    expect(pathClock([at(3, 0, 0)], null, START)(later(20))).toBe(20);
  });

  it('ends an open interval with the job, or at the last recorded point', () => {
    const closedByJob = computeLogDose(input());
    expect(closedByJob?.dose.lamp_intervals).toEqual([{ order: 0, from: later(0).toISOString(), to: later(40).toISOString() }]);
    const closedByPath = computeLogDose(input({ jobEnd: null, trajectory: [at(0, 0, 0), at(25, 0, 0.5)] }));
    expect(closedByPath?.dose.lamp_intervals[0]?.to).toBe(later(25).toISOString());
  });

  it('keeps what an interrupted room received: 40 s at 1/r²', () => {
    const result = computeLogDose(input());
    // The far corners' cell centres are 2.9 m and 0.9 m off: 40 / (2.9² + 0.9²) = 4.338 J/m².
    expect(result?.stats.get(0)?.min).toBeCloseTo(40 / (2.9 ** 2 + 0.9 ** 2), 1);
    expect(result?.dose.grids['0']).toBeDefined();
  });

  it('is null without a path, or when a lamp ran without recorded lamp times', () => {
    expect(computeLogDose(input({ trajectory: [] }))).toBeNull();
    expect(computeLogDose(input({ intervals: [] }))).toBeNull();
    // No lamp ran (not reached): zero is what the rooms received.
    const untouched = computeLogDose(input({ intervals: [], rooms: [{ order: 0, dose: 10, state: 'not_reached', polygon: square(1, -1, 3, 1), floorId: FLOOR }] }));
    expect(untouched?.stats.get(0)).toEqual({ min: 0, p10: 0, mean: 0, coverage: 0 });
  });

  it('has no grid and null figures for a room without a polygon', () => {
    const result = computeLogDose(input({ rooms: [{ order: 0, dose: 10, state: 'done', polygon: [], floorId: null }] }));
    expect(result?.stats.get(0)).toBeNull();
    expect(result?.dose.grids).toEqual({});
  });
});
