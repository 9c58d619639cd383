/**
 * The simulated fleet as a browser test finds it through the API: a robot of the demo organization once it is online,
 * Autonomous and placed, and the rooms nearest to it (a short drive keeps a test quick). A test may also play a
 * robot itself (`playRobot`: one of own-robots.ts, which the demo fleet leaves alone).
 */
import { createRobotMqttCredentials, getAdminRobots, getFloorMapMetadata, getRobots, type MapPose } from '@uvd/contracts';
import { SimRobot } from '@uvd/robot-sim';
import { expect } from 'vitest';
import { callApi, type ApiSession } from './api.ts';

/** Robot mode 2 (behaviour §3): only an Autonomous robot takes a job. */
const AUTONOMOUS = 2;

export interface JourneyRobot {
  robot_id: string;
  name: string;
  building_id: string;
  floor_id: string;
  pose: MapPose;
}

/** The named robot once it is online (the demo fleet's, or one a test plays), Autonomous and placed on its floor. */
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

/**
 * Simulated seconds per real second of a robot a test plays: at northwind's highest dose (60 J/m² at the
 * simulator's 0.5 W/m², 120 s) a room's lamp burns 12 s, long enough for a person to act on it in the console
 * while it is on; a drive to a near room takes a second or two.
 */
export const PLAYED_TIME_FACTOR = 10;

/**
 * Plays the named robot in the test process, over real MQTT against the server's broker, with a fresh password from
 * the admin API (`admin` must be an admin's session): the robot must be one of own-robots.ts's, which no other
 * process plays. Resolves once it is connected; the test reads its lamp (`lampOn`, `lampRoomId`, `model`), changes
 * its mode (`setOperatingMode`), cuts its link (`kill()`: the broker publishes its last will) and brings it back
 * (`start()` again), and stops it (`stop()`) when done.
 */
export async function playRobot(admin: ApiSession, name: string, timeFactor = PLAYED_TIME_FACTOR): Promise<SimRobot> {
  const robot = (await callApi(admin, getAdminRobots, { query: { offset: 0, limit: 50 } })).payload.find((candidate) => candidate.name === name);
  if (!robot) throw new Error(`no robot ${name} in the organization (the e2e global setup seeds it: own-robots.ts)`);
  const credentials = await callApi(admin, createRobotMqttCredentials, { params: { robotId: robot.robot_id } });
  if (!credentials.broker_url || !credentials.floor_id) throw new Error(`${name} has no broker or floor to play it on`);
  const sim = new SimRobot({
    brokerUrl: credentials.broker_url,
    manufacturer: credentials.manufacturer,
    serialNumber: credentials.serial_number,
    password: credentials.password,
    mapId: credentials.floor_id,
    home: credentials.home ?? robot.pose ?? { x: 0, y: 0, theta: 0 },
    // Full: a test's robot must never turn home for its battery halfway through what the test watches.
    battery: 100,
    timeFactor,
  });
  await sim.start();
  return sim;
}
