import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import {
  cancelDelivery,
  commandDelivery,
  confirmLoading,
  CreatedDelivery,
  createDelivery,
  DeliveryDetail,
  DeliveryRefusal,
  DeliveryStatus,
  getDelivery,
  handoffDelivery,
  listDeliveries,
  listDeliveryRecipients,
} from '@uvd/contracts';
import type { AppContext } from '../context.ts';
import type { Tx } from '../db/client.ts';
import { conflict } from '../lib/http-error.ts';
import { idempotencyKey, idempotent } from '../lib/idempotency.ts';
import { registerRoute } from '../lib/route.ts';
import { recordDeliveryPush } from '../notifications/delivery-pushes.ts';
import { cancelOnRobot, confirmLoadingOnRobot, pauseOrResumeOnRobot } from '../robot-link/deliveries/commands.ts';
import { assertHandoffOpen, checkHandoffPin, generatePin, hashPin } from './handoff.ts';
import { actorOf, isFinalStatus, publishDeliveryChange, recordCustody, toDeliveries, toDeliveryDetail, updateDelivery, type DeliveryRow } from './lifecycle.ts';
import * as repository from './repository.ts';

const STATUS_NAMES: Record<DeliveryStatus, string> = {
  [DeliveryStatus.queued]: 'Queued',
  [DeliveryStatus.inTransit]: 'In transit',
  [DeliveryStatus.paused]: 'Paused',
  [DeliveryStatus.waiting]: 'Waiting',
  [DeliveryStatus.delivered]: 'Delivered',
  [DeliveryStatus.cancelled]: 'Cancelled',
  [DeliveryStatus.blocked]: 'Blocked',
};

/** 409 delivery_finished once Delivered or Cancelled: nothing changes it any more. */
export function refuseIfDeliveryFinished(delivery: DeliveryRow): void {
  if (isFinalStatus(delivery.status))
    throw conflict(`The delivery is ${STATUS_NAMES[delivery.status]}: nothing changes it any more.`, DeliveryRefusal.deliveryFinished, {
      status: delivery.status,
    });
}

const stateConflict = (delivery: DeliveryRow, wanted: string) =>
  conflict(`The delivery is ${STATUS_NAMES[delivery.status]}: ${wanted}.`, DeliveryRefusal.deliveryState, { status: delivery.status });

/**
 * The deliveries backend (README.md). Every change runs in one transaction with its custody step, its
 * `delivery_change` and the robot's command (recorded in the outbox, sent after the commit). The creation and
 * the commands take an Idempotency-Key like the job commands: a retried request answers the first reply (the
 * created delivery's PIN included: stored replies are kept a day, lib/idempotency.ts) without a second effect.
 */
export const deliveriesRoutes: FastifyPluginAsync<AppContext> = async (app, ctx) => {
  /** Runs `change` once per Idempotency-Key in a transaction; after the commit, sends what it recorded for robots. */
  const runChange = async <T>(request: FastifyRequest, orgId: string, scope: string, reply: z.ZodType<T>, change: (tx: Tx) => Promise<T>): Promise<T> => {
    const key = idempotencyKey(request);
    const result = await ctx.db.transaction(async (tx) => idempotent(tx, { orgId, key, scope, reply }, () => change(tx)));
    ctx.commands.wake();
    return result;
  };

  registerRoute(app, createDelivery, async ({ body, principal, request, reply }) => {
    const created = await runChange(request, principal.orgId, 'create delivery', CreatedDelivery, async (tx) => {
      const pin = generatePin();
      const row = await repository.insertDelivery(tx, principal, body, await hashPin(pin));
      await recordCustody(tx, row, 'requested', { user: actorOf(principal), detail: 'console' });
      await publishDeliveryChange(ctx, tx, row);
      // The recipient gets the PIN by push, sent once after the commit.
      if (row.recipientUserId)
        await recordDeliveryPush(tx, row.orgId, { kind: 'delivery_requested', deliveryId: row.id, robotId: null, audience: 'recipient', dedupeKey: `delivery_requested:${row.id}`, pin });
      return { ...(await toDeliveryDetail(tx, row)), pin };
    });
    void reply.code(201);
    return created;
  });

  registerRoute(app, listDeliveries, async ({ query, principal }) => {
    const { count, deliveries } = await repository.listDeliveries(ctx.db, principal, query);
    return { count, payload: deliveries };
  });

  // Before /deliveries/:delivery_id (Fastify prefers the static path anyway).
  registerRoute(app, listDeliveryRecipients, async ({ query, principal }) => {
    const { count, recipients } = await repository.listRecipients(ctx.db, principal, query);
    return { count, payload: recipients };
  });

  registerRoute(app, getDelivery, async ({ params, principal }) =>
    toDeliveryDetail(ctx.db, await repository.requireDelivery(ctx.db, principal, params.delivery_id)),
  );

  registerRoute(app, cancelDelivery, async ({ params, principal, request }) =>
    runChange(request, principal.orgId, `cancel ${params.delivery_id}`, DeliveryDetail, async (tx) => {
      const delivery = await repository.requireDelivery(tx, principal, params.delivery_id, true);
      refuseIfDeliveryFinished(delivery);
      // The custody step first: the record closes only at Delivered, and this one belongs to it.
      await recordCustody(tx, delivery, 'cancelled', { user: actorOf(principal), detail: 'console' });
      await cancelOnRobot(ctx, tx, delivery);
      const updated = await updateDelivery(ctx, tx, delivery, { status: DeliveryStatus.cancelled });
      return toDeliveryDetail(tx, updated);
    }),
  );

  registerRoute(app, commandDelivery, async ({ params, query, principal, request }) =>
    runChange(request, principal.orgId, `${query.command} ${params.delivery_id}`, DeliveryDetail, async (tx) => {
      const delivery = await repository.requireDelivery(tx, principal, params.delivery_id, true);
      refuseIfDeliveryFinished(delivery);
      if (query.command === 'pause') {
        if (delivery.status !== DeliveryStatus.inTransit && delivery.status !== DeliveryStatus.waiting)
          throw stateConflict(delivery, 'only a delivery In transit or Waiting can be paused');
      } else if (delivery.status !== DeliveryStatus.paused) {
        // A pause the robot has not yet taken may be taken back.
        const [shown] = await toDeliveries(tx, [delivery]);
        if (shown?.pending_command !== 'pause') throw stateConflict(delivery, 'only a Paused delivery can be resumed');
      }
      await pauseOrResumeOnRobot(ctx, tx, delivery, query.command);
      // The status changes when the robot reports it; until then the delivery shows the pending command.
      await publishDeliveryChange(ctx, tx, delivery);
      return toDeliveryDetail(tx, delivery);
    }),
  );

  registerRoute(app, confirmLoading, async ({ params, principal, request }) =>
    runChange(request, principal.orgId, `loaded ${params.delivery_id}`, DeliveryDetail, async (tx) => {
      const delivery = await repository.requireDelivery(tx, principal, params.delivery_id, true);
      refuseIfDeliveryFinished(delivery);
      if (delivery.status !== DeliveryStatus.waiting || delivery.waitingFor !== 'loading' || delivery.loadedAt !== null)
        throw conflict('The robot is not waiting at the pickup to be loaded.', DeliveryRefusal.notWaiting, { status: delivery.status });
      const at = new Date();
      await recordCustody(tx, delivery, 'loaded', { at, user: actorOf(principal), detail: 'console' });
      const updated = await updateDelivery(ctx, tx, delivery, { loadedAt: at });
      await confirmLoadingOnRobot(ctx, tx, updated);
      return toDeliveryDetail(tx, updated);
    }),
  );

  /**
   * The PIN is the proof: anyone who sees the delivery may enter it (the recipient at another's console, a ward
   * nurse for a colleague). A wrong PIN is committed (the failure count, its custody step, the lock and the alert)
   * before the 409 answers it, so retrying cannot undo a failure.
   */
  registerRoute(app, handoffDelivery, async ({ params, body, principal }) => {
    const outcome = await ctx.db.transaction(async (tx) => {
      const delivery = await repository.requireDelivery(tx, principal, params.delivery_id, true);
      assertHandoffOpen(delivery);
      const result = await checkHandoffPin(ctx, tx, delivery, body.pin, { actor: actorOf(principal), source: 'console' });
      return result.ok ? { ...result, detail: await toDeliveryDetail(tx, result.delivery) } : result;
    });
    ctx.commands.wake();
    if ('detail' in outcome) return outcome.detail;
    if (outcome.locked)
      throw conflict('Three wrong PINs locked the hand-off: the sender or an administrator must act.', DeliveryRefusal.handoffLocked, {
        attempts_left: 0,
      });
    throw conflict(`Wrong PIN: ${outcome.attemptsLeft} attempts left.`, DeliveryRefusal.wrongPin, { attempts_left: outcome.attemptsLeft });
  });
};
