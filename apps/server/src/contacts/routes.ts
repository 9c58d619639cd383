import type { FastifyPluginAsync } from 'fastify';
import { createContact, deleteContact, listAdminContacts, listContacts } from '@uvd/contracts';
import type { AppContext } from '../context.ts';
import { notFound } from '../lib/http-error.ts';
import { registerRoute } from '../lib/route.ts';
import * as repo from './repository.ts';

/** The contacts backend (behaviour §7): one list under two paths, the admin one for the dashboard. */
export const contactsRoutes: FastifyPluginAsync<AppContext> = async (app, ctx) => {
  registerRoute(app, listContacts, async ({ principal }) => ({
    data: { payload: await repo.listContacts(ctx.db, principal.orgId) },
  }));

  registerRoute(app, listAdminContacts, async ({ principal }) => ({
    data: { payload: await repo.listContacts(ctx.db, principal.orgId) },
  }));

  registerRoute(app, createContact, async ({ body, principal, reply }) => {
    const contact = await repo.insertContact(ctx.db, principal.orgId, body);
    reply.code(201);
    return contact;
  });

  registerRoute(app, deleteContact, async ({ params, principal }) => {
    if (!(await repo.deleteContact(ctx.db, principal.orgId, params.id))) throw notFound('Contact');
    return { data: { [params.id]: true as const } };
  });
};
