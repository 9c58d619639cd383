/**
 * The simulated fleet as a browser test finds it through the API: a robot of the demo organization once it is online,
 * Autonomous and placed, and the rooms nearest to it (a short drive keeps a test quick).
 */
import { getFloorMapMetadata, getRobots, type MapPose } from '@uvd/contracts';
import { expect } from 'vitest';
import { callApi, type ApiSession } from './api.ts';

/** Robot mode 2 (spec §3): only an Autonomous robot takes a job. */
const AUTONOMOUS = 2;

export interface JourneyRobot {
  robot_id: string;
  name: string;
  building_id: string;
  floor_id: string;
  pose: MapPose;
}

/** The named robot once the simulated fleet has it online, Autonomous and placed on its floor. */
export async function readyRobot(api: ApiSession, name: string): Promise<JourneyRobot> {
  let found: JourneyRobot | undefined;
  await expect
    .poll(
      async () => {
        const robot = (await callApi(api, getRobots, { query: { offset: 0, limit: 50 } })).payload.find((candidate) => candidate.name === name);
        if (robot?.mode === AUTONOMOUS && !robot.stale && robot.building_id !== null && robot.floor_id !== null && robot.pose !== null) {
          found = { robot_id: robot.robot_id, name: robot.name, building_id: robot.building_id, floor_id: robot.floor_id, pose: robot.pose };
        }
        return found !== undefined;
      },
      { timeout: 30_000, message: `${name} online and Autonomous` },
    )
    .toBe(true);
  if (!found) throw new Error(`${name} is not ready`);
  return found;
}

export interface JourneyRoom {
  room_id: string;
  room_name: string;
}

/**
 * The rooms of the robot's floor whose entry points are nearest to where it stands, nearest first: a short drive
 * keeps the journey quick without changing the fleet's timing.
 */
export async function nearestRooms(api: ApiSession, robot: JourneyRobot, count: number): Promise<JourneyRoom[]> {
  const metadata = await callApi(api, getFloorMapMetadata, { query: { floor_id: robot.floor_id } });
  const distance = (point: MapPose) => Math.hypot(point.x - robot.pose.x, point.y - robot.pose.y);
  const rooms = metadata.rooms
    .flatMap((room) => (room.entry_point ? [{ room_id: room.room_id, room_name: room.room_name, entry: room.entry_point }] : []))
    .sort((a, b) => distance(a.entry) - distance(b.entry))
    .slice(0, count);
  if (rooms.length < count) throw new Error(`${robot.name}'s floor has ${rooms.length} rooms with an entry point, not ${count}`);
  return rooms.map(({ room_id, room_name }) => ({ room_id, room_name }));
}
