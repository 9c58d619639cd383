/**
 * The one reader of VDA 5050 state: what an accepted state message says, as typed events of this server. The
 * gateway reads each accepted state once (`readState`) and uses the robot fields for the robots row and the
 * robot_update events; job execution (job-runner.ts) consumes the rest (room results, the order's pause and
 * cancel, the position, operator prompts, the battery) and never looks at the raw message.
 */
import {
  ActionButtonText,
  DisinfectFailure,
  Id,
  modeFromOperatingMode,
  UVD_DOSE_INFO_TYPE,
  UVD_DRAWER_INFO_TYPE,
  UVD_HANDOFF_PIN_INFO_TYPE,
  UVD_PATH_BLOCKED_ERROR,
  UVD_PROMPT_INFO_TYPE,
  UvdActionType,
  DrawerState,
  type ActionState,
  type JobRoomState,
  type ActionStatus,
  type RobotMode,
  type RobotStatus,
  type StateMessage,
} from '@uvd/contracts';
import type { FleetRobot } from './fleet.ts';
import { parseLoadActionId } from './deliveries/commands.ts';
import { isCancelActionOf, parseDisinfectActionId } from './order.ts';
import type { RobotError } from './robot-fields.ts';
import type { Pose } from '../db/schema.ts';

/** The robot fields of behaviour §3 a state reports (floor, signal and connection are the gateway's to resolve). */
export interface ReportedFields {
  battery: number;
  chargingStatus: 0 | 1;
  mode: RobotMode;
  status: RobotStatus;
  pose: Pose | null;
  errors: RobotError[];
}

/**
 * What a room's `uvd_disinfect` action says: `waiting` (not started), `active` (initializing, running or paused),
 * or a result. A failure names its reason in resultDescription; one without a known reason is `not_reached`,
 * or `aborted` once the job's cancel finished.
 */
export type RoomReport = Exclude<JobRoomState, 'pending'> | 'waiting';

/** An operator prompt: an information entry of type uvd_operator_prompt, present in every state while open. */
export interface Prompt {
  promptId: string;
  button: ActionButtonText;
  roomId: string | undefined;
}

/** UV-C a room received, as the robot reports it (UVD_DOSE_INFO_TYPE); times are the robot's, ms since epoch. */
export interface RoomDose {
  /** J/m² given so far. */
  dose: number;
  startedAt: number | undefined;
  /** The room's lamp went off for good then. */
  endedAt: number | undefined;
}

/** What a state says of the order it reports (for our jobs, orderId is the job id). */
export interface OrderReport {
  /** The reported orderId; '' when the robot has none. */
  orderId: string;
  /** The job the order is, when orderId is one of ours (an id); undefined otherwise. */
  jobId: string | undefined;
  paused: boolean;
  /** A cancelOrder this server sent for the job finished: the rooms not finished were aborted. */
  cancelled: boolean;
  /** The order's rooms the state reports, by order_no (a room the state does not mention is absent). */
  rooms: ReadonlyMap<number, RoomReport>;
  /** The order's rooms that received UV-C, by order_no. */
  doses: ReadonlyMap<number, RoomDose>;
  /**
   * The rooms whose lamp the state shows on (by order_no): their uvd_disinfect RUNNING, the robot not paused and
   * the order not cancelled. A PAUSED action (the robot paused, the room set not ready) has its lamp off.
   */
  lit: ReadonlySet<number>;
  /** Where the robot is, when its mapId names a floor id. */
  position: { x: number; y: number; floorId: string } | undefined;
}

/**
 * What the robot has to do, as far as a command's sense goes: a pause needs work, a stop something to stop, and
 * home a robot not docked already.
 */
export interface RobotWork {
  /** An order not finished: nodes or edges left, or one of its rooms' actions not final. */
  order: boolean;
  /** A uvd_go_home runs. */
  goingHome: boolean;
  paused: boolean;
  /** Docked at its charger. */
  charging: boolean;
}

/** A delivery robot's `pick` or `drop` of the reported order, as the state reports it. */
export interface LoadActionReport {
  /** The dispatch its actionId names (deliveries.dispatch_attempts). */
  attempt: number;
  status: ActionStatus;
  resultDescription: string | undefined;
}

/** A PIN typed on a delivery robot's screen, reported until the server answers it. */
export interface PinReport {
  pinAttemptId: string;
  /** The drop's actionId the PIN is for. */
  actionId: string;
  pin: string;
}

/**
 * What a delivery robot's state says of its delivery (deliveries/README.md): the order's pick and drop, the
 * drawer, a blocked way, a FATAL error, PINs entered at the robot, and the node it reached last.
 */
export interface DeliveryReport {
  /** The delivery the order is, when orderId is one of ours (an id); the same as `order.jobId`. */
  deliveryId: string | undefined;
  pick: LoadActionReport | undefined;
  drop: LoadActionReport | undefined;
  drawer: DrawerState | undefined;
  /** The robot reports uvd_path_blocked. */
  pathBlocked: boolean;
  /** The errorType of a FATAL error, if any. */
  fatal: string | undefined;
  pins: PinReport[];
  lastNodeId: string;
}

/**
 * The robot's errors that are faults of a job it runs (FATAL or WARNING), by errorType, sorted: what the job runner
 * records as the job's `fault` events when one appears.
 */
export function faultsOf(errors: readonly RobotError[]): string[] {
  return [...new Set(errors.filter((error) => error.errorLevel === 'FATAL' || error.errorLevel === 'WARNING').map((error) => error.errorType))].sort();
}

/** One accepted state, read. */
export interface StateEvent {
  robot: FleetRobot;
  headerId: number;
  /** Arrival at the gateway, ms since epoch. */
  receivedAt: number;
  /**
   * The robot's time of the state (its header timestamp), ms since epoch: what job times are recorded in, so a
   * state that arrives late (a network gap) still dates what happened when it happened.
   */
  robotTime: number;
  /**
   * When execution fell behind and this event replaced waiting ones that said the same (`supersedes`): the robot's
   * time of the earliest of them, i.e. when what this event says began (a lamp switched on, a pause). Absent otherwise.
   */
  since?: number;
  fields: ReportedFields;
  /** The battery as reported (not rounded), for thresholds. */
  battery: { charge: number; charging: boolean };
  order: OrderReport;
  work: RobotWork;
  prompts: Prompt[];
  delivery: DeliveryReport;
}

/** A disinfection is running when one of our uvd_disinfect actions runs (actionType is optional in actionStates). */
const isDisinfecting = (state: StateMessage) =>
  state.actionStates.some(
    (action) =>
      action.actionStatus === 'RUNNING' &&
      (action.actionType === UvdActionType.disinfect || parseDisinfectActionId(action.actionId) !== undefined),
  );

/**
 * A robot standing at a door for an answer, or still on an order between its steps, is not idle: the console
 * would otherwise call a robot with a job under way free.
 */
export function statusOf(state: StateMessage): RobotStatus {
  if (state.errors.some((error) => error.errorLevel === 'FATAL')) return 'error';
  if (state.paused) return 'paused';
  if (isDisinfecting(state)) return 'disinfecting';
  if (promptsOf(state).length > 0) return 'waiting';
  if (state.driving) return 'driving';
  if (state.nodeStates.length > 0 || state.edgeStates.length > 0) return 'on_order';
  if (state.batteryState.charging) return 'charging';
  return 'idle';
}

/** The robot fields a state reports (the robot is online: it speaks). */
export function fieldsOf(state: StateMessage): ReportedFields {
  const position = state.agvPosition;
  return {
    battery: Math.round(state.batteryState.batteryCharge * 10) / 10,
    chargingStatus: state.batteryState.charging ? 1 : 0,
    mode: modeFromOperatingMode(state.operatingMode),
    status: statusOf(state),
    pose: position ? { x: position.x, y: position.y, theta: position.theta } : null,
    errors: state.errors.map((error) => ({
      errorType: error.errorType,
      errorLevel: error.errorLevel,
      ...(error.errorDescription === undefined ? {} : { errorDescription: error.errorDescription }),
    })),
  };
}

function roomReport(action: ActionState, cancelled: boolean): RoomReport {
  switch (action.actionStatus) {
    case 'FINISHED':
      return 'done';
    case 'FAILED':
      return DisinfectFailure.safeParse(action.resultDescription).data ?? (cancelled ? 'aborted' : 'not_reached');
    case 'INITIALIZING':
    case 'RUNNING':
    case 'PAUSED':
      return 'active';
    case 'WAITING':
      return 'waiting';
  }
}

/** What the state says of the order it reports. */
export function orderOf(state: StateMessage): OrderReport {
  const jobId = Id.safeParse(state.orderId).success ? state.orderId : undefined;
  const cancelled =
    jobId !== undefined &&
    state.actionStates.some((action) => action.actionStatus === 'FINISHED' && isCancelActionOf(jobId, action.actionId));
  const rooms = new Map<number, RoomReport>();
  const lit = new Set<number>();
  if (jobId !== undefined) {
    for (const action of state.actionStates) {
      const parsed = parseDisinfectActionId(action.actionId);
      if (parsed?.jobId !== jobId) continue;
      rooms.set(parsed.orderNo, roomReport(action, cancelled));
      if (action.actionStatus === 'RUNNING' && state.paused !== true && !cancelled) lit.add(parsed.orderNo);
    }
  }
  const position = state.agvPosition;
  return {
    orderId: state.orderId,
    jobId,
    paused: state.paused === true,
    cancelled,
    rooms,
    doses: jobId === undefined ? new Map() : dosesOf(state, jobId),
    lit,
    position: position && Id.safeParse(position.mapId).success ? { x: position.x, y: position.y, floorId: position.mapId } : undefined,
  };
}

const instant = (value: string | undefined): number | undefined => {
  const ms = value === undefined ? Number.NaN : Date.parse(value);
  return Number.isFinite(ms) ? ms : undefined;
};

/** The doses the state reports for the rooms of job `jobId`; malformed entries are skipped. */
function dosesOf(state: StateMessage, jobId: string): Map<number, RoomDose> {
  const doses = new Map<number, RoomDose>();
  for (const info of state.information ?? []) {
    if (info.infoType !== UVD_DOSE_INFO_TYPE) continue;
    const ref = (key: string) => info.infoReferences?.find((reference) => reference.referenceKey === key)?.referenceValue;
    const room = parseDisinfectActionId(ref('action_id') ?? '');
    const dose = Number(ref('dose'));
    if (room?.jobId !== jobId || !Number.isFinite(dose) || dose < 0) continue;
    doses.set(room.orderNo, { dose, startedAt: instant(ref('started_at')), endedAt: instant(ref('ended_at')) });
  }
  return doses;
}

const runs = (action: ActionState) => action.actionStatus !== 'FINISHED' && action.actionStatus !== 'FAILED';

export function workOf(state: StateMessage): RobotWork {
  return {
    order:
      state.nodeStates.length > 0 ||
      state.edgeStates.length > 0 ||
      state.actionStates.some(
        (action) => runs(action) && (action.actionType === UvdActionType.disinfect || parseDisinfectActionId(action.actionId) !== undefined),
      ),
    goingHome: state.actionStates.some((action) => runs(action) && action.actionType === UvdActionType.goHome),
    paused: state.paused === true,
    charging: state.batteryState.charging,
  };
}

/** The operator prompts a state carries; malformed ones are skipped. */
export function promptsOf(state: StateMessage): Prompt[] {
  const prompts: Prompt[] = [];
  for (const info of state.information ?? []) {
    if (info.infoType !== UVD_PROMPT_INFO_TYPE) continue;
    const ref = (key: string) => info.infoReferences?.find((reference) => reference.referenceKey === key)?.referenceValue;
    const promptId = ref('prompt_id');
    const button = ActionButtonText.safeParse(ref('button') ?? info.infoDescription).data;
    if (!promptId || !button) continue;
    prompts.push({ promptId, button, roomId: ref('room_id') });
  }
  return prompts;
}

/** What a delivery robot's state says of its delivery; malformed entries are skipped. */
export function deliveryOf(state: StateMessage): DeliveryReport {
  const deliveryId = Id.safeParse(state.orderId).success ? state.orderId : undefined;
  const load = (kind: 'pick' | 'drop'): LoadActionReport | undefined => {
    let found: LoadActionReport | undefined;
    for (const action of state.actionStates) {
      const parsed = parseLoadActionId(action.actionId);
      if (parsed?.kind !== kind || parsed.deliveryId !== deliveryId || (found && found.attempt > parsed.attempt)) continue;
      found = { attempt: parsed.attempt, status: action.actionStatus, resultDescription: action.resultDescription };
    }
    return found;
  };
  let drawer: DrawerState | undefined;
  const pins: PinReport[] = [];
  for (const info of state.information ?? []) {
    const ref = (key: string) => info.infoReferences?.find((reference) => reference.referenceKey === key)?.referenceValue;
    if (info.infoType === UVD_DRAWER_INFO_TYPE) drawer = DrawerState.safeParse(ref('state')).data ?? drawer;
    if (info.infoType !== UVD_HANDOFF_PIN_INFO_TYPE) continue;
    const pinAttemptId = ref('pin_attempt_id');
    const actionId = ref('action_id');
    const pin = ref('pin');
    if (pinAttemptId && actionId && pin !== undefined) pins.push({ pinAttemptId, actionId, pin });
  }
  return {
    deliveryId,
    pick: deliveryId === undefined ? undefined : load('pick'),
    drop: deliveryId === undefined ? undefined : load('drop'),
    drawer,
    pathBlocked: state.errors.some((error) => error.errorType === UVD_PATH_BLOCKED_ERROR),
    fatal: state.errors.find((error) => error.errorLevel === 'FATAL')?.errorType,
    pins,
    lastNodeId: state.lastNodeId,
  };
}

/** Reads one accepted state of `robot`. */
export function readState(robot: FleetRobot, state: StateMessage, receivedAt = Date.now()): StateEvent {
  return {
    robot,
    headerId: state.headerId,
    receivedAt,
    // The header's timestamp is schema-checked ISO 8601; a robot without a clock would still send one.
    robotTime: instant(state.timestamp) ?? receivedAt,
    fields: fieldsOf(state),
    battery: { charge: state.batteryState.batteryCharge, charging: state.batteryState.charging },
    order: orderOf(state),
    work: workOf(state),
    prompts: promptsOf(state),
    delivery: deliveryOf(state),
  };
}

const sameRooms = (a: ReadonlyMap<number, RoomReport>, b: ReadonlyMap<number, RoomReport>) =>
  a.size === b.size && [...a].every(([orderNo, report]) => b.get(orderNo) === report);

const sameSet = (a: ReadonlySet<number>, b: ReadonlySet<number>) => a.size === b.size && [...a].every((value) => b.has(value));

const sameFaults = (a: StateEvent, b: StateEvent) => faultsOf(a.fields.errors).join('\n') === faultsOf(b.fields.errors).join('\n');

const samePrompts = (a: readonly Prompt[], b: readonly Prompt[]) =>
  a.length === b.length && a.every((prompt, index) => prompt.promptId === b[index]?.promptId);

/**
 * Whether `later` may stand for `earlier` in job execution when execution falls behind: same order, same room
 * reports, lamps, pause, cancel, prompts and faults, the battery on the same side of `lowBattery`. What differs
 * (the position, the battery within its side) only matters as the latest value, so every room result, lamp
 * switched on or off, prompt, fault and threshold crossing is still seen.
 */
export function supersedes(later: StateEvent, earlier: StateEvent, lowBattery: number): boolean {
  return (
    later.robot.robotId === earlier.robot.robotId &&
    later.order.orderId === earlier.order.orderId &&
    later.order.paused === earlier.order.paused &&
    later.order.cancelled === earlier.order.cancelled &&
    sameRooms(later.order.rooms, earlier.order.rooms) &&
    sameSet(later.order.lit, earlier.order.lit) &&
    samePrompts(later.prompts, earlier.prompts) &&
    sameFaults(later, earlier) &&
    later.battery.charge < lowBattery === earlier.battery.charge < lowBattery
  );
}
