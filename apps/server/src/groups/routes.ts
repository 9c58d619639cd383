import type { FastifyPluginAsync } from 'fastify';
import { createGroup, deleteGroup, getGroup, listGroupUsers, listGroups } from '@uvd/contracts';
import type { AppContext } from '../context.ts';
import { isUniqueViolation } from '../db/unique-violation.ts';
import { conflict, notFound } from '../lib/http-error.ts';
import { registerRoute } from '../lib/route.ts';
import { seesEverything } from '../lib/visibility.ts';
import { groupMembers, isMember, listGroupsOfUser } from './memberships.ts';
import * as repo from './repository.ts';

const nameTaken = (name: string) => conflict(`A group named "${name}" already exists.`, undefined, { field: 'name' });

/** The groups backend (behaviour §7). */
export const groupsRoutes: FastifyPluginAsync<AppContext> = async (app, ctx) => {
  registerRoute(app, listGroups, async ({ principal }) =>
    seesEverything(principal)
      ? repo.listGroups(ctx.db, principal.orgId)
      : listGroupsOfUser(ctx.db, principal.orgId, principal.sub),
  );

  registerRoute(app, getGroup, async ({ params, principal }) => {
    const group = await repo.findGroup(ctx.db, principal.orgId, params.id);
    // A teleoperator sees only their own groups; another group is as invisible as another organization's.
    if (!group || (!seesEverything(principal) && !(await isMember(ctx.db, group.id, principal.sub)))) {
      throw notFound('Group');
    }
    return group;
  });

  registerRoute(app, listGroupUsers, async ({ params, principal }) => {
    const group = await repo.findGroup(ctx.db, principal.orgId, params.id);
    if (!group) throw notFound('Group');
    return groupMembers(ctx.db, group.id);
  });

  registerRoute(app, createGroup, async ({ body, principal, reply }) => {
    const group = await ctx.db
      .transaction(async (tx) => {
        if (await repo.groupNameTaken(tx, principal.orgId, body.name)) throw nameTaken(body.name);
        return repo.insertGroup(tx, principal.orgId, body.name);
      })
      .catch((error: unknown) => {
        throw isUniqueViolation(error) ? nameTaken(body.name) : error;
      });
    reply.code(201);
    return group;
  });

  registerRoute(app, deleteGroup, async ({ params, principal }) => {
    const deleted = await repo.deleteGroup(ctx.db, principal.orgId, params.id);
    if (!deleted) throw notFound('Group');
    return { data: { [params.id]: true as const } };
  });
};
