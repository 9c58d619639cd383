/**
 * One simulated robot without any I/O: orders, instant actions and the passing of simulated time go in, a VDA 5050
 * v2 state comes out. `SimRobot` wires it to MQTT and to the clock; tests may drive it directly. A robot is of a
 * kind: a UV-C disinfection robot runs `uvd_disinfect` at its nodes; a delivery robot runs `pick` (drawer open until
 * loading is confirmed) and `drop` (drawer locked until the hand-off is confirmed), reports its drawer, PINs entered
 * on its screen, and a blocked way (deliveries/README.md of the server).
 */
import { randomUUID } from 'node:crypto';
import type {
  ActionState,
  ActionStatus,
  DisinfectFailure,
  InstantActionsMessage,
  OperatingMode,
  OrderEdge,
  OrderMessage,
  OrderNode,
  StateMessage,
  VdaAction,
  VdaInformation,
} from '@uvd/contracts';
import {
  UVD_DOSE_INFO_TYPE,
  UVD_DRAWER_INFO_TYPE,
  UVD_HANDOFF_PIN_INFO_TYPE,
  UVD_PATH_BLOCKED_ERROR,
  UVD_PROMPT_INFO_TYPE,
  UvdActionType,
  VdaInstantAction,
  VdaLoadAction,
} from '@uvd/contracts';

/** What a robot is for (RobotKind of the contracts). */
export type SimRobotKind = 'disinfection' | 'delivery';
export type DrawerState = 'open' | 'closed';

/** A PIN entered on a delivery robot's screen, and the server's answer once it came. */
export interface PinEntry {
  pinAttemptId: string;
  /** The drop's actionId. */
  actionId: string;
  pin: string;
  answer: { accepted: true } | { accepted: false; attemptsLeft: number; locked: boolean } | null;
}

export interface Pose {
  x: number;
  y: number;
  theta: number;
}

/** Battery change in percent per simulated second, by what the robot is doing. */
export interface BatteryRates {
  driving: number;
  disinfecting: number;
  idle: number;
  charging: number;
}

export interface RobotModelOptions {
  /** disinfection (default) or delivery. */
  kind?: SimRobotKind;
  /** A delivery robot's drawer stays open this many seconds after the hand-off before it closes and the drop finishes (default 5). */
  drawerOpenSeconds?: number;
  /** The floor (VDA mapId) of the robot's home. */
  mapId: string;
  home: Pose;
  /** Where the robot starts; its home by default. */
  pose?: Pose;
  /** Battery charge in percent at start (default 100). */
  battery?: number;
  operatingMode?: OperatingMode;
  /** Driving speed in m/s (default 0.5). */
  speed?: number;
  /** UV-C irradiance at the room's surfaces in W/m²: a dose of D J/m² takes D / irradiance seconds (default 0.5). */
  irradiance?: number;
  /** Below this charge (percent) the robot finishes the current room and goes home to charge (default 20). */
  lowBatteryThreshold?: number;
  batteryRates?: Partial<BatteryRates>;
  /** Probability that a room's node cannot be reached (default 0). */
  faultRate?: number;
  /** Node ids, or room ids of a node's uvd_disinfect action, that can never be reached: deterministic faults for tests. */
  unreachableNodes?: Iterable<string>;
  /** Seconds an elevator ride takes when the next node lies on another floor (default 20). */
  elevatorSeconds?: number;
  random?: () => number;
  /** The robot's clock (ms since epoch) for the times it reports; Date.now by default. */
  now?: () => number;
}

/** UV-C a room of the order received, as the robot reports it (UVD_DOSE_INFO_TYPE). */
interface RoomDose {
  /** J/m² given so far. */
  dose: number;
  /** Unset for a room whose lamp never went on (skipped, not reached, aborted before). */
  startedAt?: string;
  /** Set once the room's lamp is off for good (its action finished or failed). */
  endedAt?: string;
}

/** Why a uvd_disinfect action failed (DisinfectFailure in the contracts) or why an instant action was refused. */
type FailureReason = DisinfectFailure | 'no_order' | 'unknown_prompt' | 'unknown_action' | 'unsupported' | 'not_waiting';

interface ActiveOrder {
  orderId: string;
  orderUpdateId: number;
  nodes: OrderNode[];
  edges: OrderEdge[];
  /** Index in `nodes` of the next node to drive to. */
  nextIndex: number;
  /** Actions of the node just reached that have not started yet. */
  nodeActions: VdaAction[];
  /** The last node of this order the robot reached; undefined until it reaches the first. */
  reached: { nodeId: string; sequenceId: number } | undefined;
  /** Every node (`nodeId@sequenceId`) this order and its updates held: where an update may be stitched. */
  known: Set<string>;
}

type Activity =
  | { kind: 'idle' }
  | {
      kind: 'driving';
      to: { x: number; y: number; mapId: string };
      /** Seconds still to wait in an elevator before the robot appears on the target's floor. */
      elevatorSeconds: number;
      arrival: { kind: 'node'; node: OrderNode } | { kind: 'give-up'; node: OrderNode } | { kind: 'home' };
    }
  /** `remainingSeconds`: the dose still to give of a room whose lamp went off when it was set not ready. */
  | { kind: 'prompt'; promptId: string; action: VdaAction; roomId: string; remainingSeconds?: number }
  | { kind: 'disinfecting'; action: VdaAction; remainingSeconds: number }
  /** A delivery robot in its `pick`: drawer open until the loading is confirmed. */
  | { kind: 'loading'; action: VdaAction }
  /** A delivery robot in its `drop`: drawer locked until the hand-off is confirmed, then open for `openSeconds` more. */
  | { kind: 'handoff'; action: VdaAction; openSeconds: number | null };

const DEFAULT_RATES: BatteryRates = { driving: 0.02, disinfecting: 0.03, idle: 0.002, charging: 0.05 };
const INSTANT_STATES_KEPT = 20;
const PINS_KEPT = 10;
const AT_HOME_METRES = 0.05;
/** Recharged this far above the threshold, the robot takes work again. */
const LOW_BATTERY_HYSTERESIS = 10;

const param = (action: VdaAction, key: string) => action.actionParameters?.find((p) => p.key === key)?.value;
const paramString = (action: VdaAction, key: string): string | undefined => {
  const value = param(action, key);
  return typeof value === 'string' || typeof value === 'number' ? String(value) : undefined;
};
const paramBoolean = (action: VdaAction, key: string): boolean | undefined => {
  const value = param(action, key);
  if (typeof value === 'boolean') return value;
  if (value === 'true' || value === 'false') return value === 'true';
  return undefined;
};
const paramNumber = (action: VdaAction, key: string): number | undefined => {
  const value = param(action, key);
  const n = typeof value === 'number' ? value : typeof value === 'string' ? Number(value) : Number.NaN;
  return Number.isFinite(n) ? n : undefined;
};

export type RobotStateBody = Omit<StateMessage, 'headerId' | 'timestamp' | 'version' | 'manufacturer' | 'serialNumber'>;

export class RobotModel {
  readonly kind: SimRobotKind;
  readonly home: Pose;
  readonly homeMapId: string;
  operatingMode: OperatingMode;
  pose: Pose;
  mapId: string;
  battery: number;
  paused = false;

  private readonly speed: number;
  private readonly irradiance: number;
  private readonly lowBatteryThreshold: number;
  private readonly rates: BatteryRates;
  private readonly faultRate: number;
  private readonly unreachable: Set<string>;
  private readonly elevatorSeconds: number;
  private readonly random: () => number;
  private readonly now: () => number;
  private readonly drawerOpenSeconds: number;
  /** A delivery robot's drawer (always closed on a disinfection robot, which reports none). */
  private drawerState: DrawerState = 'closed';
  /** PINs entered at the robot, the last few kept with their answers. */
  private pins: PinEntry[] = [];
  /** Simulated seconds the way ahead stays blocked (`blockPath`). */
  private blockedSeconds = 0;

  private order: ActiveOrder | null = null;
  /** The last order's id and update id stay in the state after it ends, as VDA 5050 requires. */
  private orderId = '';
  private orderUpdateId = 0;
  private lastNodeId = '';
  private lastNodeSequenceId = 0;
  private activity: Activity = { kind: 'idle' };
  private orderActionStates: ActionState[] = [];
  private instantActionStates: ActionState[] = [];
  /** A uvd_go_home in progress: RUNNING until the robot is home. */
  private homeActionId: string | null = null;
  private lowBattery = false;
  /** Paused by the dead man's switch (`loseLink`) and not yet resumed or cancelled by the controller. */
  private linkLost = false;
  private orderRefusal: string | null = null;
  /** An order update that could not be stitched onto the order (VDA 5050 orderUpdateError), until the next order. */
  private orderUpdateRefusal: { orderId: string; orderUpdateId: number } | null = null;
  private distanceSinceLastNode = 0;
  /** By uvd_disinfect actionId, for the order's rooms that received UV-C or ended. */
  private doses = new Map<string, RoomDose>();
  private changed = true;

  constructor(options: RobotModelOptions) {
    this.kind = options.kind ?? 'disinfection';
    this.drawerOpenSeconds = options.drawerOpenSeconds ?? 5;
    this.home = { ...options.home };
    this.homeMapId = options.mapId;
    this.mapId = options.mapId;
    this.pose = { ...(options.pose ?? options.home) };
    this.battery = options.battery ?? 100;
    this.operatingMode = options.operatingMode ?? 'AUTOMATIC';
    this.speed = options.speed ?? 0.5;
    this.irradiance = options.irradiance ?? 0.5;
    this.lowBatteryThreshold = options.lowBatteryThreshold ?? 20;
    this.rates = { ...DEFAULT_RATES, ...options.batteryRates };
    this.faultRate = options.faultRate ?? 0;
    this.unreachable = new Set(options.unreachableNodes ?? []);
    this.elevatorSeconds = options.elevatorSeconds ?? 20;
    this.random = options.random ?? Math.random;
    this.now = options.now ?? Date.now;
    this.lowBattery = this.battery < this.lowBatteryThreshold;
  }

  /** Whether something a server would notice changed since the last call (then a state is due now). */
  takeChanged(): boolean {
    const changed = this.changed;
    this.changed = false;
    return changed;
  }

  get driving(): boolean {
    return this.activity.kind === 'driving' && !this.paused && this.blockedSeconds <= 0;
  }

  /** A delivery robot's drawer. */
  get drawer(): DrawerState {
    return this.drawerState;
  }

  /** Whether the way ahead is blocked now (`blockPath`). */
  get pathBlocked(): boolean {
    return this.blockedSeconds > 0;
  }

  /** The PINs entered at the robot (the latest last), each with the server's answer once it came. */
  get pinEntries(): readonly PinEntry[] {
    return this.pins;
  }

  /** What a delivery robot waits for now: its pick's loading or its drop's hand-off, with the action's id. */
  get waitingFor(): { kind: 'loading' | 'handoff'; actionId: string } | null {
    const a = this.activity;
    if (a.kind === 'loading') return { kind: 'loading', actionId: a.action.actionId };
    if (a.kind === 'handoff' && a.openSeconds === null) return { kind: 'handoff', actionId: a.action.actionId };
    return null;
  }

  /**
   * The button at the robot: the sender loaded the drawer. A robot waiting in its pick closes the drawer and
   * finishes the pick; returns false when it was not waiting for loading.
   */
  confirmLoading(actionId?: string): boolean {
    const a = this.activity;
    if (a.kind !== 'loading' || (actionId !== undefined && a.action.actionId !== actionId)) return false;
    this.drawerState = 'closed';
    this.setOrderActionStatus(a.action.actionId, 'FINISHED');
    this.activity = { kind: 'idle' };
    return true;
  }

  /**
   * Someone types a PIN on the robot's screen while it waits at the drop-off: it is reported (information
   * uvd_handoff_pin) until the server answers. Returns the entry's pin_attempt_id, or null when the robot waits for
   * no hand-off (or a PIN is already waiting for its answer, or the hand-off is locked).
   */
  enterPin(pin: string): string | null {
    const waitingFor = this.waitingFor;
    if (waitingFor?.kind !== 'handoff') return null;
    const last = this.pins.at(-1);
    if (last && (last.answer === null || (!last.answer.accepted && last.answer.locked))) return null;
    const entry: PinEntry = { pinAttemptId: randomUUID(), actionId: waitingFor.actionId, pin, answer: null };
    this.pins = [...this.pins.slice(-(PINS_KEPT - 1)), entry];
    this.changed = true;
    return entry.pinAttemptId;
  }

  /**
   * Something blocks the way (a crowded corridor, a lift out of order) for `durationMs` of the robot's time: the
   * robot stops driving and reports the WARNING error uvd_path_blocked until it passes.
   */
  blockPath(durationMs: number): void {
    this.blockedSeconds = Math.max(this.blockedSeconds, durationMs / 1000);
    this.changed = true;
  }

  get charging(): boolean {
    return this.activity.kind === 'idle' && !this.paused && this.atHome();
  }

  get hasOrder(): boolean {
    return this.order !== null;
  }

  /** Whether the UV-C lamp is on: a uvd_disinfect action runs and the robot is not paused. */
  get lampOn(): boolean {
    return this.activity.kind === 'disinfecting' && !this.paused;
  }

  /** The room the lamp irradiates now (the running action's room_id), or null while it is off. */
  get lampRoomId(): string | null {
    return this.lampOn && this.activity.kind === 'disinfecting' ? (paramString(this.activity.action, 'room_id') ?? null) : null;
  }

  setOperatingMode(mode: OperatingMode): void {
    if (mode === this.operatingMode) return;
    this.operatingMode = mode;
    this.changed = true;
  }

  /** Sets the charge, e.g. to make a test robot run low; the low-battery rule applies from the next step. */
  setBattery(percent: number): void {
    this.battery = Math.min(100, Math.max(0, percent));
    this.changed = true;
  }

  /**
   * The dead man's switch (as the UVD Robots tablet link): the lamp runs only while the link to the controller
   * is alive. When the link is lost with an order running, the robot pauses at once (lamp off: the room's
   * uvd_disinfect PAUSED; no driving) and stays paused when the link is back, reporting the WARNING error
   * `uvd_link_lost`, until the controller resumes it (stopPause) or cancels the order (cancelOrder): only the
   * controller knows whether the room is still empty.
   */
  loseLink(): void {
    if (!this.order || this.linkLost) return;
    this.linkLost = true;
    this.setPaused(true);
    this.changed = true;
  }

  // ---------------------------------------------------------------- orders

  /** Applies an order; returns false when it was ignored (a duplicate or stale update, or not in automatic mode). */
  receiveOrder(message: OrderMessage): boolean {
    if (this.operatingMode !== 'AUTOMATIC' && this.operatingMode !== 'SEMIAUTOMATIC') {
      this.orderRefusal = `order ${message.orderId} refused: operating mode is ${this.operatingMode}`;
      this.changed = true;
      return false;
    }
    const nodes = [...message.nodes].sort((a, b) => a.sequenceId - b.sequenceId);
    const edges = [...message.edges].sort((a, b) => a.sequenceId - b.sequenceId);
    this.orderRefusal = null;
    if (message.orderId === this.orderId) {
      // VDA 5050: an update id not above the current one is a duplicate or a late message.
      if (message.orderUpdateId <= this.orderUpdateId) return false;
      return this.applyOrderUpdate(message, nodes, edges);
    }
    this.orderUpdateRefusal = null;
    if (this.order) this.abortOrder('aborted');
    this.interruptGoHome();
    this.orderId = message.orderId;
    this.orderUpdateId = message.orderUpdateId;
    this.order = {
      orderId: message.orderId,
      orderUpdateId: message.orderUpdateId,
      nodes,
      edges,
      nextIndex: 0,
      nodeActions: [],
      reached: undefined,
      known: new Set(nodes.map(nodeKey)),
    };
    this.orderActionStates = nodes.flatMap((node) => node.actions.map((action) => waiting(action)));
    this.doses = new Map();
    this.activity = { kind: 'idle' };
    this.distanceSinceLastNode = 0;
    this.changed = true;
    return true;
  }

  /**
   * An update of the order (VDA 5050 §6.6), stitched at the last node the robot reached: its first node is that
   * node, and the nodes and edges after it replace what was left. An update whose first node is a node of the
   * order the robot has passed since (the sender had not heard of it yet) is applied from where the robot is;
   * before the robot reached any node of the order, one beginning at the order's next node replaces it all. An
   * update that fits neither is refused (orderUpdateError) and changes nothing. Returns whether it was applied.
   */
  private applyOrderUpdate(message: OrderMessage, nodes: OrderNode[], edges: OrderEdge[]): boolean {
    const first = nodes[0];
    const order = this.order;
    const reached = order ? order.reached : { nodeId: this.lastNodeId, sequenceId: this.lastNodeSequenceId };
    const known = first !== undefined && (order ? order.known.has(nodeKey(first)) : nodeKey(first) === nodeKey({ nodeId: this.lastNodeId, sequenceId: this.lastNodeSequenceId }));
    const limit = reached?.sequenceId ?? order?.nodes[order.nextIndex]?.sequenceId ?? -1;
    if (!first || !known || first.sequenceId > limit) {
      this.orderUpdateRefusal = { orderId: message.orderId, orderUpdateId: message.orderUpdateId };
      this.changed = true;
      return false;
    }
    this.orderUpdateRefusal = null;
    const after = reached?.sequenceId ?? -1;
    const pending = nodes.filter((n) => n.sequenceId > after);
    const pendingEdges = edges.filter((e) => e.sequenceId > after);
    const states = new Set(this.orderActionStates.map((s) => s.actionId));
    for (const node of pending) {
      for (const action of node.actions) if (!states.has(action.actionId)) this.orderActionStates.push(waiting(action));
    }
    // Actions the update no longer asks for will not run: a server reading the state must not wait for them.
    const nodeActions = order?.nodeActions ?? [];
    const wanted = new Set([...pending.flatMap((n) => n.actions), ...nodeActions].map((a) => a.actionId));
    for (const state of this.orderActionStates) {
      if (state.actionStatus === 'WAITING' && !wanted.has(state.actionId)) {
        state.actionStatus = 'FAILED';
        state.resultDescription = 'aborted';
      }
    }
    this.orderUpdateId = message.orderUpdateId;
    this.order = {
      orderId: message.orderId,
      orderUpdateId: message.orderUpdateId,
      nodes: pending,
      edges: pendingEdges,
      nextIndex: 0,
      nodeActions,
      reached: order ? order.reached : reached,
      known: new Set([...(order?.known ?? []), ...nodes.map(nodeKey)]),
    };
    // A robot on its way to a node re-plans from where it is; work at a node carries on.
    if (this.activity.kind === 'driving') this.activity = { kind: 'idle' };
    this.changed = true;
    return true;
  }

  // ---------------------------------------------------------------- instant actions

  receiveInstantActions(message: InstantActionsMessage): void {
    for (const action of message.actions) {
      // A duplicated publish carries the same actionId: it takes effect once.
      if (this.instantActionStates.some((s) => s.actionId === action.actionId)) continue;
      this.runInstantAction(action);
      this.changed = true;
    }
  }

  private runInstantAction(action: VdaAction): void {
    const record = (status: ActionStatus, resultDescription?: string) => {
      this.instantActionStates.push({ ...waiting(action), actionStatus: status, ...(resultDescription ? { resultDescription } : {}) });
      if (this.instantActionStates.length > INSTANT_STATES_KEPT) this.instantActionStates.shift();
    };
    switch (action.actionType) {
      case VdaInstantAction.pause:
        this.setPaused(true);
        record('FINISHED');
        return;
      case VdaInstantAction.resume:
        this.linkLost = false;
        this.setPaused(false);
        record('FINISHED');
        return;
      case VdaInstantAction.cancel:
        if (!this.order && !this.homeActionId) {
          record('FAILED', 'no_order');
          return;
        }
        if (this.order) this.abortOrder('aborted');
        this.interruptGoHome();
        this.activity = { kind: 'idle' };
        // The pause of the dead man's switch held the order; with the order gone it has nothing left to hold.
        if (this.linkLost) {
          this.linkLost = false;
          this.setPaused(false);
        }
        record('FINISHED');
        return;
      case UvdActionType.goHome:
        if (this.order) this.abortOrder('aborted');
        this.interruptGoHome();
        record('RUNNING');
        this.homeActionId = action.actionId;
        this.driveHome();
        return;
      // stateRequest is VDA 5050's own way to ask for a state now; like a ping it is answered by the state that follows at once.
      case UvdActionType.ping:
      case 'stateRequest':
        record('FINISHED');
        return;
      case UvdActionType.roomNotReady: {
        const actionId = paramString(action, 'action_id');
        if (!this.order) {
          record('FAILED', 'no_order');
          return;
        }
        if (actionId === undefined || !this.orderActionStates.some((state) => state.actionId === actionId)) {
          record('FAILED', 'unknown_action');
          return;
        }
        this.withdrawReadiness(actionId);
        record('FINISHED');
        return;
      }
      case UvdActionType.loadingConfirmed: {
        const confirmed = this.kind === 'delivery' && this.confirmLoading(paramString(action, 'action_id'));
        if (confirmed) record('FINISHED');
        else record('FAILED', 'not_waiting');
        return;
      }
      case UvdActionType.handoffConfirmed: {
        const a = this.activity;
        if (this.kind !== 'delivery' || a.kind !== 'handoff' || a.openSeconds !== null || paramString(action, 'action_id') !== a.action.actionId) {
          record('FAILED', 'not_waiting');
          return;
        }
        this.answerPin(paramString(action, 'pin_attempt_id'), { accepted: true });
        // Unlocked: the recipient opens the drawer, takes the items and closes it; then the drop is done.
        this.drawerState = 'open';
        a.openSeconds = this.drawerOpenSeconds;
        record('FINISHED');
        return;
      }
      case UvdActionType.handoffRefused: {
        const attemptsLeft = paramNumber(action, 'attempts_left');
        const locked = paramBoolean(action, 'locked');
        const answered = attemptsLeft !== undefined && locked !== undefined && this.answerPin(paramString(action, 'pin_attempt_id'), { accepted: false, attemptsLeft, locked });
        if (answered) record('FINISHED');
        else record('FAILED', 'unknown_action');
        return;
      }
      case UvdActionType.operatorDecision: {
        const promptId = paramString(action, 'prompt_id');
        const confirm = paramBoolean(action, 'confirm');
        if (this.activity.kind !== 'prompt' || this.activity.promptId !== promptId || confirm === undefined) {
          record('FAILED', 'unknown_prompt');
          return;
        }
        const prompted = this.activity.action;
        if (confirm) this.startDisinfecting(prompted, this.activity.remainingSeconds);
        else {
          this.setOrderActionStatus(prompted.actionId, 'FAILED', 'not_ready');
          this.activity = { kind: 'idle' };
        }
        record('FINISHED');
        return;
      }
      default:
        record('FAILED', 'unsupported');
    }
  }

  /**
   * A room of the order was set not ready (uvd_room_not_ready): a lamp on for its action goes off now and the
   * robot asks to enter, keeping the dose still to give; a room not started yet is asked for when its turn comes.
   */
  private withdrawReadiness(actionId: string): void {
    const a = this.activity;
    if (a.kind === 'disinfecting' && a.action.actionId === actionId) {
      const roomId = paramString(a.action, 'room_id') ?? '';
      this.activity = { kind: 'prompt', promptId: randomUUID(), action: a.action, roomId, remainingSeconds: a.remainingSeconds };
      // Not RUNNING any more: the lamp is off until the operator confirms.
      this.setOrderActionStatus(actionId, 'PAUSED');
      return;
    }
    // The actions still to start are marked in place: a robot driving to the room holds the same node.
    const order = this.order;
    if (!order) return;
    for (const candidate of [...order.nodeActions, ...order.nodes.flatMap((node) => node.actions)]) {
      if (candidate.actionId !== actionId) continue;
      candidate.actionParameters = [...(candidate.actionParameters ?? []).filter((p) => p.key !== 'ready'), { key: 'ready', value: false }];
    }
  }

  /** Records the server's answer to the PIN entry `pinAttemptId`; false when there is no such entry waiting. */
  private answerPin(pinAttemptId: string | undefined, answer: NonNullable<PinEntry['answer']>): boolean {
    const entry = this.pins.find((candidate) => candidate.pinAttemptId === pinAttemptId);
    if (!entry || entry.answer !== null) return false;
    entry.answer = answer;
    this.changed = true;
    return true;
  }

  private setPaused(paused: boolean): void {
    if (this.paused === paused) return;
    this.paused = paused;
    // VDA 5050: a running action is PAUSED while the robot is paused.
    const a = this.activity;
    if (a.kind === 'disinfecting' || a.kind === 'loading' || a.kind === 'handoff') {
      this.setOrderActionStatus(a.action.actionId, paused ? 'PAUSED' : 'RUNNING');
    }
  }

  /** Stops the order where the robot is: every action not yet done fails with `reason`, no node is left to visit. */
  private abortOrder(reason: FailureReason): void {
    for (const state of this.orderActionStates) {
      if (state.actionStatus !== 'FINISHED' && state.actionStatus !== 'FAILED') this.setOrderActionStatus(state.actionId, 'FAILED', reason);
    }
    this.order = null;
    this.activity = { kind: 'idle' };
    // A delivery robot closes its drawer when its order ends (what is inside stays locked in).
    this.drawerState = 'closed';
    this.changed = true;
  }

  private interruptGoHome(): void {
    if (!this.homeActionId) return;
    this.setInstantActionStatus(this.homeActionId, 'FAILED', 'aborted');
    this.homeActionId = null;
    if (this.activity.kind === 'driving' && this.activity.arrival.kind === 'home') this.activity = { kind: 'idle' };
  }

  // ---------------------------------------------------------------- time

  /**
   * Lets `seconds` of simulated time pass. `onStep` runs after every discrete event (a node reached, an action
   * started or finished), so a caller publishing state there reports each of them even at high time factors.
   */
  advance(seconds: number, onStep: () => void = () => undefined): void {
    this.updateBattery(seconds);
    if (this.blockedSeconds > 0) {
      this.blockedSeconds = Math.max(0, this.blockedSeconds - seconds);
      if (this.blockedSeconds === 0) this.changed = true;
      else if (this.activity.kind === 'driving') return;
    }
    if (this.paused) return;
    let left: number | null = seconds;
    // Every pass consumes time or changes what the robot does; the bound only guards against a bug looping forever.
    for (let pass = 0; pass < 1000 && left !== null; pass++) {
      left = this.step(left);
      if (this.changed) onStep();
    }
  }

  private updateBattery(seconds: number): void {
    const kind = this.paused ? 'idle' : this.activity.kind;
    const rate = this.charging
      ? this.rates.charging
      : kind === 'driving'
        ? -this.rates.driving
        : kind === 'disinfecting'
          ? -this.rates.disinfecting
          : -this.rates.idle;
    const before = Math.floor(this.battery);
    this.battery = Math.min(100, Math.max(0, this.battery + rate * seconds));
    if (Math.floor(this.battery) !== before) this.changed = true;
    if (!this.lowBattery && this.battery < this.lowBatteryThreshold) {
      this.lowBattery = true;
      this.changed = true;
    } else if (this.lowBattery && this.battery >= this.lowBatteryThreshold + LOW_BATTERY_HYSTERESIS) {
      this.lowBattery = false;
      this.changed = true;
    }
  }

  /** Runs the current activity for at most `seconds`; returns the time left over, or null when there is nothing more to do now. */
  private step(seconds: number): number | null {
    const activity = this.activity;
    switch (activity.kind) {
      case 'idle':
        return this.decide() ? seconds : null;
      case 'prompt':
      case 'loading':
        return null;
      case 'handoff': {
        if (activity.openSeconds === null) return null;
        if (seconds < activity.openSeconds) {
          activity.openSeconds -= seconds;
          return null;
        }
        const left = seconds - activity.openSeconds;
        this.drawerState = 'closed';
        this.setOrderActionStatus(activity.action.actionId, 'FINISHED');
        this.activity = { kind: 'idle' };
        return left;
      }
      case 'disinfecting': {
        this.irradiate(activity.action.actionId, Math.min(seconds, activity.remainingSeconds));
        if (seconds < activity.remainingSeconds) {
          activity.remainingSeconds -= seconds;
          return null;
        }
        this.setOrderActionStatus(activity.action.actionId, 'FINISHED');
        this.activity = { kind: 'idle' };
        return seconds - activity.remainingSeconds;
      }
      case 'driving': {
        let left = seconds;
        if (activity.elevatorSeconds > 0) {
          if (left < activity.elevatorSeconds) {
            activity.elevatorSeconds -= left;
            return null;
          }
          left -= activity.elevatorSeconds;
          activity.elevatorSeconds = 0;
          this.mapId = activity.to.mapId;
          this.pose = { ...this.pose, x: activity.to.x, y: activity.to.y };
          this.changed = true;
        }
        const dx = activity.to.x - this.pose.x;
        const dy = activity.to.y - this.pose.y;
        const distance = Math.hypot(dx, dy);
        const reach = this.speed * left;
        if (distance > 0) this.pose.theta = Math.atan2(dy, dx);
        if (reach < distance) {
          this.pose.x += (dx / distance) * reach;
          this.pose.y += (dy / distance) * reach;
          this.distanceSinceLastNode += reach;
          return null;
        }
        this.pose.x = activity.to.x;
        this.pose.y = activity.to.y;
        this.distanceSinceLastNode += distance;
        left -= distance / this.speed;
        this.arrive(activity);
        return left;
      }
    }
  }

  private arrive(activity: Extract<Activity, { kind: 'driving' }>): void {
    this.activity = { kind: 'idle' };
    this.changed = true;
    const { arrival } = activity;
    if (arrival.kind === 'home') {
      if (this.homeActionId) {
        this.setInstantActionStatus(this.homeActionId, 'FINISHED');
        this.homeActionId = null;
      }
      return;
    }
    if (!this.order) return;
    this.order.nextIndex += 1;
    if (arrival.kind === 'give-up') {
      for (const action of arrival.node.actions) this.setOrderActionStatus(action.actionId, 'FAILED', 'not_reached');
      return;
    }
    const node = arrival.node;
    if (node.nodePosition?.theta !== undefined) this.pose.theta = node.nodePosition.theta;
    this.lastNodeId = node.nodeId;
    this.lastNodeSequenceId = node.sequenceId;
    this.order.reached = { nodeId: node.nodeId, sequenceId: node.sequenceId };
    this.distanceSinceLastNode = 0;
    this.order.nodeActions = [...node.actions];
  }

  /** With nothing to do: the next action of the node, the next node, home after a low battery; false to rest. */
  private decide(): boolean {
    const order = this.order;
    if (order) {
      const action = order.nodeActions.shift();
      if (action) {
        this.startNodeAction(action);
        return true;
      }
      const node = order.nodes[order.nextIndex];
      if (!node) {
        this.order = null;
        this.changed = true;
        return true;
      }
      if (!node.released) return false;
      if (this.lowBattery && isRoomNode(node)) this.giveUpRoomsForCharging(order);
      else this.driveTo(node);
      return true;
    }
    if (this.lowBattery && !this.atHome()) {
      this.driveHome();
      return true;
    }
    return false;
  }

  private startNodeAction(action: VdaAction): void {
    if (this.kind === 'delivery' && (action.actionType === VdaLoadAction.pick || action.actionType === VdaLoadAction.drop)) {
      if (action.actionType === VdaLoadAction.pick) {
        this.drawerState = 'open';
        this.activity = { kind: 'loading', action };
      } else {
        this.activity = { kind: 'handoff', action, openSeconds: null };
      }
      this.setOrderActionStatus(action.actionId, this.paused ? 'PAUSED' : 'RUNNING');
      return;
    }
    if (this.kind !== 'disinfection' || action.actionType !== UvdActionType.disinfect) {
      this.setOrderActionStatus(action.actionId, 'FAILED', 'unsupported');
      return;
    }
    if (paramBoolean(action, 'ready') === false) {
      this.activity = { kind: 'prompt', promptId: randomUUID(), action, roomId: paramString(action, 'room_id') ?? '' };
      this.changed = true;
      return;
    }
    this.startDisinfecting(action);
  }

  /** `remainingSeconds`: what is left of a room whose lamp went off before (all of its dose by default). */
  private startDisinfecting(action: VdaAction, remainingSeconds?: number): void {
    const dose = paramNumber(action, 'dose') ?? 0;
    this.activity = { kind: 'disinfecting', action, remainingSeconds: remainingSeconds ?? Math.max(0, dose) / this.irradiance };
    if (!this.doses.has(action.actionId)) this.doses.set(action.actionId, { dose: 0, startedAt: this.isoNow() });
    this.setOrderActionStatus(action.actionId, this.paused ? 'PAUSED' : 'RUNNING');
  }

  /** Low battery: the rooms still ahead are given up (not_reached) and the robot goes to the order's home node. */
  private giveUpRoomsForCharging(order: ActiveOrder): void {
    const remaining = order.nodes.slice(order.nextIndex);
    const homeIndex = remaining.findIndex((n) => !isRoomNode(n));
    const skipped = homeIndex === -1 ? remaining : remaining.slice(0, homeIndex);
    for (const node of skipped) {
      for (const action of node.actions) this.setOrderActionStatus(action.actionId, 'FAILED', 'not_reached');
    }
    order.nextIndex += skipped.length;
    this.changed = true;
    if (homeIndex === -1) {
      this.order = null;
      this.driveHome();
    }
  }

  private driveTo(node: OrderNode): void {
    const position = node.nodePosition;
    this.changed = true;
    if (!position) {
      // A node without a position (VDA allows it) is where the robot already is.
      this.arrive({ kind: 'driving', to: { ...this.pose, mapId: this.mapId }, elevatorSeconds: 0, arrival: { kind: 'node', node } });
      return;
    }
    const unreachable =
      this.unreachable.has(node.nodeId) ||
      node.actions.some((a) => this.unreachable.has(paramString(a, 'room_id') ?? paramString(a, 'stationName') ?? '')) ||
      (isRoomNode(node) && this.faultRate > 0 && this.random() < this.faultRate);
    const elevatorSeconds = position.mapId === this.mapId ? 0 : this.elevatorSeconds;
    if (unreachable) {
      // The robot sets off, gets halfway and finds the way blocked.
      const start = elevatorSeconds > 0 ? { x: position.x, y: position.y } : this.pose;
      const to = { x: (start.x + position.x) / 2, y: (start.y + position.y) / 2, mapId: position.mapId };
      this.activity = { kind: 'driving', to, elevatorSeconds, arrival: { kind: 'give-up', node } };
      return;
    }
    this.activity = { kind: 'driving', to: { x: position.x, y: position.y, mapId: position.mapId }, elevatorSeconds, arrival: { kind: 'node', node } };
  }

  private driveHome(): void {
    this.changed = true;
    if (this.atHome()) {
      this.arrive({ kind: 'driving', to: { ...this.home, mapId: this.homeMapId }, elevatorSeconds: 0, arrival: { kind: 'home' } });
      return;
    }
    const elevatorSeconds = this.mapId === this.homeMapId ? 0 : this.elevatorSeconds;
    this.activity = { kind: 'driving', to: { x: this.home.x, y: this.home.y, mapId: this.homeMapId }, elevatorSeconds, arrival: { kind: 'home' } };
  }

  private atHome(): boolean {
    return this.mapId === this.homeMapId && Math.hypot(this.pose.x - this.home.x, this.pose.y - this.home.y) < AT_HOME_METRES;
  }

  /** The lamp was on in the room of `actionId` for `seconds`. */
  private irradiate(actionId: string, seconds: number): void {
    const record = this.doses.get(actionId);
    if (record) record.dose += seconds * this.irradiance;
  }

  private isoNow(): string {
    return new Date(this.now()).toISOString();
  }

  private setOrderActionStatus(actionId: string, status: ActionStatus, resultDescription?: string): void {
    const state = this.orderActionStates.find((s) => s.actionId === actionId);
    if (!state) return;
    if (status === 'FINISHED' || status === 'FAILED') {
      // Every room that ends is reported with its time, so the server dates the job's end by the robot's clock.
      const record = this.doses.get(actionId) ?? { dose: 0 };
      record.endedAt ??= this.isoNow();
      this.doses.set(actionId, record);
    }
    state.actionStatus = status;
    if (resultDescription) state.resultDescription = resultDescription;
    this.changed = true;
  }

  private setInstantActionStatus(actionId: string, status: ActionStatus, resultDescription?: string): void {
    const state = this.instantActionStates.find((s) => s.actionId === actionId);
    if (!state) return;
    state.actionStatus = status;
    if (resultDescription) state.resultDescription = resultDescription;
    this.changed = true;
  }

  // ---------------------------------------------------------------- state

  /** The open operator prompt, if any. */
  get prompt(): { promptId: string; roomId: string; actionId: string } | null {
    const a = this.activity;
    return a.kind === 'prompt' ? { promptId: a.promptId, roomId: a.roomId, actionId: a.action.actionId } : null;
  }

  /** The VDA 5050 state without its header. */
  state(): RobotStateBody {
    const order = this.order;
    const pendingNodes = order ? order.nodes.slice(order.nextIndex) : [];
    const passedSequence = order ? (order.nodes[order.nextIndex - 1]?.sequenceId ?? -1) : Number.POSITIVE_INFINITY;
    const pendingEdges = order ? order.edges.filter((e) => e.sequenceId > passedSequence) : [];
    const driving = this.driving;
    const velocity = driving ? this.speed : 0;
    return {
      orderId: this.orderId,
      orderUpdateId: this.orderUpdateId,
      lastNodeId: this.lastNodeId,
      lastNodeSequenceId: this.lastNodeSequenceId,
      nodeStates: pendingNodes.map((n) => ({
        nodeId: n.nodeId,
        sequenceId: n.sequenceId,
        released: n.released,
        ...(n.nodePosition ? { nodePosition: n.nodePosition } : {}),
      })),
      edgeStates: pendingEdges.map((e) => ({ edgeId: e.edgeId, sequenceId: e.sequenceId, released: e.released })),
      agvPosition: { x: round(this.pose.x), y: round(this.pose.y), theta: round(this.pose.theta), mapId: this.mapId, positionInitialized: true },
      velocity: { vx: round(velocity * Math.cos(this.pose.theta)), vy: round(velocity * Math.sin(this.pose.theta)), omega: 0 },
      driving,
      paused: this.paused,
      newBaseRequest: false,
      distanceSinceLastNode: round(this.distanceSinceLastNode),
      actionStates: [...this.orderActionStates, ...this.instantActionStates].map((s) => ({ ...s })),
      batteryState: { batteryCharge: round(this.battery), charging: this.charging },
      operatingMode: this.operatingMode,
      errors: this.errors(),
      information: this.information(),
      safetyState: { eStop: 'NONE', fieldViolation: false },
    };
  }

  private errors(): StateMessage['errors'] {
    const errors: StateMessage['errors'] = [];
    if (this.lowBattery) {
      errors.push({
        errorType: 'uvd_low_battery',
        errorLevel: 'WARNING',
        errorDescription: `Battery below ${this.lowBatteryThreshold} %: going home to charge`,
      });
    }
    if (this.linkLost) {
      errors.push({
        errorType: 'uvd_link_lost',
        errorLevel: 'WARNING',
        errorDescription: 'The link to the controller was lost: lamp off, paused until resumed or cancelled',
      });
    }
    if (this.blockedSeconds > 0) {
      errors.push({ errorType: UVD_PATH_BLOCKED_ERROR, errorLevel: 'WARNING', errorDescription: 'The way ahead is blocked: waiting for it to clear' });
    }
    if (this.orderRefusal) errors.push({ errorType: 'orderError', errorLevel: 'WARNING', errorDescription: this.orderRefusal });
    const refused = this.orderUpdateRefusal;
    if (refused) {
      errors.push({
        errorType: 'orderUpdateError',
        errorLevel: 'WARNING',
        errorDescription: `order update ${refused.orderUpdateId} refused: its first node is not the last node reached`,
        errorReferences: [
          { referenceKey: 'orderId', referenceValue: refused.orderId },
          { referenceKey: 'orderUpdateId', referenceValue: String(refused.orderUpdateId) },
        ],
      });
    }
    return errors;
  }

  private information(): VdaInformation[] {
    const doses = [...this.doses].map(([actionId, record]): VdaInformation => ({
      infoType: UVD_DOSE_INFO_TYPE,
      infoLevel: 'INFO',
      infoReferences: [
        { referenceKey: 'action_id', referenceValue: actionId },
        { referenceKey: 'dose', referenceValue: String(Math.round(record.dose * 10) / 10) },
        ...(record.startedAt === undefined ? [] : [{ referenceKey: 'started_at', referenceValue: record.startedAt }]),
        ...(record.endedAt === undefined ? [] : [{ referenceKey: 'ended_at', referenceValue: record.endedAt }]),
      ],
    }));
    const delivery: VdaInformation[] =
      this.kind === 'delivery'
        ? [
            { infoType: UVD_DRAWER_INFO_TYPE, infoLevel: 'INFO', infoReferences: [{ referenceKey: 'state', referenceValue: this.drawerState }] },
            ...this.pins
              .filter((entry) => entry.answer === null)
              .map((entry): VdaInformation => ({
                infoType: UVD_HANDOFF_PIN_INFO_TYPE,
                infoLevel: 'INFO',
                infoReferences: [
                  { referenceKey: 'pin_attempt_id', referenceValue: entry.pinAttemptId },
                  { referenceKey: 'action_id', referenceValue: entry.actionId },
                  { referenceKey: 'pin', referenceValue: entry.pin },
                ],
              })),
          ]
        : [];
    const a = this.activity;
    if (a.kind !== 'prompt') return [...doses, ...delivery];
    return [
      ...doses,
      ...delivery,
      {
        infoType: UVD_PROMPT_INFO_TYPE,
        infoLevel: 'INFO',
        infoDescription: 'wait_to_enter',
        infoReferences: [
          { referenceKey: 'prompt_id', referenceValue: a.promptId },
          { referenceKey: 'button', referenceValue: 'wait_to_enter' },
          { referenceKey: 'room_id', referenceValue: a.roomId },
          { referenceKey: 'action_id', referenceValue: a.action.actionId },
        ],
      },
    ];
  }
}

function waiting(action: VdaAction): ActionState {
  return {
    actionId: action.actionId,
    actionType: action.actionType,
    ...(action.actionDescription ? { actionDescription: action.actionDescription } : {}),
    actionStatus: 'WAITING',
  };
}

const nodeKey = (node: { nodeId: string; sequenceId: number }) => `${node.nodeId}@${String(node.sequenceId)}`;
const isRoomNode = (node: OrderNode) => node.actions.some((a) => a.actionType === UvdActionType.disinfect);
const round = (n: number) => Math.round(n * 1000) / 1000;
