// Contracts of the robots backend (behaviour §3, §7): robot lists, robots on a floor, summary, group robots.
import { z } from 'zod';
import { DataFlag, Id, pagination, Timestamp } from './common.ts';
import { RESTRICTED_ROLES } from './roles.ts';
import { MapPose } from './rooms.ts';
import { defineRoute } from './route.ts';

/** Behaviour §3 robot modes. */
export const RobotMode = {
  offline: 0,
  manual: 1,
  autonomous: 2,
  semiAutonomous: 3,
  maintenance: 4,
} as const;
export type RobotMode = (typeof RobotMode)[keyof typeof RobotMode];

/** Battery percentage below which a robot counts as low on battery in the summary (and the push "battery"). */
export const LOW_BATTERY_PERCENT = 20;

/**
 * What a robot is doing, as the server reads it from the robot's VDA 5050 state: a fatal error, paused, running a
 * disinfection, waiting for an operator's answer (an open uvd_operator_prompt), driving, on an order it has not
 * finished while neither driving nor irradiating (`on_order`), charging, else idle (also before it ever reported).
 * `offline` while its connection is not ONLINE: what it does then is unknown, so no last report is shown as if it
 * were live.
 */
export const RobotStatus = z.enum(['idle', 'driving', 'disinfecting', 'waiting', 'on_order', 'paused', 'charging', 'error', 'offline']);
export type RobotStatus = z.infer<typeof RobotStatus>;

/** What a robot is for: a disinfection robot runs jobs, a delivery robot carries deliveries. Never both. */
export const RobotKind = z.enum(['disinfection', 'delivery']);
export type RobotKind = z.infer<typeof RobotKind>;

/** 1 means charging, 0 not. */
export const ChargingStatus = z.union([z.literal(0), z.literal(1)]);
export type ChargingStatus = z.infer<typeof ChargingStatus>;

/**
 * Behaviour §3 robot, plus where it is (floor, building, pose in metres on the floor's map frame) and when it last
 * reported: the map draws robots from these.
 *
 * A robot is online only once it speaks: a VDA 5050 state or connection ONLINE message since the server (its
 * embedded broker) started. Until then, and after it disconnects, it is mode 0 (Offline) with signal null,
 * whatever it was registered with; its commands are refused (409 robot_offline). Battery is null until the
 * robot has ever reported one; after a disconnect or a server restart the last reported battery is shown, as
 * old as `last_seen` says. Status and pose are likewise the last reported ones.
 */
export const Robot = z.object({
  robot_id: Id,
  name: z.string(),
  /** disinfection robots run jobs, delivery robots carry deliveries (never both). */
  kind: RobotKind,
  /** The last reported activity; 'idle' if it never reported. */
  status: RobotStatus,
  /** 0 Offline (also: never heard from, or not since the server started), 1 Manual, 2 Autonomous, 3 Semi-autonomous, 4 Maintenance. */
  mode: z.enum(RobotMode),
  /** Percent, 0 to 100, as last reported; null when the robot never reported one. */
  battery: z.number().nullable(),
  charging_status: ChargingStatus,
  /**
   * Round-trip ping in ms, -1 when the online robot does not answer (the console maps it to percent of 800 ms,
   * behaviour §9); null when the robot is not online (nothing to measure).
   */
  signal: z.number().int().nullable(),
  floor_id: Id.nullable(),
  building_id: Id.nullable(),
  pose: MapPose.nullable(),
  last_seen: Timestamp.nullable(),
  /** Online but silent for 30 s or more: what the console shows of it may be out of date. */
  stale: z.boolean(),
});
export type Robot = z.infer<typeof Robot>;

/** Behaviour §7 "all-robots list is in payload": `count` is the total the caller may see, `payload` one page. */
export const RobotList = z.object({ count: z.number().int().min(0), payload: z.array(Robot) });
export type RobotList = z.infer<typeof RobotList>;

/** Behaviour §3 robots-on-floor response. */
export const FloorRobots = z.object({ robot_list: z.array(Id) });
export type FloorRobots = z.infer<typeof FloorRobots>;

/**
 * What the caller's fleet is doing, for a dashboard line: robots they may see, how many in each mode (a robot
 * not online counts as offline, as in `Robot.mode`), how many charging, how many under LOW_BATTERY_PERCENT (of
 * those that ever reported a battery).
 */
export const RobotSummary = z.object({
  total: z.number().int().min(0),
  by_mode: z.object({
    offline: z.number().int().min(0),
    manual: z.number().int().min(0),
    autonomous: z.number().int().min(0),
    semi_autonomous: z.number().int().min(0),
    maintenance: z.number().int().min(0),
  }),
  /** Robots per reported status (a status no robot has is left out). */
  by_status: z.partialRecord(RobotStatus, z.number().int().min(0)),
  charging: z.number().int().min(0),
  low_battery: z.number().int().min(0),
});
export type RobotSummary = z.infer<typeof RobotSummary>;

/** Behaviour §7: the body of the group robot add/remove calls is a list of robot ids. */
export const RobotIdList = z.array(Id).min(1);
export type RobotIdList = z.infer<typeof RobotIdList>;

/**
 * A robot's MQTT login, made fresh by an admin: the broker accepts the robot with these from now on, and with no
 * earlier password. The password is shown once (only its argon2id hash is kept). `floor_id` and `home` are where
 * the robot is registered to stand, what a robot (or the simulator playing it) starts from; `broker_url` is the
 * broker the server's fleet link uses, without any login of its own (null when the server cannot say).
 */
export const RobotMqttCredentials = z.object({
  robot_id: Id,
  manufacturer: z.string(),
  serial_number: z.string(),
  /** `{manufacturer}/{serial_number}`: the MQTT username. */
  username: z.string(),
  password: z.string(),
  broker_url: z.string().nullable(),
  floor_id: Id.nullable(),
  home: MapPose.nullable(),
});
export type RobotMqttCredentials = z.infer<typeof RobotMqttCredentials>;

/** Behaviour §9: robots are listed 50 at a time. */
const ROBOTS_PAGE = 50;

// ---------------------------------------------------------------- routes

export const getRobots = defineRoute({
  method: 'GET',
  path: '/robot/robot/robots',
  summary: 'Robots the caller may see, sorted by name',
  tags: ['robots'],
  querystring: z.object(pagination(ROBOTS_PAGE)),
  response: { 200: RobotList },
});

export const getAdminRobots = defineRoute({
  method: 'GET',
  path: '/admin/robot/admin/robot/robots',
  summary: 'Every robot of the organization, sorted by name (admin)',
  tags: ['robots', 'admin'],
  roles: RESTRICTED_ROLES,
  querystring: z.object(pagination(ROBOTS_PAGE)),
  response: { 200: RobotList },
});

export const getFloorRobots = defineRoute({
  method: 'GET',
  path: '/robot/floor/robot',
  summary: 'Ids of the robots on a floor that the caller may see, sorted by name',
  tags: ['robots'],
  querystring: z.object({ floor_id: Id }),
  response: { 200: FloorRobots },
});

export const getRobotSummary = defineRoute({
  method: 'GET',
  path: '/robot/robot/summary',
  summary: 'Counts of the robots the caller may see, by mode and status, charging and low on battery',
  tags: ['robots'],
  response: { 200: RobotSummary },
});

export const getGroupRobots = defineRoute({
  method: 'GET',
  path: '/admin/robot/:groupId',
  summary: 'Robots of a group, sorted by name (admin)',
  tags: ['robots', 'admin'],
  roles: RESTRICTED_ROLES,
  params: z.object({ groupId: Id }),
  response: { 200: z.array(Robot) },
});

export const addRobotsToGroup = defineRoute({
  method: 'POST',
  path: '/admin/robot/group_robot/robots',
  summary: 'Add robots to a group; robots already in it stay (admin)',
  tags: ['robots', 'admin'],
  roles: RESTRICTED_ROLES,
  querystring: z.object({ group_id: Id }),
  body: RobotIdList,
  response: { 200: DataFlag },
});

export const removeRobotsFromGroup = defineRoute({
  method: 'DELETE',
  path: '/admin/robot/robots',
  summary: 'Remove robots from a group; robots not in it are ignored (admin)',
  tags: ['robots', 'admin'],
  roles: RESTRICTED_ROLES,
  querystring: z.object({ group_id: Id }),
  body: RobotIdList,
  response: { 200: DataFlag },
});

export const createRobotMqttCredentials = defineRoute({
  method: 'POST',
  path: '/admin/robot/robots/:robotId/mqtt_credentials',
  summary: "Make a new random MQTT password for a robot of the organization and return it once; the old one stops working (admin)",
  tags: ['robots', 'admin'],
  roles: RESTRICTED_ROLES,
  params: z.object({ robotId: Id }),
  response: { 200: RobotMqttCredentials },
});
