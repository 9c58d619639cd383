import { describe, expect, it } from 'vitest';
import { roomAt } from './room-at.ts';
import ward from './ward-3a-outlines.json';

const rooms = ward.rooms.map((room) => ({ room_name: room.room_name, polygon: room.polygon.map(([x = 0, y = 0]) => ({ x, y })) }));
const nameAt = (x: number, y: number) => roomAt(rooms, { x, y })?.room_name ?? null;

describe('the room a robot is in, on the outlines of a real floor (the demo hospital\'s Ward 3A)', () => {
  it('names the room whose outline holds the position, on both sides of the corridor', () => {
    expect(nameAt(1.5, 3)).toBe('A3-301 Shower room');
    expect(nameAt(37, 3)).toBe('A3-308 Day room');
    expect(nameAt(42.5, 12)).toBe('A3-310 Patient room');
    expect(nameAt(8.7, 11.6)).toBe('A3-318 Dirty utility');
  });

  it('follows a patient room round the en-suite bathroom cut out of its corridor-side corner', () => {
    // A3-302 is an L: its full width away from the corridor, narrower beside the bathroom.
    expect(nameAt(3.5, 2)).toBe('A3-302 Patient room');
    expect(nameAt(6, 5)).toBe('A3-302 Patient room');
    expect(nameAt(3.9, 4.8)).toBeNull();
    expect(nameAt(18.5, 12)).toBe('A3-315 Patient room');
    expect(nameAt(20.5, 9.5)).toBe('A3-315 Patient room');
    expect(nameAt(18.8, 9.8)).toBeNull();
  });

  it('says no room in the corridor, in the lift core and between two rooms\' walls', () => {
    expect(nameAt(22, 6.9)).toBeNull(); // where the floor's robot parks
    expect(nameAt(35, 7.3)).toBeNull();
    expect(nameAt(22, 3)).toBeNull(); // the lift core between A3-305 and A3-306
    expect(nameAt(2.9, 3)).toBeNull(); // the wall between A3-301 and A3-302
  });

  it('ignores an outline of fewer than three points, which holds no area', () => {
    expect(roomAt([{ polygon: [{ x: 0, y: 0 }, { x: 10, y: 10 }] }], { x: 5, y: 5 })).toBeNull();
  });
});
