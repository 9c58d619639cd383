import { Robot } from '@uvd/contracts';

/** A robot as GET /robot/robot/robots sends it, parsed with the contract. */
export const robotFixture = (overrides: Partial<Robot> & Pick<Robot, 'robot_id' | 'name'>): Robot =>
  Robot.parse({
    kind: 'disinfection',
    status: 'idle',
    mode: 2,
    battery: 80,
    charging_status: 0,
    signal: 20,
    floor_id: null,
    building_id: null,
    pose: null,
    last_seen: null,
    stale: false,
    ...overrides,
  });

/** A uuid-shaped id numbered for readability. */
export const fixtureId = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
