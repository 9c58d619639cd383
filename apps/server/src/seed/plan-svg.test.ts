import { describe, expect, it } from 'vitest';
import { roomLabelPlace, signedDistanceToOutline } from '@uvd/contracts';
import { generateHospital } from './hospital.ts';
import { toMetres, toPixel } from './plan-svg.ts';

/** Ward 2B of the demo hospital: patient rooms with their bathroom cut out, L-shaped (issue #25, B2-204, B2-215..217). */
const ward2b = () => {
  const floor = generateHospital()
    .buildings.flatMap((building) => building.floors)
    .find((candidate) => candidate.name.includes('Ward 2B'));
  if (!floor?.plan) throw new Error('no Ward 2B plan');
  return { ...floor, plan: floor.plan };
};

/** The plan's label of each room: its lines and where they are drawn (plan pixels). */
function planLabels(svg: string): { x: number; y: number; lines: string[] }[] {
  const labels = [...svg.matchAll(/<text class="room-label" x="([\d.]+)" y="([\d.]+)">(.*?)<\/text>/g)];
  return labels.map(([, x = '0', y = '0', spans = '']) => ({ x: Number(x), y: Number(y), lines: [...spans.matchAll(/>([^<]*)<\/tspan>/g)].map((line) => line[1] ?? '') }));
}

describe('room labels on a floor plan', () => {
  it('are placed at the point farthest from the walls, inside every room of Ward 2B', () => {
    const floor = ward2b();
    for (const room of floor.rooms) {
      const place = roomLabelPlace(room.polygon);
      expect(signedDistanceToOutline(place, room.polygon), room.name).toBeCloseTo(place.distance, 5);
      // A 3.6 m wide patient room with a 1.8 × 2.2 m bathroom: the free square beside it is at least 1.6 m from every wall.
      expect(place.distance, room.name).toBeGreaterThan(1.4);
    }
  });

  it("keep the plan's labels clear of the outlines and walls of Ward 2B's rooms", () => {
    const { plan, rooms } = ward2b();
    const labels = planLabels(plan.svg);
    expect(labels).toHaveLength(rooms.length);
    const FONT = 11;
    const crossing: string[] = [];
    for (const [index, room] of rooms.entries()) {
      const label = labels[index];
      if (!label) continue;
      // The label's box in plan pixels: centred lines of 11 px (about 0.58 em a character), 12 px apart.
      const width = Math.max(...label.lines.map((line) => line.length)) * FONT * 0.58;
      const height = label.lines.length * (FONT + 1);
      const centre = { px: label.x, py: label.y - 4 };
      const corners = [-1, 1].flatMap((sx) => [-1, 1].map((sy) => ({ px: centre.px + (sx * width) / 2, py: centre.py + (sy * height) / 2 })));
      // Walls are 0.2 m thick, drawn on the outline: a label keeps 0.15 m (3 px) from the outline.
      const clear = corners.every((corner) => signedDistanceToOutline(toMetres(plan.metadata, corner), room.polygon) >= 0.15);
      if (!clear) crossing.push(room.name);
      expect(toPixel(plan.metadata, roomLabelPlace(room.polygon)).px).toBeCloseTo(label.x, 1);
    }
    expect(crossing).toEqual([]);
  });
});
