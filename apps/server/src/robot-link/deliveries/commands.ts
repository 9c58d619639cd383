/**
 * What a delivery robot is told about its delivery besides the order (order.ts): cancel, pause and resume, the
 * sender's loading confirmation and the answers to a hand-off PIN. Each is recorded in the outbox by the
 * transaction that decides it (robot-link/outbox.ts) with the delivery's id, and sent after it commits; a delivery's
 * open pause, resume or cancel is its `pending_command` until the robot reports it.
 */
import { randomUUID } from 'node:crypto';
import { DeliveryRefusal, UvdActionType, type VdaAction } from '@uvd/contracts';
import type { AppContext } from '../../context.ts';
import type { Tx } from '../../db/client.ts';
import type { DeliveryRow } from '../../deliveries/lifecycle.ts';
import { conflict } from '../../lib/http-error.ts';
import { instantActionsOf } from '../commands.ts';
import { recordCommand, type NewCommand } from '../outbox.ts';
import { lockRobot, type ExecutionRobot } from '../repository.ts';

/** The actionIds of a delivery's pick and drop: one per dispatch, so a robot taking it again gets new ones. */
export const pickActionId = (deliveryId: string, attempt: number) => `pick-${deliveryId}-${attempt}`;
export const dropActionId = (deliveryId: string, attempt: number) => `drop-${deliveryId}-${attempt}`;
/** The delivery and dispatch a pick's or drop's actionId names; undefined for any other action id. */
export const parseLoadActionId = (actionId: string): { kind: 'pick' | 'drop'; deliveryId: string; attempt: number } | undefined => {
  const match = /^(pick|drop)-(.+)-(\d+)$/.exec(actionId);
  return match?.[1] && match[2] && match[3] ? { kind: match[1] === 'pick' ? 'pick' : 'drop', deliveryId: match[2], attempt: Number(match[3]) } : undefined;
};

type Context = Pick<AppContext, 'fleet'>;

const carrier = async (tx: Tx, delivery: DeliveryRow): Promise<ExecutionRobot | undefined> =>
  delivery.robotId ? lockRobot(tx, delivery.orgId, delivery.robotId) : undefined;

const record = (tx: Tx, delivery: DeliveryRow, robot: ExecutionRobot, kind: NewCommand['kind'], actions: VdaAction[]) =>
  recordCommand(tx, { orgId: delivery.orgId, robotId: robot.id, jobId: null, deliveryId: delivery.id, kind, body: { actions } });

/**
 * Tells the robot carrying the delivery, if any, to cancel its order (cancelOrder then stopPause, as a job's stop).
 * Like a stop, it is resent until the robot takes it and never given up: the robot may come back online later.
 */
export async function cancelOnRobot(_ctx: Context, tx: Tx, delivery: DeliveryRow): Promise<boolean> {
  const robot = await carrier(tx, delivery);
  if (!robot) return false;
  await record(tx, delivery, robot, 'stop', instantActionsOf({ kind: 'stop', jobId: delivery.id }));
  return true;
}

/** Pause or resume of the robot carrying the delivery: 409 robot_offline when it is not online. */
export async function pauseOrResumeOnRobot(ctx: Context, tx: Tx, delivery: DeliveryRow, command: 'pause' | 'resume'): Promise<void> {
  const robot = await carrier(tx, delivery);
  if (!robot) throw conflict('No robot carries this delivery yet.', DeliveryRefusal.deliveryState, { status: delivery.status });
  if (!ctx.fleet.isOnline(robot.id)) throw conflict(`Robot "${robot.name}" is offline: it cannot take commands.`, DeliveryRefusal.robotOffline);
  await record(tx, delivery, robot, command, instantActionsOf({ kind: command, jobId: delivery.id }));
}

/** The sender confirmed loading: the robot waiting in its pick closes the drawer and finishes the pick. */
export async function confirmLoadingOnRobot(_ctx: Context, tx: Tx, delivery: DeliveryRow): Promise<void> {
  const robot = await carrier(tx, delivery);
  if (!robot) return;
  await record(tx, delivery, robot, 'loading_confirmed', [
    {
      actionType: UvdActionType.loadingConfirmed,
      actionId: `loaded-${delivery.id}-${randomUUID()}`,
      blockingType: 'NONE',
      actionParameters: [{ key: 'delivery_id', value: delivery.id }, { key: 'action_id', value: pickActionId(delivery.id, delivery.dispatchAttempts) }],
    },
  ]);
}

/** The PIN was right: the robot waiting in its drop unlocks the drawer. `pinAttemptId` answers a PIN entered at the robot. */
export async function confirmHandoffOnRobot(_ctx: Context, tx: Tx, delivery: DeliveryRow, pinAttemptId?: string): Promise<void> {
  const robot = await carrier(tx, delivery);
  if (!robot) return;
  await record(tx, delivery, robot, 'handoff_confirmed', [
    {
      actionType: UvdActionType.handoffConfirmed,
      actionId: `handoff-${delivery.id}-${randomUUID()}`,
      blockingType: 'NONE',
      actionParameters: [
        { key: 'delivery_id', value: delivery.id },
        { key: 'action_id', value: dropActionId(delivery.id, delivery.dispatchAttempts) },
        ...(pinAttemptId ? [{ key: 'pin_attempt_id', value: pinAttemptId }] : []),
      ],
    },
  ]);
}

/** A PIN entered at the robot was wrong: the robot shows the attempts left, or that the hand-off is locked. */
export async function refuseHandoffOnRobot(
  _ctx: Context,
  tx: Tx,
  delivery: DeliveryRow,
  pinAttemptId: string,
  attemptsLeft: number,
  locked: boolean,
): Promise<void> {
  const robot = await carrier(tx, delivery);
  if (!robot) return;
  await record(tx, delivery, robot, 'handoff_refused', [
    {
      actionType: UvdActionType.handoffRefused,
      actionId: `refused-${delivery.id}-${randomUUID()}`,
      blockingType: 'NONE',
      actionParameters: [
        { key: 'delivery_id', value: delivery.id },
        { key: 'pin_attempt_id', value: pinAttemptId },
        { key: 'attempts_left', value: attemptsLeft },
        { key: 'locked', value: locked },
      ],
    },
  ]);
}
