/**
 * A simulated robot on the wire: VDA 5050 v2 over MQTT, exactly as a real robot would speak it.
 * It logs in as `{manufacturer}/{serialNumber}`, leaves CONNECTIONBROKEN as its last will, publishes its state at
 * 1 Hz and on every change, and obeys orders and instant actions addressed to it.
 */
import { randomUUID } from 'node:crypto';
import mqtt from 'mqtt';
import type { MqttClient } from 'mqtt';
import { InstantActionsMessage, OrderMessage, UvdActionType, VDA_VERSION, VdaInstantAction, VdaLoadAction, vdaTopic } from '@uvd/contracts';
import type {
  ConnectionMessage,
  ConnectionState,
  FactsheetMessage,
  OperatingMode,
  StateMessage,
  VdaTopicName,
} from '@uvd/contracts';
import { RobotModel } from './robot-model.ts';
import type { DrawerState, PinEntry, RobotModelOptions, SimRobotKind } from './robot-model.ts';

export interface SimRobotOptions extends RobotModelOptions {
  brokerUrl: string;
  manufacturer: string;
  serialNumber: string;
  /** MQTT login; the username defaults to `{manufacturer}/{serialNumber}` (the embedded broker's rule). */
  username?: string;
  password?: string;
  /** Simulated seconds per real second: scales every duration and speed (default 1). */
  timeFactor?: number;
  /** Real milliseconds between periodic states (default 1000: VDA 5050's usual 1 Hz). */
  stateIntervalMs?: number;
  /** Real milliseconds between simulation steps (default 100). */
  tickMs?: number;
  /** MQTT keepalive in seconds (default 60, mqtt.js's): a short one makes the robot notice a dead link quickly. */
  keepalive?: number;
}

export type SimStateListener = (state: StateMessage) => void;

/** Messages the robot dropped: not JSON, not a valid VDA 5050 message, or addressed to another robot. */
export interface SimRobotCounters {
  rejectedMessages: number;
  ignoredOrders: number;
  statesPublished: number;
}

export class SimRobot {
  readonly manufacturer: string;
  readonly serialNumber: string;
  readonly model: RobotModel;
  readonly counters: SimRobotCounters = { rejectedMessages: 0, ignoredOrders: 0, statesPublished: 0 };

  private readonly options: SimRobotOptions;
  private readonly timeFactor: number;
  private readonly stateIntervalMs: number;
  private readonly tickMs: number;
  private client: MqttClient | null = null;
  private ticker: NodeJS.Timeout | null = null;
  private lastTickAt = 0;
  private lastStateAt = 0;
  private readonly headerIds: Record<VdaTopicName, number> = {
    order: 0,
    instantActions: 0,
    state: 0,
    connection: 0,
    factsheet: 0,
    visualization: 0,
  };
  private readonly listeners = new Set<SimStateListener>();
  private latest: StateMessage | undefined;
  private silent = false;

  constructor(options: SimRobotOptions) {
    this.options = options;
    this.manufacturer = options.manufacturer;
    this.serialNumber = options.serialNumber;
    this.timeFactor = options.timeFactor ?? 1;
    this.stateIntervalMs = options.stateIntervalMs ?? 1000;
    this.tickMs = options.tickMs ?? 100;
    this.model = new RobotModel(options);
  }

  /** Connects and starts the clock; resolves once connected, rejects when the broker refuses the login. */
  async start(): Promise<void> {
    if (this.client) return;
    const will = this.header('connection');
    const willPayload: ConnectionMessage = { ...will, connectionState: 'CONNECTIONBROKEN' };
    const client = mqtt.connect(this.options.brokerUrl, {
      clientId: `${this.manufacturer}-${this.serialNumber}-${randomUUID().slice(0, 8)}`,
      username: this.options.username ?? `${this.manufacturer}/${this.serialNumber}`,
      ...(this.options.password === undefined ? {} : { password: this.options.password }),
      clean: true,
      keepalive: this.options.keepalive ?? 60,
      reconnectPeriod: 1000,
      connectTimeout: 10_000,
      will: { topic: this.topic('connection'), payload: Buffer.from(JSON.stringify(willPayload)), qos: 1, retain: true },
    });
    this.client = client;
    client.on('connect', () => { this.onConnect(client); });
    client.on('message', (topic, payload) => { this.onMessage(topic, payload); });
    // The dead man's switch: the lamp goes off the moment the link to the controller is lost (RobotModel.loseLink).
    client.on('close', () => { this.model.loseLink(); });
    await new Promise<void>((resolve, reject) => {
      const onConnect = () => {
        client.off('error', onError);
        resolve();
      };
      const onError = (error: Error) => {
        client.off('connect', onConnect);
        this.client = null;
        client.end(true);
        reject(error);
      };
      client.once('connect', onConnect);
      client.once('error', onError);
    });
    this.lastTickAt = performance.now();
    this.ticker = setInterval(() => { this.tick(); }, this.tickMs);
  }

  /** Clean shutdown: connection OFFLINE (retained), then disconnect, so no last will is published. */
  async stop(): Promise<void> {
    const client = this.client;
    if (!client) return;
    this.stopClock();
    this.client = null;
    if (client.connected) {
      await client.publishAsync(this.topic('connection'), this.json({ ...this.header('connection'), connectionState: 'OFFLINE' }), {
        qos: 1,
        retain: true,
      });
    }
    await client.endAsync();
  }

  /** Drops the connection without a goodbye, as a robot losing power does: the broker publishes the last will. */
  async kill(): Promise<void> {
    const client = this.client;
    if (!client) return;
    this.stopClock();
    this.client = null;
    // Destroying the socket first guarantees no DISCONNECT packet reaches the broker.
    client.stream.destroy();
    await client.endAsync(true);
  }

  /** While silent the robot stays connected but publishes no state (to test stale detection). */
  setSilent(silent: boolean): void {
    this.silent = silent;
  }

  setOperatingMode(mode: OperatingMode): void {
    this.model.setOperatingMode(mode);
    this.flush();
  }

  setBattery(percent: number): void {
    this.model.setBattery(percent);
    this.flush();
  }

  get kind(): SimRobotKind {
    return this.model.kind;
  }

  /** A delivery robot's drawer now. */
  get drawer(): DrawerState {
    return this.model.drawer;
  }

  /** The PINs entered at the robot, each with the server's answer once it came (attempts_left, locked). */
  get pinEntries(): readonly PinEntry[] {
    return this.model.pinEntries;
  }

  /** The button at a delivery robot waiting in its pick: loaded. Returns false when it was not waiting for loading. */
  confirmLoading(): boolean {
    const confirmed = this.model.confirmLoading();
    this.flush();
    return confirmed;
  }

  /** A PIN typed on the robot's screen at the drop-off; returns its pin_attempt_id, or null when no hand-off waits for one. */
  enterPin(pin: string): string | null {
    const attempt = this.model.enterPin(pin);
    this.flush();
    return attempt;
  }

  /** The way ahead is blocked for `durationMs` (real time): the robot stops and reports uvd_path_blocked until it passes. */
  blockPath(durationMs: number): void {
    this.model.blockPath(durationMs * this.timeFactor);
    this.flush();
  }

  /** Whether the UV-C lamp is on now (RobotModel.lampOn). */
  get lampOn(): boolean {
    return this.model.lampOn;
  }

  /** The room the lamp irradiates now, or null (RobotModel.lampRoomId). */
  get lampRoomId(): string | null {
    return this.model.lampRoomId;
  }

  get connected(): boolean {
    return this.client?.connected ?? false;
  }

  /** The last state published. */
  get state(): StateMessage | undefined {
    return this.latest;
  }

  /** Called with every state the robot publishes. */
  onState(listener: SimStateListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Resolves with the first published state (including the current one) that satisfies `predicate`. */
  waitForState(predicate: (state: StateMessage) => boolean, timeoutMs = 10_000): Promise<StateMessage> {
    if (this.latest && predicate(this.latest)) return Promise.resolve(this.latest);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        off();
        reject(new Error(`${this.serialNumber}: no matching state within ${timeoutMs} ms`));
      }, timeoutMs);
      const off = this.onState((state) => {
        if (!predicate(state)) return;
        clearTimeout(timer);
        off();
        resolve(state);
      });
    });
  }

  private stopClock(): void {
    if (this.ticker) clearInterval(this.ticker);
    this.ticker = null;
  }

  private onConnect(client: MqttClient): void {
    client.subscribe([this.topic('order'), this.topic('instantActions')], { qos: 1 });
    client.publish(this.topic('connection'), this.json({ ...this.header('connection'), connectionState: 'ONLINE' satisfies ConnectionState }), {
      qos: 1,
      retain: true,
    });
    client.publish(this.topic('factsheet'), this.json(this.factsheet()), { qos: 1, retain: true });
    this.publishState();
  }

  private onMessage(topic: string, payload: Buffer): void {
    let json: unknown;
    try {
      json = JSON.parse(payload.toString('utf8'));
    } catch {
      this.counters.rejectedMessages += 1;
      return;
    }
    if (topic === this.topic('order')) {
      const order = OrderMessage.safeParse(json);
      if (!order.success || !this.addressedToMe(order.data)) {
        this.counters.rejectedMessages += 1;
        return;
      }
      if (!this.model.receiveOrder(order.data)) this.counters.ignoredOrders += 1;
    } else if (topic === this.topic('instantActions')) {
      const actions = InstantActionsMessage.safeParse(json);
      if (!actions.success || !this.addressedToMe(actions.data)) {
        this.counters.rejectedMessages += 1;
        return;
      }
      this.model.receiveInstantActions(actions.data);
    } else {
      return;
    }
    this.flush();
  }

  private addressedToMe(header: { manufacturer: string; serialNumber: string }): boolean {
    return header.manufacturer === this.manufacturer && header.serialNumber === this.serialNumber;
  }

  private tick(): void {
    const now = performance.now();
    const seconds = ((now - this.lastTickAt) / 1000) * this.timeFactor;
    this.lastTickAt = now;
    this.model.advance(seconds, () => { this.flush(); });
    this.flush();
    if (now - this.lastStateAt >= this.stateIntervalMs) this.publishState();
  }

  /** Publishes a state now when something changed. */
  private flush(): void {
    if (this.model.takeChanged()) this.publishState();
  }

  private publishState(): void {
    const client = this.client;
    if (!client?.connected || this.silent) return;
    const state: StateMessage = { ...this.header('state'), ...this.model.state() };
    this.lastStateAt = performance.now();
    this.latest = state;
    this.counters.statesPublished += 1;
    // VDA 5050 sends state with QoS 0: the next one follows within a second anyway.
    client.publish(this.topic('state'), this.json(state), { qos: 0 });
    for (const listener of this.listeners) listener(state);
  }

  private header(topic: VdaTopicName) {
    const headerId = this.headerIds[topic];
    this.headerIds[topic] = headerId + 1;
    return {
      headerId,
      timestamp: new Date().toISOString(),
      version: VDA_VERSION,
      manufacturer: this.manufacturer,
      serialNumber: this.serialNumber,
    };
  }

  private topic(name: VdaTopicName): string {
    return vdaTopic(this.manufacturer, this.serialNumber, name);
  }

  private json(message: unknown): Buffer {
    return Buffer.from(JSON.stringify(message));
  }

  private factsheet(): FactsheetMessage {
    const speed = this.options.speed ?? 0.5;
    const delivery = this.model.kind === 'delivery';
    const workActions = delivery
      ? [
          { actionType: VdaLoadAction.pick, actionScopes: ['NODE' as const] },
          { actionType: VdaLoadAction.drop, actionScopes: ['NODE' as const] },
          { actionType: UvdActionType.loadingConfirmed, actionScopes: ['INSTANT' as const] },
          { actionType: UvdActionType.handoffConfirmed, actionScopes: ['INSTANT' as const] },
          { actionType: UvdActionType.handoffRefused, actionScopes: ['INSTANT' as const] },
        ]
      : [
          { actionType: UvdActionType.disinfect, actionScopes: ['NODE' as const] },
          { actionType: UvdActionType.operatorDecision, actionScopes: ['INSTANT' as const] },
        ];
    return {
      ...this.header('factsheet'),
      typeSpecification: {
        seriesName: delivery ? 'UVD simulated delivery robot' : 'UVD simulated robot',
        seriesDescription: delivery
          ? 'Simulated hospital delivery robot with a lockable drawer (apps/robot-sim)'
          : 'Simulated UV-C disinfection robot (apps/robot-sim)',
        agvKinematic: 'DIFF',
        agvClass: 'CARRIER',
        maxLoadMass: 0,
        localizationTypes: ['NATURAL'],
        navigationTypes: ['AUTONOMOUS'],
      },
      physicalParameters: { speedMin: 0, speedMax: speed, accelerationMax: 0.5, decelerationMax: 0.5, heightMin: 1.2, heightMax: 1.2, width: 0.6, length: 0.6 },
      // VDA 5050 2.0's factsheet schema requires the three objects; a limit left out (or 0) means none. States
      // go out on every change (at most once a tick) and at least every stateIntervalMs.
      protocolLimits: {
        maxStringLens: {},
        maxArrayLens: {},
        timing: { minOrderInterval: 0, minStateInterval: this.tickMs / 1000, defaultStateInterval: this.stateIntervalMs / 1000 },
      },
      protocolFeatures: {
        optionalParameters: [],
        agvActions: [
          ...workActions,
          { actionType: VdaInstantAction.pause, actionScopes: ['INSTANT'] },
          { actionType: VdaInstantAction.resume, actionScopes: ['INSTANT'] },
          { actionType: VdaInstantAction.cancel, actionScopes: ['INSTANT'] },
          { actionType: UvdActionType.goHome, actionScopes: ['INSTANT'] },
          { actionType: UvdActionType.ping, actionScopes: ['INSTANT'] },
        ],
      },
      agvGeometry: {},
      loadSpecification: {},
    };
  }
}
