import type { FastifyPluginAsync } from 'fastify';
import { Id, removeDevice, subscribe, unsubscribe } from '@uvd/contracts';
import type { AppContext } from '../context.ts';
import type { Principal } from '../identity/principal.ts';
import { badRequest, forbidden, notFound } from '../lib/http-error.ts';
import { registerRoute } from '../lib/route.ts';
import { seesEverything } from '../lib/visibility.ts';
import { findUser } from '../users/repository.ts';
import { checkDeviceToken } from './device-token.ts';
import * as repo from './repository.ts';

const isUuid = (value: string) => Id.safeParse(value).success;

/** Behaviour §7: a device listens on its user's topic (the token's sub) and on its organization's (the realm). */
const ownTopics = (principal: Principal): readonly string[] => [principal.sub, principal.orgId];

/** The notifications backend (behaviour §7): the devices' subscriptions; sending is the worker's (worker.ts). */
export const notificationsRoutes: FastifyPluginAsync<AppContext> = async (app, ctx) => {
  /** The token in its stored form, or a 400 naming what is wrong with it (the field is `field`). */
  const storedToken = (token: string, field: 'token' | 'deviceToken', checkHost = false): string => {
    const checked = checkDeviceToken(token, checkHost ? ctx.config.push.endpointHosts : 'any');
    if ('error' in checked) throw badRequest(`Invalid body field "${field}": ${checked.error}`, { field });
    return checked.token;
  };

  registerRoute(app, subscribe, async ({ body, principal }) => {
    const token = storedToken(body.token, 'token', true);
    if (!ownTopics(principal).includes(body.topic)) {
      throw forbidden('A device may subscribe only to your user topic (your sub) or your organization topic (your realm).');
    }
    await ctx.db.transaction(async (tx) => {
      // The subscription row references the user: a subject without a directory row cannot hold one.
      if (!isUuid(principal.sub) || !(await findUser(tx, principal.orgId, principal.sub))) throw notFound('User');
      await repo.upsertSubscription(tx, { orgId: principal.orgId, userId: principal.sub, token, topic: body.topic });
    });
    return { data: true };
  });

  registerRoute(app, unsubscribe, async ({ body, principal }) => {
    const token = storedToken(body.token, 'token');
    if (!isUuid(principal.sub)) return { data: true }; // no directory row, so no subscription to end
    await repo.deleteSubscription(ctx.db, {
      orgId: principal.orgId,
      userId: principal.sub,
      token,
      topic: body.topic,
    });
    return { data: true };
  });

  registerRoute(app, removeDevice, async ({ body, principal }) => {
    const token = storedToken(body.deviceToken, 'deviceToken');
    await ctx.db.transaction(async (tx) => {
      // Existence first, so another organization's user id answers 404 whatever the caller's role.
      if (!(await findUser(tx, principal.orgId, body.userId))) throw notFound('User');
      if (body.userId !== principal.sub && !seesEverything(principal)) {
        throw forbidden("Only an admin may remove another user's device.");
      }
      await repo.deleteDevice(tx, principal.orgId, body.userId, token);
    });
    return { data: true };
  });
};
