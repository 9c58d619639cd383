/**
 * The demo fleet: every robot of the organization that stands on a floor, played by a simulated robot of its
 * kind (a UV-C robot, or a delivery robot with a drawer). The robots come from the admin robot list and each gets
 * a fresh MQTT password from the admin call `POST /admin/robot/robots/{robotId}/mqtt_credentials`, so no demo
 * secret lives in the repository and the simulator never touches the server's database.
 */
import { z } from 'zod';
import { createRobotMqttCredentials, getAdminRobots, Robot, RobotKind, RobotList, RobotMqttCredentials } from '@uvd/contracts';
import { startSimFleet, type SimFleet, type SimFleetRobot } from '../sim-fleet.ts';
import type { SimRobot } from '../sim-robot.ts';
import type { ApiClient } from './api-client.ts';
import type { DeliveryPanel, DeliveryRobot } from './delivery-activity.ts';

/** A robot of the admin list with its kind; a reply without one (a server from before robot kinds) is a UV robot. */
export const KindedRobot = Robot.extend({ kind: RobotKind.default('disinfection') });
export type KindedRobot = z.infer<typeof KindedRobot>;
const KindedRobotList = RobotList.extend({ payload: z.array(KindedRobot) });

/** A robot the demo fleet plays, as the simulator of its kind. */
export interface DemoFleetRobot extends SimFleetRobot {
  kind: RobotKind;
}

export interface DemoFleetOptions {
  timeFactor: number;
  faultRate?: number;
  /** W/m² at a room's far wall: a dose of D J/m² takes D / irradiance s (default DEMO_IRRADIANCE). */
  irradiance?: number;
  /** The broker to connect to; by default the one the server names with the credentials. */
  brokerUrl?: string;
  /**
   * Names of robots the demo leaves alone: no simulated robot, no fresh MQTT password (which would lock out
   * whoever plays them), no jobs from the activity. The browser tests play these themselves.
   */
  skipRobots?: readonly string[];
}

export interface DemoFleet extends SimFleet {
  /** Ids of the disinfection robots that connected (what the demo activity gives jobs to). */
  robotIds: string[];
  /** The delivery robots that connected, each with its panel (what the delivery activity requests deliveries for). */
  deliveryRobots: DeliveryRobot[];
}

const PAGE = 200;

/** 55-100 %, from the serial number (FNV-1a), so a robot starts the same on every run. */
export function startingBattery(serialNumber: string): number {
  let hash = 0x811c9dc5;
  for (const char of serialNumber) hash = Math.imul(hash ^ (char.codePointAt(0) ?? 0), 0x01000193) >>> 0;
  return 55 + (hash % 46);
}

/** Every robot of the signed-in admin's organization, page by page. */
export async function listOrganizationRobots(api: ApiClient): Promise<KindedRobot[]> {
  const all: KindedRobot[] = [];
  for (let offset = 0; ; offset += PAGE) {
    const page = await api.call(getAdminRobots, KindedRobotList, { query: { offset, limit: PAGE } });
    all.push(...page.payload);
    if (page.payload.length < PAGE || all.length >= page.count) return all;
  }
}

/**
 * Fresh credentials for each robot on a floor; robots without a floor have nowhere to drive and are left out, and
 * so are the robots named in `skip`.
 */
export async function demoRobots(
  api: ApiClient,
  skip: readonly string[] = [],
): Promise<{ robots: DemoFleetRobot[]; ids: Map<string, string>; brokerUrl: string | null }> {
  const robots: DemoFleetRobot[] = [];
  const ids = new Map<string, string>();
  const skipped = new Set(skip);
  let brokerUrl: string | null = null;
  for (const robot of await listOrganizationRobots(api)) {
    if (robot.floor_id === null || skipped.has(robot.name)) continue;
    const credentials = await api.call(createRobotMqttCredentials, RobotMqttCredentials, { params: { robotId: robot.robot_id } });
    if (credentials.floor_id === null) continue;
    brokerUrl ??= credentials.broker_url;
    ids.set(credentials.username, credentials.robot_id);
    robots.push({
      manufacturer: credentials.manufacturer,
      serialNumber: credentials.serial_number,
      password: credentials.password,
      mapId: credentials.floor_id,
      kind: robot.kind,
      home: credentials.home ?? robot.pose ?? { x: 0, y: 0, theta: 0 },
      // As last reported; a robot never heard from starts somewhere between 55 and 100 % (the same for its serial
      // number on every run), so the fleet does not look cloned. One nearly empty would only ever go charging.
      battery: robot.battery !== null && robot.battery >= 30 ? robot.battery : startingBattery(credentials.serial_number),
    });
  }
  return { robots, ids, brokerUrl };
}

/**
 * W/m² the demo's robots assume at a room's far wall: a dose of D J/m² takes D × 6 s, as in the demo's history
 * (apps/server/src/seed/history.ts). The server's dose model (apps/server/src/dose/lamp.ts, the demo's lamp) gives
 * about this at the far corners of the demo's rooms, so a live demo job's dose map agrees with the history's.
 */
export const DEMO_IRRADIANCE = 1 / 6;

export async function startDemoFleet(api: ApiClient, options: DemoFleetOptions): Promise<DemoFleet> {
  const { robots, ids, brokerUrl } = await demoRobots(api, options.skipRobots);
  const url = options.brokerUrl ?? brokerUrl;
  if (robots.length > 0 && !url) throw new Error('the server named no MQTT broker; give the demo one (--broker)');
  const fleet = robots.length === 0 ? await startSimFleet({ brokerUrl: '', robots: [] }) : await startSimFleet({
    brokerUrl: url ?? '',
    robots,
    timeFactor: options.timeFactor,
    faultRate: options.faultRate ?? 0,
    robotOptions: { irradiance: options.irradiance ?? DEMO_IRRADIANCE },
  });
  const idOf = (robot: SimRobot) => ids.get(`${robot.manufacturer}/${robot.serialNumber}`);
  const kindOf = (robot: SimRobot) => robots.find((candidate) => candidate.manufacturer === robot.manufacturer && candidate.serialNumber === robot.serialNumber)?.kind;
  const robotIds = fleet.robots.flatMap((robot) => (kindOf(robot) === 'disinfection' ? (idOf(robot) ?? []) : []));
  const deliveryRobots = fleet.robots.flatMap((robot): DeliveryRobot[] => {
    const robotId = idOf(robot);
    if (kindOf(robot) !== 'delivery' || !robotId) return [];
    const panel = deliveryPanel(robot);
    return [{ robotId, ...(panel ? { panel } : {}) }];
  });
  return { ...fleet, robotIds, deliveryRobots };
}

/**
 * The buttons and screen of a simulated delivery robot (SimRobot's confirmLoading, enterPin and blockPath), when
 * this simulator has them; without them the delivery activity does everything in the console.
 */
export function deliveryPanel(robot: SimRobot): DeliveryPanel | undefined {
  const candidate: object = robot;
  return isDeliveryPanel(candidate) ? candidate : undefined;
}

const isDeliveryPanel = (value: object): value is DeliveryPanel =>
  'confirmLoading' in value &&
  typeof value.confirmLoading === 'function' &&
  'enterPin' in value &&
  typeof value.enterPin === 'function' &&
  'blockPath' in value &&
  typeof value.blockPath === 'function';
