/**
 * VDA 5050 v2.0 messages (https://github.com/VDA5050/VDA5050, MIT), validated on every inbound message.
 * Topics: uagv/v2/{manufacturer}/{serialNumber}/{order|instantActions|state|connection|factsheet}.
 * Unknown extra fields are allowed (robots may send newer minor versions); required fields are enforced.
 */
import { z } from 'zod';
import { RobotMode } from './robots.ts';

export const VDA_INTERFACE = 'uagv';
export const VDA_MAJOR = 'v2';
export const VDA_VERSION = '2.0.0';

export const vdaTopic = (manufacturer: string, serialNumber: string, topic: VdaTopicName) =>
  `${VDA_INTERFACE}/${VDA_MAJOR}/${manufacturer}/${serialNumber}/${topic}`;
export const VdaTopicName = z.enum(['order', 'instantActions', 'state', 'connection', 'factsheet', 'visualization']);
export type VdaTopicName = z.infer<typeof VdaTopicName>;

export const VdaHeader = z.object({
  headerId: z.number().int().min(0),
  timestamp: z.string(),
  version: z.string(),
  manufacturer: z.string(),
  serialNumber: z.string(),
});

export const ActionParameter = z.object({
  key: z.string(),
  value: z.union([z.string(), z.number(), z.boolean(), z.array(z.unknown()), z.record(z.string(), z.unknown())]),
});
export type ActionParameter = z.infer<typeof ActionParameter>;

export const BlockingType = z.enum(['NONE', 'SOFT', 'HARD']);

export const VdaAction = z.object({
  actionType: z.string(),
  actionId: z.string(),
  actionDescription: z.string().optional(),
  blockingType: BlockingType,
  actionParameters: z.array(ActionParameter).optional(),
});
export type VdaAction = z.infer<typeof VdaAction>;

export const NodePosition = z.object({
  x: z.number(),
  y: z.number(),
  theta: z.number().optional(),
  allowedDeviationXY: z.number().optional(),
  allowedDeviationTheta: z.number().optional(),
  mapId: z.string(),
  mapDescription: z.string().optional(),
});

export const OrderNode = z.object({
  nodeId: z.string(),
  sequenceId: z.number().int().min(0),
  nodeDescription: z.string().optional(),
  released: z.boolean(),
  nodePosition: NodePosition.optional(),
  actions: z.array(VdaAction),
});
export type OrderNode = z.infer<typeof OrderNode>;

export const OrderEdge = z.object({
  edgeId: z.string(),
  sequenceId: z.number().int().min(0),
  edgeDescription: z.string().optional(),
  released: z.boolean(),
  startNodeId: z.string(),
  endNodeId: z.string(),
  maxSpeed: z.number().optional(),
  actions: z.array(VdaAction),
});
export type OrderEdge = z.infer<typeof OrderEdge>;

export const OrderMessage = VdaHeader.extend({
  orderId: z.string(),
  orderUpdateId: z.number().int().min(0),
  zoneSetId: z.string().optional(),
  nodes: z.array(OrderNode),
  edges: z.array(OrderEdge),
});
export type OrderMessage = z.infer<typeof OrderMessage>;

export const InstantActionsMessage = VdaHeader.extend({
  actions: z.array(VdaAction),
});
export type InstantActionsMessage = z.infer<typeof InstantActionsMessage>;

export const ActionStatus = z.enum(['WAITING', 'INITIALIZING', 'RUNNING', 'PAUSED', 'FINISHED', 'FAILED']);
export type ActionStatus = z.infer<typeof ActionStatus>;

export const ActionState = z.object({
  actionId: z.string(),
  actionType: z.string().optional(),
  actionDescription: z.string().optional(),
  actionStatus: ActionStatus,
  resultDescription: z.string().optional(),
});
export type ActionState = z.infer<typeof ActionState>;

export const AgvPosition = z.object({
  x: z.number(),
  y: z.number(),
  theta: z.number(),
  mapId: z.string(),
  mapDescription: z.string().optional(),
  positionInitialized: z.boolean(),
  localizationScore: z.number().optional(),
  deviationRange: z.number().optional(),
});

export const BatteryState = z.object({
  batteryCharge: z.number().min(0).max(100),
  batteryVoltage: z.number().optional(),
  batteryHealth: z.number().optional(),
  charging: z.boolean(),
  reach: z.number().optional(),
});

export const OperatingMode = z.enum(['AUTOMATIC', 'SEMIAUTOMATIC', 'MANUAL', 'SERVICE', 'TEACHIN']);
export type OperatingMode = z.infer<typeof OperatingMode>;

export const VdaError = z.object({
  errorType: z.string(),
  errorLevel: z.enum(['WARNING', 'FATAL']),
  errorDescription: z.string().optional(),
  errorReferences: z.array(z.object({ referenceKey: z.string(), referenceValue: z.string() })).optional(),
});

export const InfoReference = z.object({ referenceKey: z.string(), referenceValue: z.string() });
export const VdaInformation = z.object({
  infoType: z.string(),
  infoLevel: z.enum(['INFO', 'DEBUG']),
  infoDescription: z.string().optional(),
  infoReferences: z.array(InfoReference).optional(),
});
export type VdaInformation = z.infer<typeof VdaInformation>;

export const StateMessage = VdaHeader.extend({
  orderId: z.string(),
  orderUpdateId: z.number().int().min(0),
  zoneSetId: z.string().optional(),
  lastNodeId: z.string(),
  lastNodeSequenceId: z.number().int().min(0),
  nodeStates: z.array(z.object({ nodeId: z.string(), sequenceId: z.number().int(), released: z.boolean() }).loose()),
  edgeStates: z.array(z.object({ edgeId: z.string(), sequenceId: z.number().int(), released: z.boolean() }).loose()),
  agvPosition: AgvPosition.optional(),
  velocity: z.object({ vx: z.number().optional(), vy: z.number().optional(), omega: z.number().optional() }).optional(),
  driving: z.boolean(),
  paused: z.boolean().optional(),
  newBaseRequest: z.boolean().optional(),
  distanceSinceLastNode: z.number().optional(),
  actionStates: z.array(ActionState),
  batteryState: BatteryState,
  operatingMode: OperatingMode,
  errors: z.array(VdaError),
  information: z.array(VdaInformation).optional(),
  safetyState: z.object({ eStop: z.string(), fieldViolation: z.boolean() }),
});
export type StateMessage = z.infer<typeof StateMessage>;

export const ConnectionState = z.enum(['ONLINE', 'OFFLINE', 'CONNECTIONBROKEN']);
export type ConnectionState = z.infer<typeof ConnectionState>;
export const ConnectionMessage = VdaHeader.extend({ connectionState: ConnectionState });
export type ConnectionMessage = z.infer<typeof ConnectionMessage>;

export const FactsheetMessage = VdaHeader.extend({}).loose();
export type FactsheetMessage = z.infer<typeof FactsheetMessage>;

// ---------------------------------------------------------------- our documented custom conventions

/** Custom action and information types of this product (prefixed `uvd_`, as VDA 5050 allows). */
export const UvdActionType = {
  /** On a room's node: disinfect. Parameters: room_id, dose (J/m²), ready (boolean: room ready for disinfection). */
  disinfect: 'uvd_disinfect',
  /** Instant: drive to the dock. */
  goHome: 'uvd_go_home',
  /** Instant: measures round-trip time; the robot reports it FINISHED in its next state. Parameter sent_at. */
  ping: 'uvd_ping',
  /** Instant: the operator's answer to a prompt. Parameters: prompt_id, confirm (boolean). */
  operatorDecision: 'uvd_operator_decision',
  /**
   * Instant: a room of the running order was set not ready. Parameters: room_id, action_id (the room's
   * uvd_disinfect actionId). A lamp on for that action goes off at once and the robot asks `wait_to_enter`,
   * keeping the dose still to give; a room not started yet is asked for first when the robot gets to it.
   */
  roomNotReady: 'uvd_room_not_ready',
  /**
   * Instant, to a delivery robot waiting in its `pick` (RUNNING at the pickup, drawer open): the sender confirmed
   * loading in the console. Parameters: delivery_id, action_id (the pick's actionId). The robot closes its drawer and
   * finishes the pick. Loading confirmed at the robot itself just finishes the pick.
   */
  loadingConfirmed: 'uvd_loading_confirmed',
  /**
   * Instant, to a delivery robot waiting in its `drop` (RUNNING at the drop-off, drawer locked): the PIN was right.
   * Parameters: delivery_id, action_id (the drop's actionId), and pin_attempt_id when it answers a PIN entered at
   * the robot. The robot unlocks its drawer, and finishes the drop once the drawer is closed again.
   */
  handoffConfirmed: 'uvd_handoff_confirmed',
  /**
   * Instant: a PIN entered at the robot was wrong. Parameters: delivery_id, pin_attempt_id, attempts_left, locked
   * (boolean: no more attempts; the drawer stays locked until the delivery is cancelled).
   */
  handoffRefused: 'uvd_handoff_refused',
} as const;

/**
 * VDA 5050 2.0's predefined load actions a delivery order carries (§6.8): `pick` on the pickup node, `drop` on the
 * drop-off node, both HARD. Parameters: stationType 'room', stationName (the room id), loadType 'drawer', loadId
 * (the delivery id). A delivery's orderId is the delivery id.
 */
export const VdaLoadAction = {
  pick: 'pick',
  drop: 'drop',
} as const;

/** Information entry of a delivery robot in every state: its drawer, reference `state` open or closed. */
export const UVD_DRAWER_INFO_TYPE = 'uvd_drawer';

/**
 * Information entry of a delivery robot whose user entered a hand-off PIN on its screen, repeated in every state
 * until the server answers with uvd_handoff_confirmed or uvd_handoff_refused: references pin_attempt_id (unique per
 * entry), action_id (the drop's actionId) and pin.
 */
export const UVD_HANDOFF_PIN_INFO_TYPE = 'uvd_handoff_pin';

/**
 * Error a delivery robot reports (errorLevel WARNING) while it cannot go on along its path (a blocked corridor, a
 * lift out of order); it clears the error when the way is free. A FATAL error means it cannot carry on at all.
 */
export const UVD_PATH_BLOCKED_ERROR = 'uvd_path_blocked';

/** What a robot is for (defined beside the Robot in robots.ts, which this module imports). */
export { RobotKind } from './robots.ts';

/** VDA 5050 standard instant actions we use: pause, resume and stop (cancel the order). */
export const VdaInstantAction = {
  pause: 'startPause',
  resume: 'stopPause',
  cancel: 'cancelOrder',
} as const;

/**
 * A robot's question to the operator travels as an information entry of this type with references
 * prompt_id, button (one of behaviour §3's action button texts) and room_id.
 */
export const UVD_PROMPT_INFO_TYPE = 'uvd_operator_prompt';

/**
 * Information entry a robot reports in every state, for each room of its last order that has received UV-C or
 * ended: references `action_id` (the room's uvd_disinfect actionId), `dose` (J/m² given so far, 0 for none),
 * `started_at` (the robot's time the lamp first went on there; absent if it never did) and, once the room's
 * uvd_disinfect finished or failed, `ended_at` (ISO 8601, the robot's clock). A room interrupted keeps the dose it received; times survive a network
 * gap, since the robot reports them rather than the server's arrival time.
 */
export const UVD_DOSE_INFO_TYPE = 'uvd_dose_delivered';

/** resultDescription of a FAILED uvd_disinfect action: why the room was not disinfected. */
export const DisinfectFailure = z.enum(['not_ready', 'not_reached', 'aborted']);
export type DisinfectFailure = z.infer<typeof DisinfectFailure>;

/** Behaviour §3 robot modes from VDA 5050 operating modes; offline comes from the connection topic. */
export const modeFromOperatingMode = (mode: OperatingMode): RobotMode =>
  ({
    AUTOMATIC: RobotMode.autonomous,
    SEMIAUTOMATIC: RobotMode.semiAutonomous,
    MANUAL: RobotMode.manual,
    TEACHIN: RobotMode.manual,
    SERVICE: RobotMode.maintenance,
  })[mode];
