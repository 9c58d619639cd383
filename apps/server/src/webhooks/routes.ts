import type { FastifyPluginAsync } from 'fastify';
import { createWebhook, deleteWebhook, listWebhooks, testWebhook, updateWebhook, type WebhookEventType } from '@uvd/contracts';
import type { AppContext } from '../context.ts';
import { badRequest, notFound } from '../lib/http-error.ts';
import { registerRoute } from '../lib/route.ts';
import { recordDeliveries } from './outbox.ts';
import * as repo from './repository.ts';
import { newWebhookSecret } from './signing.ts';
import { urlProblem } from './url.ts';

/** The webhooks backend: an organization's admins register the URLs that receive its signed events. */
export const webhooksRoutes: FastifyPluginAsync<AppContext> = async (app, ctx) => {
  /** The URL as given, or a 400 naming the field (the contract checks the form, this the rules of url.ts). */
  const checkedUrl = (url: string): string => {
    const problem = urlProblem(url, ctx.config.webhooks.hosts);
    if (problem) throw badRequest(`Invalid body field "url": ${problem}`, { issues: [{ field: 'url', message: problem }] });
    return url;
  };
  const distinct = (events: readonly WebhookEventType[]) => [...new Set(events)];

  registerRoute(app, listWebhooks, async ({ principal }) => {
    const rows = await repo.listWebhooks(ctx.db, principal.orgId);
    const last = await repo.lastDeliveries(
      ctx.db,
      rows.map((row) => row.id),
    );
    return { data: rows.map((row) => repo.toWebhook(row, last.get(row.id) ?? null)) };
  });

  registerRoute(app, createWebhook, async ({ body, principal, reply }) => {
    const row = await repo.insertWebhook(ctx.db, {
      orgId: principal.orgId,
      url: checkedUrl(body.url),
      secret: newWebhookSecret(),
      events: distinct(body.events),
      enabled: body.enabled,
      description: body.description,
    });
    void reply.code(201);
    return { ...repo.toWebhook(row), secret: row.secret };
  });

  registerRoute(app, updateWebhook, async ({ params, body, principal }) => {
    const row = await repo.updateWebhook(ctx.db, principal.orgId, params.id, {
      ...(body.url === undefined ? {} : { url: checkedUrl(body.url) }),
      ...(body.events === undefined ? {} : { events: distinct(body.events) }),
      ...(body.enabled === undefined ? {} : { enabled: body.enabled }),
      ...(body.description === undefined ? {} : { description: body.description }),
    });
    if (!row) throw notFound('Webhook');
    const last = await repo.lastDeliveries(ctx.db, [row.id]);
    return repo.toWebhook(row, last.get(row.id) ?? null);
  });

  registerRoute(app, deleteWebhook, async ({ params, principal }) => {
    if (!(await repo.deleteWebhook(ctx.db, principal.orgId, params.id))) throw notFound('Webhook');
    return { data: { [params.id]: true as const } };
  });

  registerRoute(app, testWebhook, async ({ params, principal, reply }) => {
    await ctx.db.transaction(async (tx) => {
      const webhook = await repo.findWebhook(tx, principal.orgId, params.id);
      if (!webhook) throw notFound('Webhook');
      const [type = 'log.created'] = webhook.events;
      // A test goes out even while the webhook is disabled: an admin checks the receiver before turning it on.
      await recordDeliveries(tx, principal.orgId, [webhook.id], {
        dedupeKey: `test:${crypto.randomUUID()}`,
        payload: { type, timestamp: new Date().toISOString(), data: { test: true } },
        test: true,
      });
    });
    void reply.code(202);
    return { queued: true as const };
  });
};
