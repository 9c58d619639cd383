/**
 * The hand-off PIN: made when a delivery is requested (shown once to the sender, pushed to the recipient, kept
 * only as an argon2id hash), checked when the recipient enters it in the console or at the robot. The third wrong
 * PIN locks the hand-off and alerts the sender and the admins (`delivery_handoff_locked` on the deliveries stream).
 */
import { randomInt } from 'node:crypto';
import { DELIVERY_HANDOFF_LOCKED_EVENT, DeliveryRefusal, DeliveryStatus, HANDOFF_PIN_ATTEMPTS, HANDOFF_PIN_LENGTH, type DeliveryHandoffLocked, type DeliveryPlace } from '@uvd/contracts';
import type { AppContext } from '../context.ts';
import type { Tx } from '../db/client.ts';
import { hashPassword, verifyPassword } from '../identity/passwords.ts';
import { conflict } from '../lib/http-error.ts';
import { confirmHandoffOnRobot, refuseHandoffOnRobot } from '../robot-link/deliveries/commands.ts';
import { recordCustody, updateDelivery, type Actor, type DeliveryRow } from './lifecycle.ts';

export { DELIVERY_HANDOFF_LOCKED_EVENT };

export const generatePin = (): string => randomInt(0, 10 ** HANDOFF_PIN_LENGTH).toString().padStart(HANDOFF_PIN_LENGTH, '0');
export const hashPin = (pin: string): Promise<string> => hashPassword(pin);

/** 409 unless the robot waits at the drop-off for the recipient and the hand-off is neither locked nor done. */
export function assertHandoffOpen(delivery: DeliveryRow): void {
  if (delivery.status === DeliveryStatus.delivered || delivery.status === DeliveryStatus.cancelled) {
    throw conflict('The delivery has ended.', DeliveryRefusal.deliveryFinished, { status: delivery.status });
  }
  if (delivery.handoffLockedAt) {
    throw conflict('Three wrong PINs locked the hand-off: the sender or an administrator must act.', DeliveryRefusal.handoffLocked);
  }
  if (delivery.status !== DeliveryStatus.waiting || delivery.waitingFor !== 'recipient' || delivery.handoffVerifiedAt) {
    throw conflict('The robot is not waiting for the recipient.', DeliveryRefusal.notWaiting, { status: delivery.status });
  }
}

export interface HandoffAttempt {
  actor: Actor;
  source: 'console' | 'robot';
  /** A PIN entered at the robot: the robot's id of the entry, which the answer carries back. */
  pinAttemptId?: string;
  /** The robot's time of a PIN entered at the robot. */
  at?: Date;
  place?: DeliveryPlace | null;
}

export type HandoffResult = { ok: true; delivery: DeliveryRow } | { ok: false; attemptsLeft: number; locked: boolean; delivery: DeliveryRow };

/**
 * Checks `pin` against the locked, open delivery (assertHandoffOpen) and records the outcome in `tx`: right, the
 * custody step `received` and uvd_handoff_confirmed to the robot; wrong, `handoff_failed` (and on the third,
 * `handoff_locked` and the alert). A PIN entered at the robot is answered at the robot either way.
 */
export async function checkHandoffPin(
  ctx: Pick<AppContext, 'bus' | 'fleet'>,
  tx: Tx,
  delivery: DeliveryRow,
  pin: string,
  attempt: HandoffAttempt,
): Promise<HandoffResult> {
  const at = attempt.at ?? new Date();
  if (await verifyPassword(delivery.pinHash, pin.trim())) {
    const updated = await updateDelivery(ctx, tx, delivery, { handoffVerifiedAt: at });
    await recordCustody(tx, delivery, 'received', { at, user: attempt.actor, place: attempt.place ?? null, detail: attempt.source });
    await confirmHandoffOnRobot(ctx, tx, updated, attempt.pinAttemptId);
    return { ok: true, delivery: updated };
  }
  const failures = delivery.pinFailures + 1;
  const locked = failures >= HANDOFF_PIN_ATTEMPTS;
  const attemptsLeft = Math.max(0, HANDOFF_PIN_ATTEMPTS - failures);
  const updated = await updateDelivery(ctx, tx, delivery, { pinFailures: failures, ...(locked ? { handoffLockedAt: at } : {}) });
  await recordCustody(tx, delivery, 'handoff_failed', { at, user: attempt.actor, detail: attempt.source });
  if (locked) {
    await recordCustody(tx, delivery, 'handoff_locked', { at, detail: attempt.source });
    await ctx.bus.publish(
      {
        orgId: delivery.orgId,
        stream: 'deliveries',
        key: delivery.id,
        type: DELIVERY_HANDOFF_LOCKED_EVENT,
        payload: { delivery_id: delivery.id, robot_id: delivery.robotId, requested_by_id: delivery.requestedById } satisfies DeliveryHandoffLocked,
      },
      tx,
    );
  }
  if (attempt.source === 'robot' && attempt.pinAttemptId) await refuseHandoffOnRobot(ctx, tx, updated, attempt.pinAttemptId, attemptsLeft, locked);
  return { ok: false, attemptsLeft, locked, delivery: updated };
}
