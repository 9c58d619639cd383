// Robot commands and the robot stream (behaviour §7 "Robots", "Live streams").
import { z } from 'zod';
import { DataFlag, Id, Text } from './common.ts';
import { commaIdListQuery, EventStreamReply, LastEventId } from './live.ts';
import { MapPose } from './rooms.ts';
import { ChargingStatus, RobotMode, RobotStatus } from './robots.ts';
import { defineRoute } from './route.ts';

/** Behaviour §3: robots accept play/resume, pause, stop and home. */
export const RobotCommand = z.enum(['play', 'resume', 'pause', 'stop', 'home']);
export type RobotCommand = z.infer<typeof RobotCommand>;

export const RobotCommandParams = z.object({ robot_id: Id });
export const RobotCommandQuery = z.object({ command: RobotCommand });

/**
 * Optional request header of every command call (robot and job commands, job start, prompt decisions): a
 * retried command carrying the same key (per organization) answers the stored reply and reaches the robot only
 * once; the key sent with another command is refused (409 `CommandRefusal.keyReused`).
 */
export const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';
export const IdempotencyKey = Text().trim().min(1).max(200);

export const postRobotCommand = defineRoute({
  method: 'POST',
  path: '/command/:robot_id',
  summary:
    'Send play/resume, pause, stop or home to a robot; 409 when it is offline or not in Autonomous mode. An Idempotency-Key header makes retries safe',
  tags: ['robots', 'commands'],
  params: RobotCommandParams,
  querystring: RobotCommandQuery,
  response: { 200: DataFlag },
});

/** Where a robot is: metres in the map frame of floor `floor_id` (VDA 5050 agvPosition, mapId = floor id). */
export const RobotPoseValue = MapPose.extend({ floor_id: Id.nullable() });
export type RobotPoseValue = z.infer<typeof RobotPoseValue>;

/** One of a robot's current VDA 5050 errors, as the robot reported it. */
export const RobotError = z.object({ errorType: z.string(), errorLevel: z.string(), errorDescription: z.string().optional() });
export type RobotError = z.infer<typeof RobotError>;

/**
 * One robot_update event (behaviour §4): it sets one named field of the matching robot. A battery update also
 * carries charging_status; a ping update carries the round trip in ms, or `timeout: true` with value -1
 * (signal -1). `stale` is true while the robot has been silent for 30 s; `errors` are its VDA 5050 errors.
 */
export const RobotUpdate = z.discriminatedUnion('field', [
  z.object({
    robot_id: Id,
    field: z.literal('battery'),
    value: z.number(),
    charging_status: ChargingStatus,
  }),
  z.object({ robot_id: Id, field: z.literal('mode'), value: z.enum(RobotMode) }),
  z.object({ robot_id: Id, field: z.literal('status'), value: RobotStatus }),
  z.object({ robot_id: Id, field: z.literal('ping'), value: z.number().int(), timeout: z.boolean() }),
  z.object({ robot_id: Id, field: z.literal('pose'), value: RobotPoseValue }),
  z.object({ robot_id: Id, field: z.literal('stale'), value: z.boolean() }),
  z.object({ robot_id: Id, field: z.literal('errors'), value: z.array(RobotError) }),
]);
export type RobotUpdate = z.infer<typeof RobotUpdate>;
export type RobotUpdateField = RobotUpdate['field'];

/**
 * A command the server recorded for a robot (an order, or an instant action: pause, resume, stop, home, an
 * operator's decision, a room set not ready during its job) that the robot never acknowledged: it was sent and resent after commit, and given up.
 * A recorded event of the robots stream (it has an id and is replayed), sent once per command given up, to the
 * robot stream's clients that may see the robot; the console shows it as an error naming the robot.
 */
export const COMMAND_UNDELIVERED_EVENT = 'command_undelivered';
export const UndeliveredCommandKind = z.enum([
  'order',
  'play',
  'resume',
  'pause',
  'stop',
  'home',
  'decision',
  'room_not_ready',
  'loading_confirmed',
  'handoff_confirmed',
  'handoff_refused',
]);
export type UndeliveredCommandKind = z.infer<typeof UndeliveredCommandKind>;
export const CommandUndelivered = z.object({
  /** The outbox row's id. */
  command_id: Id,
  robot_id: Id,
  /** The job it was for (an order, a job's pause/resume/stop, a prompt's decision), or null for a robot command. */
  job_id: Id.nullable(),
  command: UndeliveredCommandKind,
  /** When the command was recorded, and when it was given up (ISO 8601). */
  issued_at: z.iso.datetime({ offset: true }),
  given_up_at: z.iso.datetime({ offset: true }),
  /** Why: `unacknowledged` (resent until the give-up time, no acknowledgement), `superseded` (a later command
   * to the robot was acknowledged first, so resending this one would reorder them), `robot_removed`. */
  reason: z.enum(['unacknowledged', 'superseded', 'robot_removed']),
});
export type CommandUndelivered = z.infer<typeof CommandUndelivered>;

/**
 * A stop (a job's or a robot's cancelOrder) the robot has not acknowledged `COMMAND_STOP_ALERT_MS` after it was
 * decided: `stop_unconfirmed`, and `stop_confirmed` once the robot acknowledged it. Stops are never given up: the
 * lamp may still be on. Recorded events of the robots stream, and of the jobs stream for a job's stop; the
 * notifications service pushes `stop_unconfirmed` to the users who may see the robot and the admins.
 */
export const STOP_UNCONFIRMED_EVENT = 'stop_unconfirmed';
export const STOP_CONFIRMED_EVENT = 'stop_confirmed';
export const StopAlert = z.object({
  command_id: Id,
  robot_id: Id,
  job_id: Id.nullable(),
  /** When the stop was decided, and when it was found unconfirmed or confirmed (ISO 8601). */
  issued_at: z.iso.datetime({ offset: true }),
  at: z.iso.datetime({ offset: true }),
});
export type StopAlert = z.infer<typeof StopAlert>;

export const RobotStreamQuery = z.object({
  robot_list: commaIdListQuery(Id),
  last_event_id: LastEventId.optional(),
});
export type RobotStreamQuery = z.infer<typeof RobotStreamQuery>;

export const streamRobots = defineRoute({
  method: 'GET',
  path: '/robot/stream',
  summary:
    'Live robot updates (robot_update, one field per event) of the listed robots, or of every robot the caller may see when robot_list is empty. Telemetry events carry no id: they are not replayed',
  tags: ['robots', 'live'],
  querystring: RobotStreamQuery,
  response: { 200: EventStreamReply },
  produces: 'text/event-stream',
});
