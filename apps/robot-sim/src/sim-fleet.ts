/** Many simulated robots at once: the demo fleet of `npm start`, `npm run sim` and the telemetry bench. */
import { SimRobot } from './sim-robot.ts';
import type { SimRobotOptions } from './sim-robot.ts';
import type { Pose, SimRobotKind } from './robot-model.ts';

export interface SimFleetRobot {
  manufacturer: string;
  serialNumber: string;
  password?: string;
  /** The floor id of the robot's home. */
  mapId: string;
  home: Pose;
  battery?: number;
  /** disinfection (default) or delivery. */
  kind?: SimRobotKind;
}

export interface SimFleetOptions {
  brokerUrl: string;
  robots: SimFleetRobot[];
  timeFactor?: number;
  faultRate?: number;
  /** Options applied to every robot (speed, irradiance, state interval…). */
  robotOptions?: Partial<Omit<SimRobotOptions, keyof SimFleetRobot | 'brokerUrl'>>;
}

export interface SimFleet {
  /** The robots that connected. */
  robots: SimRobot[];
  /** Robots the broker refused (wrong password, unknown robot) or could not be reached for. */
  failed: { serialNumber: string; error: Error }[];
  stop(): Promise<void>;
}

export async function startSimFleet(options: SimFleetOptions): Promise<SimFleet> {
  const candidates = options.robots.map(
    (robot) =>
      new SimRobot({
        ...options.robotOptions,
        ...robot,
        brokerUrl: options.brokerUrl,
        timeFactor: options.timeFactor ?? 1,
        faultRate: options.faultRate ?? 0,
      }),
  );
  const results = await Promise.allSettled(candidates.map((robot) => robot.start()));
  const robots: SimRobot[] = [];
  const failed: SimFleet['failed'] = [];
  results.forEach((result, i) => {
    const robot = candidates[i];
    if (!robot) return;
    if (result.status === 'fulfilled') robots.push(robot);
    else failed.push({ serialNumber: robot.serialNumber, error: result.reason instanceof Error ? result.reason : new Error(String(result.reason)) });
  });
  return {
    robots,
    failed,
    stop: async () => {
      await Promise.all(robots.map((robot) => robot.stop()));
    },
  };
}
