/**
 * A delivery robot's states moving its delivery (deliveries/README.md, "Statuses"): every state of a delivery robot
 * whose orderId is the id of the delivery it carries, for the current dispatch's pick and drop, changes the
 * delivery: In transit, Waiting (loading at the pickup, the recipient at the drop-off), Paused, Blocked and back,
 * the drawer, a PIN entered at the robot, and Delivered when the drop finished after the PIN was verified. Each
 * step goes into the chain of custody with the robot's time (the state's timestamp) and place. Changes are made
 * with the delivery's row locked and only when they change something, so a state handled by two processes, or
 * resent, writes once; a PIN entered at the robot is answered once per pin_attempt_id, the answer (an outbox
 * command carrying the id) being the record that it was.
 *
 * The hand-back sweep: a delivery not yet loaded whose robot has been blocked (or failed) or offline longer than
 * `DELIVERY_HANDBACK_MS` goes back to the queue (custody `requeued`, the robot told to cancel), or to Blocked after
 * `DELIVERY_MAX_DISPATCHES` robots; a loaded one stays with its robot, Blocked. A delivery whose order the outbox gave
 * up (the robot never took it) is handed back at the next sweep (reason `order_undelivered`).
 */
import { and, desc, eq, inArray, isNotNull, sql } from 'drizzle-orm';
import { DeliveryReason, DeliveryStatus, HANDOFF_PIN_ATTEMPTS, type CustodyStepKind, type DeliveryPlace } from '@uvd/contracts';
import type { AppContext } from '../../context.ts';
import type { Tx } from '../../db/client.ts';
import { deliveries, robotCommands, robots } from '../../db/schema.ts';
import { assertHandoffOpen, checkHandoffPin } from '../../deliveries/handoff.ts';
import { isFinalStatus, lockDelivery, recordCustody, updateDelivery, type CustodyInput, type DeliveryRow } from '../../deliveries/lifecycle.ts';
import { HttpError } from '../../lib/http-error.ts';
import type { DeliveryReport, LoadActionReport, StateEvent } from '../events.ts';
import { PerRobotQueue } from '../per-robot-queue.ts';
import { cancelOnRobot, dropActionId, refuseHandoffOnRobot } from './commands.ts';
import { CARRIED_STATUSES } from './dispatcher.ts';


type Context = Pick<AppContext, 'db' | 'bus' | 'fleet' | 'commands' | 'config'>;

export interface ProgressStep {
  step: CustodyStepKind;
  detail?: string;
  /** The room of the step's place: the pickup's or the drop-off's. */
  room?: 'pickup' | 'dropoff';
}

export interface DeliveryChange {
  changes: Partial<DeliveryRow>;
  /** In the order they happened; recorded before the delivery's change (a Delivered delivery takes no more). */
  steps: ProgressStep[];
}

const runs = (action: LoadActionReport | undefined) =>
  action?.status === 'RUNNING' || action?.status === 'PAUSED' || action?.status === 'INITIALIZING';

/**
 * Pure: what a state (`report`, `paused`) changes in the delivery `row` carried by the reporting robot, at the
 * robot's time `at`. Only the pick and drop of the delivery's current dispatch count. Phases are kept in
 * `waiting_for`: null on the way to the pickup, `loading` from the arrival there, `recipient` from the departure
 * (with `waiting_since` null until the robot arrives at the drop-off).
 */
export function reduceDelivery(row: DeliveryRow, report: DeliveryReport, paused: boolean, at: Date): DeliveryChange {
  const pick = report.pick?.attempt === row.dispatchAttempts ? report.pick : undefined;
  const drop = report.drop?.attempt === row.dispatchAttempts ? report.drop : undefined;
  const changes: Partial<DeliveryRow> = {};
  const steps: ProgressStep[] = [];

  // The stop the robot stands at in a phase: the pickup while loading, the drop-off once it arrived there.
  const stopOf = (phase: DeliveryRow['waitingFor'], since: Date | null): ProgressStep['room'] =>
    phase === 'loading' ? 'pickup' : phase === 'recipient' && since !== null ? 'dropoff' : undefined;
  let drawerStep: 'drawer_opened' | 'drawer_closed' | undefined;
  if (report.drawer && report.drawer !== row.drawer) {
    changes.drawer = report.drawer;
    // The first report of a closed drawer is no step; every opening and closing after is.
    if (row.drawer !== null || report.drawer === 'open') drawerStep = report.drawer === 'open' ? 'drawer_opened' : 'drawer_closed';
  }
  // A drawer closed is told before the departure or the delivery it allows, at the stop where it was open.
  if (drawerStep === 'drawer_closed') steps.push({ step: drawerStep, room: stopOf(row.waitingFor, row.waitingSince) });

  const failed = pick?.status === 'FAILED' ? DeliveryReason.pickFailed : drop?.status === 'FAILED' ? DeliveryReason.dropFailed : undefined;
  let trouble: string | undefined = report.fatal ? DeliveryReason.robotError : report.pathBlocked ? DeliveryReason.pathBlocked : failed;
  const delivered = drop?.status === 'FINISHED';
  if (delivered && row.handoffVerifiedAt === null) trouble ??= DeliveryReason.dropWithoutHandoff;

  let waitingFor = row.waitingFor;
  let waitingSince = row.waitingSince;
  const depart = () => {
    if (row.loadedAt === null && changes.loadedAt === undefined) {
      changes.loadedAt = at;
      steps.push({ step: 'loaded', detail: 'robot', room: 'pickup' });
    }
    steps.push({ step: 'departed', room: 'pickup' });
    waitingFor = 'recipient';
    waitingSince = null;
  };
  if (!trouble) {
    // The phases, each entered once even when states in between were not seen.
    if ((runs(pick) || pick?.status === 'FINISHED') && waitingFor === null) {
      steps.push({ step: 'arrived', detail: 'pickup', room: 'pickup' });
      waitingFor = 'loading';
      waitingSince = at;
    }
    if ((pick?.status === 'FINISHED' || runs(drop) || delivered) && waitingFor === 'loading') depart();
    if ((runs(drop) || delivered) && waitingFor === 'recipient' && waitingSince === null) {
      steps.push({ step: 'arrived', detail: 'dropoff', room: 'dropoff' });
      waitingSince = at;
    }
  }
  // A drawer opened is told after the arrival that opened it, at that stop.
  if (drawerStep === 'drawer_opened') steps.push({ step: drawerStep, room: stopOf(waitingFor, waitingSince) });
  if (waitingFor !== row.waitingFor) changes.waitingFor = waitingFor;
  if (waitingSince?.getTime() !== row.waitingSince?.getTime()) changes.waitingSince = waitingSince;

  let status: DeliveryStatus;
  if (trouble) status = DeliveryStatus.blocked;
  else if (delivered) status = DeliveryStatus.delivered;
  else if (paused) status = DeliveryStatus.paused;
  else if ((waitingFor === 'loading' && runs(pick)) || (waitingFor === 'recipient' && waitingSince !== null && runs(drop))) status = DeliveryStatus.waiting;
  else status = DeliveryStatus.inTransit;

  if (status !== row.status) {
    if (row.status === DeliveryStatus.blocked) steps.push({ step: 'unblocked', detail: row.reason ?? undefined });
    if (row.status === DeliveryStatus.paused && status !== DeliveryStatus.blocked) steps.push({ step: 'resumed' });
    if (status === DeliveryStatus.blocked && trouble) {
      steps.push({ step: 'blocked', detail: trouble });
      changes.reason = trouble;
      changes.troubleSince = at;
    }
    if (row.status === DeliveryStatus.blocked && status !== DeliveryStatus.blocked) changes.troubleSince = null;
    if (status === DeliveryStatus.paused) steps.push({ step: 'paused' });
    if (status === DeliveryStatus.delivered) {
      steps.push({ step: 'delivered', room: 'dropoff' });
      changes.deliveredAt = at;
    }
    changes.status = status;
  } else if (status === DeliveryStatus.blocked && trouble && trouble !== row.reason) {
    changes.reason = trouble;
  }
  return { changes, steps };
}

/** The key of what a state says of its delivery: a state with the key of the robot's last handled one changes nothing. */
const reportKey = (event: StateEvent): string =>
  JSON.stringify([event.delivery, event.order.paused, event.order.orderId]);

export interface DeliveryProgress {
  /** Queues one state event of its robot; settles when handled. */
  handleEvent(event: StateEvent): Promise<void>;
  /** Forget the robot's last handled state (it went away or came back: the same report may mean something new). */
  forget(robotId: string): void;
  /** Hands back (or blocks) the deliveries whose robot was in trouble too long; returns the deliveries changed. */
  sweepHandBacks(now?: number): Promise<string[]>;
  idle(): Promise<void>;
}

/**
 * Takes `row` (locked, carried by a robot) from its robot: back to the queue with `reason` (custody `requeued`), or
 * Blocked after DELIVERY_MAX_DISPATCHES robots; the robot is told to cancel its order (never given up).
 */
export async function handBack(ctx: Context, tx: Tx, row: DeliveryRow, reason: string): Promise<DeliveryRow> {
  const [robot] = row.robotId ? await tx.select({ id: robots.id, name: robots.name }).from(robots).where(eq(robots.id, row.robotId)) : [];
  await cancelOnRobot(ctx, tx, row);
  const cleared = { robotId: null, waitingFor: null, waitingSince: null, drawer: null } as const;
  if (row.dispatchAttempts >= ctx.config.deliveryMaxDispatches) {
    await recordCustody(tx, row, 'blocked', { robot: robot ?? null, place: row.lastPlace, detail: DeliveryReason.handbackLimit });
    return updateDelivery(ctx, tx, row, { ...cleared, status: DeliveryStatus.blocked, reason: DeliveryReason.handbackLimit, troubleSince: new Date() });
  }
  await recordCustody(tx, row, 'requeued', { robot: robot ?? null, place: row.lastPlace, detail: reason });
  return updateDelivery(ctx, tx, row, { ...cleared, status: DeliveryStatus.queued, reason, troubleSince: null });
}

/**
 * Whether the robot never got the delivery's order: the outbox gave up its last order to that robot (not
 * acknowledged in time, or superseded) and the robot does not report it.
 */
async function orderLost(ctx: Pick<Context, 'fleet'>, tx: Tx, row: DeliveryRow & { robotId: string }): Promise<boolean> {
  if (row.status !== DeliveryStatus.inTransit || row.loadedAt !== null || ctx.fleet.link(row.robotId)?.lastNode?.orderId === row.id) return false;
  const [order] = await tx
    .select({ state: robotCommands.state })
    .from(robotCommands)
    .where(and(eq(robotCommands.deliveryId, row.id), eq(robotCommands.robotId, row.robotId), eq(robotCommands.kind, 'order')))
    .orderBy(desc(robotCommands.seq))
    .limit(1);
  return order?.state === 'undelivered';
}

/** Whether a PIN entry was answered already (its answer, an outbox command, carries its pin_attempt_id). */
async function pinAnswered(tx: Tx, deliveryId: string, pinAttemptId: string): Promise<boolean> {
  const answer = JSON.stringify({ actions: [{ actionParameters: [{ key: 'pin_attempt_id', value: pinAttemptId }] }] });
  const [row] = await tx
    .select({ id: robotCommands.id })
    .from(robotCommands)
    .where(and(eq(robotCommands.deliveryId, deliveryId), sql`${robotCommands.body} @> ${answer}::jsonb`))
    .limit(1);
  return row !== undefined;
}

export function createDeliveryProgress(ctx: Context, onError: (error: unknown, message: string) => void): DeliveryProgress {
  const handled = new Map<string, string>();

  const apply = async (event: StateEvent): Promise<boolean> => {
    const deliveryId = event.delivery.deliveryId;
    if (!deliveryId) return false;
    const at = new Date(event.robotTime);
    const position = event.order.position;
    return ctx.db.transaction(async (tx) => {
      const row = await lockDelivery(tx, event.robot.orgId, deliveryId);
      if (!row || row.robotId !== event.robot.robotId || row.status === DeliveryStatus.queued || isFinalStatus(row.status)) return false;
      const [robot] = await tx.select({ id: robots.id, name: robots.name }).from(robots).where(eq(robots.id, event.robot.robotId));
      const placeAt = (room: 'pickup' | 'dropoff' | undefined): DeliveryPlace | null =>
        position
          ? { floor_id: position.floorId, x: position.x, y: position.y, room_id: room === 'pickup' ? row.pickupRoomId : room === 'dropoff' ? row.dropoffRoomId : null }
          : null;
      const { changes, steps } = reduceDelivery(row, event.delivery, event.order.paused, at);
      for (const step of steps) {
        const input: CustodyInput = { at, robot: robot ?? null, place: placeAt(step.room), detail: step.detail ?? null };
        await recordCustody(tx, row, step.step, input);
      }
      let current = row;
      if (Object.keys(changes).length > 0) current = await updateDelivery(ctx, tx, row, { ...changes, lastPlace: placeAt(undefined) ?? row.lastPlace });
      // PINs typed at the robot for this dispatch's drop, each answered once.
      const dropId = dropActionId(row.id, row.dispatchAttempts);
      for (const pin of event.delivery.pins) {
        if (pin.actionId !== dropId || (await pinAnswered(tx, row.id, pin.pinAttemptId))) continue;
        try {
          assertHandoffOpen(current);
        } catch (error) {
          if (!(error instanceof HttpError)) throw error;
          await refuseHandoffOnRobot(ctx, tx, current, pin.pinAttemptId, Math.max(0, HANDOFF_PIN_ATTEMPTS - current.pinFailures), current.handoffLockedAt !== null);
          continue;
        }
        const result = await checkHandoffPin(ctx, tx, current, pin.pin, {
          actor: { userId: current.recipientUserId, name: current.recipientName ?? '' },
          source: 'robot',
          pinAttemptId: pin.pinAttemptId,
          at,
          place: placeAt('dropoff'),
        });
        current = result.delivery;
      }
      return true;
    });
  };

  const queues = new PerRobotQueue<StateEvent>({
    handle: async (event, robotId) => {
      const key = reportKey(event);
      if (handled.get(robotId) === key) return;
      // A PIN's answer may have been recorded: the outbox sends it now.
      if (await apply(event)) ctx.commands.wake();
      handled.set(robotId, key);
    },
    onError: (error, _event, robotId) => {
      onError(error, `the delivery of robot ${robotId} could not follow its state`);
    },
    // A later state that says the same of the delivery stands for the waiting one.
    coalesce: (last, event) => (reportKey(last) === reportKey(event) ? event : undefined),
  });

  return {
    handleEvent(event) {
      if (!event.delivery.deliveryId) return Promise.resolve();
      return queues.push(event.robot.robotId, event);
    },

    forget(robotId) {
      handled.delete(robotId);
    },

    async sweepHandBacks(now = Date.now()) {
      const carried = await ctx.db
        .select({ id: deliveries.id, orgId: deliveries.orgId })
        .from(deliveries)
        .where(and(inArray(deliveries.status, [...CARRIED_STATUSES]), isNotNull(deliveries.robotId)));
      const changed: string[] = [];
      for (const { id, orgId } of carried) {
        try {
          const done = await ctx.db.transaction(async (tx) => {
            const row = await lockDelivery(tx, orgId, id);
            if (!row?.robotId || !CARRIED_STATUSES.includes(row.status)) return false;
            // Its order never reached the robot: back to the queue at once (the robot does not know of it).
            if (await orderLost(ctx, tx, { ...row, robotId: row.robotId })) {
              await handBack(ctx, tx, row, DeliveryReason.orderUndelivered);
              return true;
            }
            const [robot] = await tx.select({ lastSeenAt: robots.lastSeenAt }).from(robots).where(eq(robots.id, row.robotId));
            const offline = !ctx.fleet.isOnline(row.robotId);
            const lastHeard = ctx.fleet.link(row.robotId)?.lastHeardAt || robot?.lastSeenAt?.getTime() || row.dispatchedAt?.getTime() || 0;
            const since = offline ? lastHeard : row.status === DeliveryStatus.blocked ? row.troubleSince?.getTime() : undefined;
            if (since === undefined || now - since < ctx.config.deliveryHandbackMs) return false;
            const reason = offline ? DeliveryReason.robotOffline : (row.reason ?? DeliveryReason.pathBlocked);
            if (row.loadedAt === null) {
              await handBack(ctx, tx, row, reason);
              return true;
            }
            // Loaded: its items are in this robot's drawer. It stays with it, Blocked, until the robot goes on or someone cancels.
            if (row.status === DeliveryStatus.blocked) return false;
            await recordCustody(tx, row, 'blocked', { place: row.lastPlace, detail: reason });
            await updateDelivery(ctx, tx, row, { status: DeliveryStatus.blocked, reason, troubleSince: new Date(since) });
            return true;
          });
          if (done) changed.push(id);
        } catch (error) {
          onError(error, `delivery ${id} could not be handed back`);
        }
      }
      if (changed.length > 0) ctx.commands.wake();
      return changed;
    },

    idle: () => queues.idle(),
  };
}
