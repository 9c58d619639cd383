import { describe, expect, it } from 'vitest';
import { BUILDING_CHANGE_METRES, FloorGraph, LIFT_BOARDING_METRES, LIFT_LEVEL_METRES } from './floor-graph.ts';

// Building A: ground floor a0 (level 0) and a2 (level 2), lift lobbies at (10, 0); building B: b0 with its lobby at (0, 0).
const graph = new FloorGraph([
  { id: 'a0', buildingId: 'A', level: 0, places: [{ x: 0, y: 0 }, { x: 20, y: 0 }] },
  { id: 'a2', buildingId: 'A', level: 2, places: [{ x: 10, y: 10 }, { x: 10, y: -10 }] },
  { id: 'b0', buildingId: 'B', level: 0, places: [{ x: -5, y: 0 }, { x: 5, y: 0 }] },
]);

describe('the floor graph', () => {
  it('joins places on a floor directly', () => {
    expect(graph.distance({ floorId: 'a0', x: 0, y: 0 }, { floorId: 'a0', x: 3, y: 4 })).toBe(5);
  });

  it('goes through the lift between floors of a building, at a price per ride and per level', () => {
    const up = graph.distance({ floorId: 'a0', x: 0, y: 0 }, { floorId: 'a2', x: 10, y: 10 });
    expect(up).toBe(10 + LIFT_BOARDING_METRES + 2 * LIFT_LEVEL_METRES + 10);
    expect(graph.distance({ floorId: 'a2', x: 10, y: 10 }, { floorId: 'a0', x: 0, y: 0 })).toBe(up);
  });

  it('takes a robot one floor up as farther than one across the same floor', () => {
    const pickup = { floorId: 'a0', x: 20, y: 0 };
    // Right above the pickup, by the lift, versus the far end of the pickup's own floor.
    expect(graph.distance({ floorId: 'a2', x: 10, y: 0 }, pickup)).toBeGreaterThan(graph.distance({ floorId: 'a0', x: 0, y: 0 }, pickup));
  });

  it('crosses buildings through their lowest floors, and knows no way to an unknown floor', () => {
    expect(graph.distance({ floorId: 'a2', x: 10, y: 0 }, { floorId: 'b0', x: 0, y: 0 })).toBe(
      0 + LIFT_BOARDING_METRES + 2 * LIFT_LEVEL_METRES + BUILDING_CHANGE_METRES + 0,
    );
    expect(graph.distance({ floorId: 'a0', x: 0, y: 0 }, { floorId: 'nowhere', x: 0, y: 0 })).toBe(Number.POSITIVE_INFINITY);
  });
});
