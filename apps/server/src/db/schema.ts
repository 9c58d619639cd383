/**
 * The database schema. Every tenant row carries `org_id` (the realm name); every query filters on it.
 * Ids are UUIDs so an id of another organization cannot be guessed and answers 404.
 */
import { sql } from 'drizzle-orm';
import { DEFAULT_START_WINDOW_MINUTES } from '@uvd/contracts';
import type {
  AuditOperation,
  AuditSource,
  CustodyStepKind,
  DeliveryPlace,
  DeliveryPriority,
  DeliveryStatus,
  DeliveryWaitingFor,
  DrawerState,
  ItemCategory,
  JobActiveState,
  JobRoomState,
  JobStatus,
  DoseGrid,
  LampInterval,
  LampModel,
  LoggedJobEvent,
  LoggedPrompt,
  LoggedRoom,
  MapFrame,
  MapPoint,
  MapPose,
  NotStartedReason,
  RobotError,
  RobotKind,
  RobotMode,
  RobotStatus,
  TrajectoryPoint,
  WebhookEventType,
} from '@uvd/contracts';
import {
  bigint,
  bigserial,
  boolean,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  real,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';

const id = () => uuid('id').primaryKey().default(sql`gen_random_uuid()`);
const orgId = () =>
  text('org_id')
    .notNull()
    .references(() => organizations.id, { onDelete: 'cascade' });
const createdAt = () => timestamp('created_at', { withTimezone: true }).notNull().defaultNow();

export const organizations = pgTable('organizations', {
  id: text('id').primaryKey(), // the realm name, lowercase
  name: text('name').notNull(),
  uvcDoses: integer('uvc_doses').array().notNull().default(sql`'{}'::integer[]`),
  defaultDose: integer('default_dose'),
  /** A Scheduled job not started this many minutes after its start_time is missed instead of started late. */
  startWindowMinutes: integer('start_window_minutes').notNull().default(DEFAULT_START_WINDOW_MINUTES),
  createdAt: createdAt(),
});

// ---------------------------------------------------------------- identity

export const users = pgTable(
  'users',
  {
    id: id(),
    orgId: orgId(),
    username: text('username').notNull(),
    firstName: text('first_name').notNull().default(''),
    lastName: text('last_name').notNull().default(''),
    email: text('email').notNull().default(''),
    passwordHash: text('password_hash').notNull(),
    roles: text('roles').array().notNull().default(sql`'{}'::text[]`),
    language: text('language').notNull().default('EN'),
    timezone: text('timezone').notNull().default('Europe/Helsinki'),
    enabled: boolean('enabled').notNull().default(true),
    // Brute-force detection (Keycloak's model): consecutive failures, and when logins are refused until.
    failedLogins: integer('failed_logins').notNull().default(0),
    lastFailureAt: timestamp('last_failure_at', { withTimezone: true }),
    lockedUntil: timestamp('locked_until', { withTimezone: true }),
    /** An admin set the password: the console asks the user for a new one before anything else. */
    mustChangePassword: boolean('must_change_password').notNull().default(false),
    /**
     * Access tokens issued before this (their `iat`, whole seconds) are refused: set when the password changes, so
     * a token taken with the old one stops working at once (Keycloak's user not-before policy).
     */
    tokensNotBefore: timestamp('tokens_not_before', { withTimezone: true }),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('users_org_username').on(t.orgId, t.username)],
);

/**
 * A password reset link (recovery/README.md): single use, valid PASSWORD_RESET_TTL_MINUTES. Only the SHA-256 of its
 * token is kept, so a copy of this table opens nothing.
 */
export const passwordResetTokens = pgTable(
  'password_reset_tokens',
  {
    id: id(),
    orgId: orgId(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** Hex SHA-256 of the token the link carries. */
    tokenHash: text('token_hash').notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    usedAt: timestamp('used_at', { withTimezone: true }),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('password_reset_tokens_hash').on(t.tokenHash), index('password_reset_tokens_user').on(t.userId, t.createdAt)],
);

/** A login session: the chain of rotating refresh tokens that one password grant started. */
export const sessions = pgTable(
  'sessions',
  {
    id: id(),
    orgId: orgId(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    offline: boolean('offline').notNull().default(false),
    createdAt: createdAt(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    endedAt: timestamp('ended_at', { withTimezone: true }),
  },
  (t) => [index('sessions_user').on(t.userId)],
);

/** One refresh token of a session; `usedAt` set once it was exchanged (reuse ends the session). */
export const refreshTokens = pgTable(
  'refresh_tokens',
  {
    id: uuid('id').primaryKey(), // the token's jti
    sessionId: uuid('session_id')
      .notNull()
      .references(() => sessions.id, { onDelete: 'cascade' }),
    issuedAt: createdAt(),
    usedAt: timestamp('used_at', { withTimezone: true }),
    /** The token that replaced this one when it was used (its jti). */
    successorId: uuid('successor_id'),
    /**
     * The token reply that exchange answered, encrypted under a key derived from this (used) token, so that the
     * same token presented again within the grace window gets the same reply (identity/reissue.ts).
     */
    successorReply: text('successor_reply'),
  },
  (t) => [index('refresh_tokens_session').on(t.sessionId)],
);

/** Signing keys of the built-in identity provider, shared by every server process on one database. */
export const signingKeys = pgTable('signing_keys', {
  kid: text('kid').primaryKey(),
  privateJwk: jsonb('private_jwk').notNull(),
  publicJwk: jsonb('public_jwk').notNull(),
  createdAt: createdAt(),
});

// ---------------------------------------------------------------- groups

export const groups = pgTable(
  'groups',
  {
    id: id(),
    orgId: orgId(),
    name: text('name').notNull(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('groups_org_name').on(t.orgId, t.name)],
);

export const userGroups = pgTable(
  'user_groups',
  {
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    groupId: uuid('group_id')
      .notNull()
      .references(() => groups.id, { onDelete: 'cascade' }),
  },
  (t) => [primaryKey({ columns: [t.userId, t.groupId] }), index('user_groups_group').on(t.groupId)],
);

// ---------------------------------------------------------------- site

export const buildings = pgTable(
  'buildings',
  {
    id: id(),
    orgId: orgId(),
    name: text('name').notNull(),
    createdAt: createdAt(),
  },
  (t) => [index('buildings_org').on(t.orgId, t.name)],
);

/** Map metadata: where the floor's plan lies in metres, as sent in the floor's map metadata. */
export type MapMetadata = MapFrame;

export const floors = pgTable(
  'floors',
  {
    id: id(),
    orgId: orgId(),
    buildingId: uuid('building_id')
      .notNull()
      .references(() => buildings.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    level: integer('level').notNull().default(0),
    mapSvg: text('map_svg'),
    mapMetadata: jsonb('map_metadata').$type<MapMetadata>(),
    createdAt: createdAt(),
  },
  (t) => [index('floors_org_building').on(t.orgId, t.buildingId, t.level)],
);

/** Points and poses in metres on a floor's map frame, stored as they are sent. */
export type Point = MapPoint;
export type Pose = MapPose;

export const rooms = pgTable(
  'rooms',
  {
    id: id(),
    orgId: orgId(),
    buildingId: uuid('building_id')
      .notNull()
      .references(() => buildings.id, { onDelete: 'cascade' }),
    floorId: uuid('floor_id')
      .notNull()
      .references(() => floors.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    orderNo: integer('order_no').notNull().default(0),
    dose: integer('dose'),
    /** Outline in metres on the floor's map frame. */
    polygon: jsonb('polygon').$type<Point[]>().notNull().default(sql`'[]'::jsonb`),
    /** Where a robot stands to disinfect the room, metres on the floor's map frame. */
    entryPoint: jsonb('entry_point').$type<Pose>(),
    readyForDisinfection: boolean('ready_for_disinfection').notNull().default(true),
    createdAt: createdAt(),
  },
  (t) => [index('rooms_org_floor').on(t.orgId, t.floorId, t.orderNo)],
);

export const roomGroups = pgTable(
  'room_groups',
  {
    roomId: uuid('room_id')
      .notNull()
      .references(() => rooms.id, { onDelete: 'cascade' }),
    groupId: uuid('group_id')
      .notNull()
      .references(() => groups.id, { onDelete: 'cascade' }),
  },
  (t) => [primaryKey({ columns: [t.roomId, t.groupId] }), index('room_groups_group').on(t.groupId)],
);

// ---------------------------------------------------------------- robots

export const robots = pgTable(
  'robots',
  {
    id: id(),
    orgId: orgId(),
    name: text('name').notNull(),
    /** VDA 5050 identity: uagv/v2/{manufacturer}/{serialNumber}/... */
    manufacturer: text('manufacturer').notNull().default('uvd'),
    serialNumber: text('serial_number').notNull(),
    /** disinfection robots run jobs, delivery robots carry deliveries (never both). */
    kind: text('kind').$type<RobotKind>().notNull().default('disinfection'),
    status: text('status').$type<RobotStatus>().notNull().default('idle'),
    mode: integer('mode').$type<RobotMode>().notNull().default(0), // behaviour §3: 0 Offline … 4 Maintenance
    battery: real('battery').notNull().default(0),
    chargingStatus: integer('charging_status').notNull().default(0),
    signal: integer('signal').notNull().default(-1),
    floorId: uuid('floor_id').references(() => floors.id, { onDelete: 'set null' }),
    pose: jsonb('pose').$type<Pose>(),
    home: jsonb('home').$type<Pose>(),
    lastSeenAt: timestamp('last_seen_at', { withTimezone: true }),
    /** VDA 5050 connectionState: ONLINE, OFFLINE or CONNECTIONBROKEN (the last will). */
    connectionState: text('connection_state').notNull().default('OFFLINE'),
    /** headerId of the last state message applied: a duplicated or late publish changes nothing. */
    lastStateHeaderId: integer('last_state_header_id'),
    /** Password of the robot's login to the embedded MQTT broker (argon2id); null means it cannot log in. */
    mqttPasswordHash: text('mqtt_password_hash'),
    /** The robot's current VDA 5050 errors, as reported (and sent in its `errors` updates). */
    errors: jsonb('errors').$type<RobotError[]>().notNull().default(sql`'[]'::jsonb`),
    factsheet: jsonb('factsheet'),
    /** The robot model's UV-C lamp (contracts LampModel); null: the default lamp (dose/lamp.ts DEFAULT_LAMP). */
    lamp: jsonb('lamp').$type<LampModel>(),
    createdAt: createdAt(),
  },
  (t) => [
    index('robots_org_name').on(t.orgId, t.name),
    uniqueIndex('robots_vda_identity').on(t.manufacturer, t.serialNumber),
    index('robots_floor').on(t.floorId),
  ],
);

export const robotGroups = pgTable(
  'robot_groups',
  {
    robotId: uuid('robot_id')
      .notNull()
      .references(() => robots.id, { onDelete: 'cascade' }),
    groupId: uuid('group_id')
      .notNull()
      .references(() => groups.id, { onDelete: 'cascade' }),
  },
  (t) => [primaryKey({ columns: [t.robotId, t.groupId] }), index('robot_groups_group').on(t.groupId)],
);

// ---------------------------------------------------------------- jobs and logs

export const jobs = pgTable(
  'jobs',
  {
    id: id(),
    orgId: orgId(),
    robotId: uuid('robot_id')
      .notNull()
      .references(() => robots.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    notes: text('notes').notNull().default(''),
    status: text('status').$type<JobStatus>().notNull().default('Scheduled'),
    /** While Running: disinfecting or paused (behaviour §4). */
    activeState: text('active_state').$type<JobActiveState>(),
    startTime: timestamp('start_time', { withTimezone: true }).notNull(),
    startNow: boolean('start_now').notNull().default(false),
    performed: boolean('performed').notNull().default(false),
    createdBy: text('created_by').notNull(),
    createdById: uuid('created_by_id').references(() => users.id, { onDelete: 'set null' }),
    createdAt: createdAt(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
    startedAt: timestamp('started_at', { withTimezone: true }),
    /** The robot's time (its state's timestamp) of the first state that reported the job's order: the log's start. */
    robotStartedAt: timestamp('robot_started_at', { withTimezone: true }),
    /** The robot's time the job ended (robot-link/job-runner.ts), or when a person ended it. */
    endedAt: timestamp('ended_at', { withTimezone: true }),
    /** completed, aborted (stopped by an operator) or failed; set when the job ends. */
    completionStatus: text('completion_status'),
    /** VDA 5050 orderUpdateId of the order last sent for this job (the orderId is the job id). */
    orderUpdateId: integer('order_update_id').notNull().default(0),
    /** A due Scheduled job the robot could not take: the start's refusal code (NotStartedReason); kept when missed. */
    notStartedReason: text('not_started_reason').$type<NotStartedReason>(),
  },
  (t) => [
    // The jobs list filters by organization, optionally robots, and a start_time range, newest first.
    index('jobs_org_start').on(t.orgId, t.startTime.desc(), t.id),
    index('jobs_org_robot_start').on(t.orgId, t.robotId, t.startTime.desc(), t.id),
    // The jobs list holds only jobs not yet performed (jobs/README.md): a few among a long history, read from these.
    index('jobs_open_org_start').on(t.orgId, t.startTime.desc(), t.id).where(sql`performed = false`),
    index('jobs_open_org_robot_start').on(t.orgId, t.robotId, t.startTime.desc(), t.id).where(sql`performed = false`),
    // The scheduler looks for due Scheduled jobs.
    index('jobs_due').on(t.startTime).where(sql`status = 'Scheduled'`),
  ],
);

export const jobRooms = pgTable(
  'job_rooms',
  {
    jobId: uuid('job_id')
      .notNull()
      .references(() => jobs.id, { onDelete: 'cascade' }),
    orderNo: integer('order_no').notNull(),
    roomId: uuid('room_id')
      .notNull()
      .references(() => rooms.id, { onDelete: 'cascade' }),
    dose: integer('dose').notNull(),
    /** A JobRoomState of the contracts (pending … aborted), as the robot reports progress. */
    state: text('state').$type<JobRoomState>().notNull().default('pending'),
    /** The robot's times (its reports) the room's disinfection started and ended. */
    startedAt: timestamp('started_at', { withTimezone: true }),
    endedAt: timestamp('ended_at', { withTimezone: true }),
    /** J/m² the robot reported giving the room (UVD_DOSE_INFO_TYPE); null until it reports any. */
    doseReceived: real('dose_received'),
  },
  (t) => [primaryKey({ columns: [t.jobId, t.orderNo] }), index('job_rooms_room').on(t.roomId)],
);

/** The log's rooms and trajectory are kept as they are sent (the log entry's `attributes.rooms`, the job's `trajectory`). */
export type { LoggedRoom, TrajectoryPoint };
/** The dose field of a log as stored: the lamp, lamp-on intervals, and each room's grid keyed by its order. */
export interface StoredLogDose {
  lamp: LampModel;
  lamp_intervals: LampInterval[];
  grids: Record<string, DoseGrid>;
}
/** A logged room as stored: logs written before migration 0007 have no `dose_received`. */
export type StoredLoggedRoom = Omit<LoggedRoom, 'dose_received'> & { dose_received?: number | null };

/** A finished job, kept as the proof of what was disinfected (behaviour §3 log entry). Keyed by the job id. */
export const logs = pgTable(
  'logs',
  {
    jobId: uuid('job_id').primaryKey(),
    orgId: orgId(),
    jobName: text('job_name').notNull(),
    completionStatus: text('completion_status').notNull(),
    robotId: uuid('robot_id').references(() => robots.id, { onDelete: 'set null' }),
    robotName: text('robot_name').notNull(),
    createdBy: text('created_by').notNull(),
    startTime: timestamp('starttime', { withTimezone: true }).notNull(),
    endTime: timestamp('endtime', { withTimezone: true }),
    /** The job's planned start_time (starttime is the real start). */
    plannedStartTime: timestamp('planned_starttime', { withTimezone: true }),
    /** Why the job ended so, when a robot's condition decided it (NotStartedReason); null otherwise. */
    reason: text('reason').$type<NotStartedReason>(),
    notes: text('notes').notNull().default(''),
    rooms: jsonb('rooms').$type<StoredLoggedRoom[]>().notNull().default(sql`'[]'::jsonb`),
    trajectory: jsonb('trajectory').$type<TrajectoryPoint[]>(),
    prompts: jsonb('prompts').$type<LoggedPrompt[]>().notNull().default(sql`'[]'::jsonb`),
    /** The job's events (job_events) as they were when it ended. */
    events: jsonb('events').$type<LoggedJobEvent[]>().notNull().default(sql`'[]'::jsonb`),
    /**
     * The dose model's result (dose/README.md), computed when the log is written: the lamp it assumed, the lamp-on
     * intervals, and each room's grid by its order (the per-room figures are in `rooms[].dose_stats`). Null for a
     * log written before the model, or with no recorded path.
     */
    dose: jsonb('dose').$type<StoredLogDose>(),
    createdAt: createdAt(),
  },
  (t) => [
    index('logs_org_start').on(t.orgId, t.startTime.desc(), t.jobId),
    index('logs_org_robot_start').on(t.orgId, t.robotId, t.startTime.desc(), t.jobId),
  ],
);

/**
 * What happened to a job while it ran, recorded in the transaction that decided it (a room's readiness changed
 * by a user, so far); copied into the log's `events` when the job ends. `kind` is a JobEventKind of the
 * contracts; `dose` the J/m² the room had received, when known; `details` what a kind needs beyond these.
 */
export const jobEvents = pgTable(
  'job_events',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    orgId: orgId(),
    jobId: uuid('job_id')
      .notNull()
      .references(() => jobs.id, { onDelete: 'cascade' }),
    at: timestamp('at', { withTimezone: true }).notNull().defaultNow(),
    kind: text('kind').notNull(),
    /** The user's username, or null for the robot or the server. */
    actor: text('actor'),
    orderNo: integer('order_no'),
    roomId: uuid('room_id').references(() => rooms.id, { onDelete: 'set null' }),
    dose: real('dose'),
    details: jsonb('details').$type<Record<string, unknown>>().notNull().default(sql`'{}'::jsonb`),
  },
  (t) => [index('job_events_job').on(t.jobId, t.id)],
);

/** Poses of a robot during a job, thinned as they arrive; become the log's trajectory when the job ends. */
export const trajectoryPoints = pgTable(
  'trajectory_points',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    jobId: uuid('job_id')
      .notNull()
      .references(() => jobs.id, { onDelete: 'cascade' }),
    floorId: uuid('floor_id'),
    t: real('t').notNull(), // seconds since the job started
    x: real('x').notNull(),
    y: real('y').notNull(),
  },
  (t) => [index('trajectory_points_job').on(t.jobId, t.id)],
);

/**
 * When the robot reported its lamp on in a room of a job (robot times): opened by the first state that shows the
 * room's disinfection running unpaused, closed by the first that does not. With the trajectory, the dose model's
 * input (dose/README.md). `endedAt` null while the lamp is on.
 */
export const lampIntervals = pgTable(
  'lamp_intervals',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    jobId: uuid('job_id')
      .notNull()
      .references(() => jobs.id, { onDelete: 'cascade' }),
    orderNo: integer('order_no').notNull(),
    startedAt: timestamp('started_at', { withTimezone: true }).notNull(),
    endedAt: timestamp('ended_at', { withTimezone: true }),
  },
  (t) => [index('lamp_intervals_job').on(t.jobId, t.id)],
);

/**
 * A robot's question to the operator (an "action" of behaviour §3): button text of behaviour §3 (wait_to_enter, …). It travels
 * from the robot as VDA 5050 information and the decision goes back as an instant action.
 */
export const actions = pgTable(
  'actions',
  {
    id: id(),
    orgId: orgId(),
    jobId: uuid('job_id')
      .notNull()
      .references(() => jobs.id, { onDelete: 'cascade' }),
    robotId: uuid('robot_id')
      .notNull()
      .references(() => robots.id, { onDelete: 'cascade' }),
    roomId: uuid('room_id').references(() => rooms.id, { onDelete: 'set null' }),
    /** The robot's own id of the prompt: a repeated report of the same prompt is one action. */
    promptId: text('prompt_id').notNull(),
    buttonText: text('button_text').notNull(),
    disabled: boolean('disabled').notNull().default(false),
    confirm: boolean('confirm'),
    /** Who answered, when, and where (console or a notification's button): kept in the job's log. */
    decidedBy: text('decided_by'),
    decidedAt: timestamp('decided_at', { withTimezone: true }),
    decisionSource: text('decision_source'),
    createdAt: createdAt(),
    resolvedAt: timestamp('resolved_at', { withTimezone: true }),
  },
  (t) => [
    uniqueIndex('actions_robot_prompt').on(t.robotId, t.promptId),
    index('actions_job').on(t.jobId, t.createdAt.desc()),
  ],
);

/** Replies of commands sent with an Idempotency-Key: a retried command has exactly one effect. */
export const commandReplies = pgTable(
  'command_replies',
  {
    orgId: orgId(),
    key: text('key').notNull(),
    reply: jsonb('reply').notNull(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.key] })],
);

/**
 * The outbox of robot commands: every order and instant action the server decides for a robot, recorded in
 * the transaction that decides it and sent after commit (robot-link/outbox.ts), resent until the robot's state
 * acknowledges it or given up. `seq` numbers a robot's commands in the order they were decided (the robot
 * row is locked while one is recorded); they go out in that order.
 */
export const robotCommands = pgTable(
  'robot_commands',
  {
    id: id(),
    orgId: orgId(),
    robotId: uuid('robot_id')
      .notNull()
      .references(() => robots.id, { onDelete: 'cascade' }),
    jobId: uuid('job_id').references(() => jobs.id, { onDelete: 'set null' }),
    /** The delivery a delivery robot's command is for (its order, pause, resume, cancel, hand-off answers). */
    deliveryId: uuid('delivery_id').references(() => deliveries.id, { onDelete: 'set null' }),
    seq: integer('seq').notNull(),
    kind: text('kind').notNull(), // UndeliveredCommandKind of the contracts: order, play, resume, pause, stop, home, decision
    /** The VDA 5050 message without its header: `{ order }` or `{ actions }` (robot-link/outbox.ts CommandBody). */
    body: jsonb('body').notNull(),
    state: text('state').notNull().default('pending'), // pending | sent | acknowledged | undelivered
    attempts: integer('attempts').notNull().default(0),
    sentAt: timestamp('sent_at', { withTimezone: true }),
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true }).notNull().defaultNow(),
    acknowledgedAt: timestamp('acknowledged_at', { withTimezone: true }),
    givenUpAt: timestamp('given_up_at', { withTimezone: true }),
    givenUpReason: text('given_up_reason'), // unacknowledged | superseded
    /** When `stop_unconfirmed` was raised for this stop (never given up, so it is alerted once instead). */
    stopAlertedAt: timestamp('stop_alerted_at', { withTimezone: true }),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('robot_commands_robot_seq').on(t.robotId, t.seq),
    index('robot_commands_open').on(t.nextAttemptAt).where(sql`state IN ('pending', 'sent')`),
    // A job's pending command is read with every job the lists and streams show.
    index('robot_commands_open_job').on(t.jobId).where(sql`state IN ('pending', 'sent')`),
  ],
);

// ---------------------------------------------------------------- deliveries (the logistics variant)

/**
 * A delivery from a pickup room to a drop-off room. Queued deliveries wait for the dispatcher (robot_id null); a
 * dispatched one is a VDA 5050 order whose orderId is the delivery id. Status is behaviour §3's 0–6.
 */
export const deliveries = pgTable(
  'deliveries',
  {
    id: id(),
    orgId: orgId(),
    status: integer('status').$type<DeliveryStatus>().notNull().default(0),
    priority: text('priority').$type<DeliveryPriority>().notNull().default('routine'),
    pickupRoomId: uuid('pickup_room_id')
      .notNull()
      .references(() => rooms.id, { onDelete: 'restrict' }),
    dropoffRoomId: uuid('dropoff_room_id')
      .notNull()
      .references(() => rooms.id, { onDelete: 'restrict' }),
    /** The robot carrying it; null while Queued (and after a hand-back). */
    robotId: uuid('robot_id').references(() => robots.id, { onDelete: 'set null' }),
    requestedById: uuid('requested_by_id').references(() => users.id, { onDelete: 'set null' }),
    requestedByName: text('requested_by_name').notNull(),
    recipientUserId: uuid('recipient_user_id').references(() => users.id, { onDelete: 'set null' }),
    recipientName: text('recipient_name'),
    deliverBy: timestamp('deliver_by', { withTimezone: true }),
    notes: text('notes').notNull().default(''),
    /** The hand-off PIN, hashed (argon2id); the PIN itself is only in the create reply and the recipient's push. */
    pinHash: text('pin_hash').notNull(),
    pinFailures: integer('pin_failures').notNull().default(0),
    handoffLockedAt: timestamp('handoff_locked_at', { withTimezone: true }),
    /** The PIN was verified (console or robot): the drop may finish, and its finishing makes the delivery Delivered. */
    handoffVerifiedAt: timestamp('handoff_verified_at', { withTimezone: true }),
    loadedAt: timestamp('loaded_at', { withTimezone: true }),
    deliveredAt: timestamp('delivered_at', { withTimezone: true }),
    waitingFor: text('waiting_for').$type<DeliveryWaitingFor>(),
    waitingSince: timestamp('waiting_since', { withTimezone: true }),
    /** Why it is Blocked, or why it was last handed back to the queue. */
    reason: text('reason'),
    dispatchAttempts: integer('dispatch_attempts').notNull().default(0),
    dispatchedAt: timestamp('dispatched_at', { withTimezone: true }),
    /** Since when the robot carrying it is blocked or gone (the hand-back clock). */
    troubleSince: timestamp('trouble_since', { withTimezone: true }),
    drawer: text('drawer').$type<DrawerState>(),
    /** The robot's last reported place while carrying it (metres on its floor). */
    lastPlace: jsonb('last_place').$type<DeliveryPlace>(),
    /** How far escalation went: 0 none, 1 recipient, 2 sender, 3 admins (escalation.ts). */
    escalationLevel: integer('escalation_level').notNull().default(0),
    escalatedAt: timestamp('escalated_at', { withTimezone: true }),
    orderUpdateId: integer('order_update_id').notNull().default(0),
    createdAt: createdAt(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('deliveries_org_created').on(t.orgId, t.createdAt.desc(), t.id),
    // The dispatcher's queue: Queued deliveries of an organization, priority first, then age.
    index('deliveries_queue').on(t.orgId, t.createdAt).where(sql`status = 0`),
    index('deliveries_robot').on(t.robotId).where(sql`robot_id IS NOT NULL`),
  ],
);

export const deliveryItems = pgTable(
  'delivery_items',
  {
    deliveryId: uuid('delivery_id')
      .notNull()
      .references(() => deliveries.id, { onDelete: 'cascade' }),
    position: integer('position').notNull(),
    description: text('description').notNull(),
    category: text('category').$type<ItemCategory>().notNull(),
    quantity: integer('quantity').notNull(),
  },
  (t) => [primaryKey({ columns: [t.deliveryId, t.position] })],
);

/** The chain of custody: append-only (a trigger refuses updates, and inserts once the delivery is Delivered). */
export const deliveryCustody = pgTable(
  'delivery_custody',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    orgId: orgId(),
    deliveryId: uuid('delivery_id')
      .notNull()
      .references(() => deliveries.id, { onDelete: 'cascade' }),
    step: text('step').$type<CustodyStepKind>().notNull(),
    /** The robot's time for what the robot reported, else the server's. */
    at: timestamp('at', { withTimezone: true }).notNull(),
    recordedAt: timestamp('recorded_at', { withTimezone: true }).notNull().defaultNow(),
    userId: uuid('user_id'),
    userName: text('user_name'),
    robotId: uuid('robot_id'),
    robotName: text('robot_name'),
    place: jsonb('place').$type<DeliveryPlace>(),
    detail: text('detail'),
  },
  (t) => [index('delivery_custody_delivery').on(t.deliveryId, t.id)],
);

// ---------------------------------------------------------------- people

export const contacts = pgTable(
  'contacts',
  {
    id: id(),
    orgId: orgId(),
    title: text('title').notNull(),
    name: text('name').notNull(),
    phone: text('phone').notNull(),
    email: text('email').notNull(),
    createdAt: createdAt(),
  },
  (t) => [index('contacts_org').on(t.orgId, t.name)],
);

/** Push subscriptions of a device token to a topic (behaviour §7 notifications). */
export const deviceSubscriptions = pgTable(
  'device_subscriptions',
  {
    orgId: orgId(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    token: text('token').notNull(),
    topic: text('topic').notNull(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.token, t.topic] }), index('device_subscriptions_user').on(t.userId)],
);

// ---------------------------------------------------------------- live events

/**
 * The event log behind the live streams: a monotonically increasing id (the SSE event id) shared by
 * every server process, kept for a while so a client reconnecting with Last-Event-ID gets what it missed.
 */
export const events = pgTable(
  'events',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    orgId: text('org_id').notNull(),
    stream: text('stream').notNull(), // jobs | actions | robots
    key: text('key').notNull(), // the job id / robot id the event is about
    type: text('type').notNull(), // job_change | action_change | robot_update
    payload: jsonb('payload').notNull(),
    createdAt: createdAt(),
  },
  (t) => [index('events_stream').on(t.orgId, t.stream, t.id)],
);

/**
 * The replay horizon, one row: the highest event id pruned so far. Every event above it is still in the log, so
 * a Last-Event-ID at or above it replays exactly; one below it may have lost events to pruning (by age, not
 * by id) and gets a resync instead of a partial replay.
 */
export const eventHorizon = pgTable('event_horizon', {
  id: integer('id').primaryKey(), // always 1
  prunedThrough: bigint('pruned_through', { mode: 'number' }).notNull(),
  prunedAt: timestamp('pruned_at', { withTimezone: true }).notNull().defaultNow(),
});

// ---------------------------------------------------------------- push notifications

/** The server's VAPID key pair (RFC 8292), made once and shared by every process on the database. */
export const pushKeys = pgTable('push_keys', {
  id: text('id').primaryKey(), // 'vapid'
  publicKey: text('public_key').notNull(),
  privateKey: text('private_key').notNull(),
  createdAt: createdAt(),
});

/**
 * The outbox of pushes: one row per event that should reach people, written in the transaction that records
 * the event. The fan-out worker turns it into one delivery per device when it is due (escalations later).
 */
/** Who a delivery's push goes to (notifications/delivery-pushes.ts). */
export type DeliveryPushAudience = 'recipient' | 'sender' | 'admins' | 'sender_and_admins';

export const pushEvents = pgTable(
  'push_events',
  {
    id: id(),
    orgId: orgId(),
    kind: text('kind').notNull(), // PushEventKind of the contracts
    /** Makes an event once: `prompt:{action}`, `job_started:{job}`, … */
    dedupeKey: text('dedupe_key').notNull(),
    /** The robot the push is about; null for a delivery's push before any robot took it. */
    robotId: uuid('robot_id'),
    jobId: uuid('job_id'),
    actionId: uuid('action_id'),
    /** A delivery's push: about this delivery, to `audience` (its recipient, sender, the admins) instead of who sees the robot. */
    deliveryId: uuid('delivery_id').references(() => deliveries.id, { onDelete: 'cascade' }),
    audience: text('audience').$type<DeliveryPushAudience>(),
    facts: jsonb('facts').notNull(),
    dueAt: timestamp('due_at', { withTimezone: true }).notNull().defaultNow(),
    fannedOutAt: timestamp('fanned_out_at', { withTimezone: true }),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('push_events_dedupe').on(t.orgId, t.dedupeKey),
    index('push_events_due').on(t.dueAt).where(sql`fanned_out_at IS NULL`),
  ],
);

/** One push to one device: sent once, retried with backoff until it is sent, gone or too old. */
export const pushDeliveries = pgTable(
  'push_deliveries',
  {
    id: id(),
    pushEventId: uuid('push_event_id')
      .notNull()
      .references(() => pushEvents.id, { onDelete: 'cascade' }),
    orgId: orgId(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    token: text('token').notNull(),
    message: jsonb('message').notNull(),
    status: text('status').notNull().default('pending'), // pending | sending | sent | gone | failed
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true }).notNull().defaultNow(),
    leaseUntil: timestamp('lease_until', { withTimezone: true }),
    lastError: text('last_error'),
    sentAt: timestamp('sent_at', { withTimezone: true }),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('push_deliveries_once').on(t.pushEventId, t.token),
    index('push_deliveries_due').on(t.nextAttemptAt).where(sql`status IN ('pending', 'sending')`),
  ],
);

/**
 * An organization's webhooks (webhooks/README.md): a URL that receives the events it subscribed to, signed with
 * its own Standard Webhooks secret (`whsec_…`, kept to sign; shown to the admin once, at creation).
 */
export const webhooks = pgTable(
  'webhooks',
  {
    id: id(),
    orgId: orgId(),
    url: text('url').notNull(),
    secret: text('secret').notNull(),
    events: text('events').array().$type<WebhookEventType[]>().notNull(),
    enabled: boolean('enabled').notNull().default(true),
    description: text('description').notNull().default(''),
    createdAt: createdAt(),
  },
  (t) => [index('webhooks_org').on(t.orgId, t.createdAt)],
);

/**
 * The outbox of webhook deliveries: one row per event and webhook, written in the transaction that records the
 * event, sent after commit and retried until a 2xx or the give-up time. The row id is the `webhook-id` header, the
 * same on every retry, so a receiver can drop a second copy.
 */
export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    id: id(),
    orgId: orgId(),
    webhookId: uuid('webhook_id')
      .notNull()
      .references(() => webhooks.id, { onDelete: 'cascade' }),
    eventType: text('event_type').$type<WebhookEventType>().notNull(),
    /** Makes an event once per webhook: `log.created:{job}`, `delivery.delivered:{delivery}`, `test:{uuid}`. */
    dedupeKey: text('dedupe_key').notNull(),
    /** The body as sent (contracts WebhookPayload). */
    payload: jsonb('payload').notNull(),
    /** A test event of POST /webhooks/:id/test: sent even while the webhook is disabled. */
    test: boolean('test').notNull().default(false),
    status: text('status').$type<'pending' | 'sending' | 'sent' | 'failed'>().notNull().default('pending'),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true }).notNull().defaultNow(),
    leaseUntil: timestamp('lease_until', { withTimezone: true }),
    lastAttemptAt: timestamp('last_attempt_at', { withTimezone: true }),
    /** The receiver's last answer; null when it gave none (network error, timeout). */
    lastHttpStatus: integer('last_http_status'),
    lastError: text('last_error'),
    sentAt: timestamp('sent_at', { withTimezone: true }),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('webhook_deliveries_once').on(t.webhookId, t.dedupeKey),
    index('webhook_deliveries_due').on(t.nextAttemptAt).where(sql`status IN ('pending', 'sending')`),
    index('webhook_deliveries_last').on(t.webhookId, t.lastAttemptAt),
  ],
);

// ---------------------------------------------------------------- mail

/**
 * The outbox of mails (mail/README.md): written in the transaction that decides a mail, sent after commit by the
 * mail worker, retried until the SMTP server accepts it or MAIL_GIVE_UP_SECONDS pass. Its text is blanked once
 * sent or given up (a reset link must not outlive its sending here).
 */
export const mailOutbox = pgTable(
  'mail_outbox',
  {
    id: id(),
    orgId: text('org_id').references(() => organizations.id, { onDelete: 'cascade' }),
    to: text('to').notNull(),
    subject: text('subject').notNull(),
    text: text('text').notNull(),
    status: text('status').$type<'pending' | 'sending' | 'sent' | 'failed'>().notNull().default('pending'),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true }).notNull().defaultNow(),
    leaseUntil: timestamp('lease_until', { withTimezone: true }),
    lastError: text('last_error'),
    sentAt: timestamp('sent_at', { withTimezone: true }),
    createdAt: createdAt(),
  },
  (t) => [index('mail_outbox_due').on(t.nextAttemptAt).where(sql`status IN ('pending', 'sending')`)],
);

// ---------------------------------------------------------------- audit trail

/**
 * The audit trail (audit/README.md): one row per change of an audited table, written by triggers in the transaction
 * that makes the change (drizzle/handwritten/audit.sql), chained per organization after commit by the chainer
 * (`seq`, `prev_hash`, `hash`). Append-only: a trigger refuses deleting a row and changing one, except chaining it
 * once. No foreign key to the organization: its removal must not take the record with it.
 */
export const auditEntries = pgTable(
  'audit_entries',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    orgId: text('org_id').notNull(),
    /** Position in the organization's chain from 1; null until the chainer reaches it. */
    seq: bigint('seq', { mode: 'number' }),
    /** Milliseconds: the hash covers the time as JavaScript reads it, so nothing finer may be stored. */
    at: timestamp('at', { withTimezone: true, precision: 3 }).notNull(),
    source: text('source').$type<AuditSource>().notNull(),
    actor: text('actor'),
    actorId: uuid('actor_id'),
    ip: text('ip'),
    request: text('request'),
    entity: text('entity').notNull(),
    entityId: text('entity_id'),
    operation: text('operation').$type<AuditOperation>().notNull(),
    before: jsonb('before').$type<Record<string, unknown>>(),
    after: jsonb('after').$type<Record<string, unknown>>(),
    prevHash: text('prev_hash'),
    hash: text('hash'),
  },
  (t) => [
    uniqueIndex('audit_entries_org_seq').on(t.orgId, t.seq),
    index('audit_entries_org_at').on(t.orgId, t.at.desc(), t.id.desc()),
    // The chainer's queue: entries not chained yet.
    index('audit_entries_unchained').on(t.orgId, t.id).where(sql`hash IS NULL`),
  ],
);
