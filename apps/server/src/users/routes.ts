import type { FastifyPluginAsync } from 'fastify';
import {
  DEFAULT_LANGUAGE,
  DEFAULT_TIMEZONE,
  ErrorCode,
  Id,
  NEW_USER_DEFAULT_ROLE,
  addUsersToGroup,
  createUser,
  deleteUser,
  getMyProfile,
  getUsername,
  listUsers,
  removeUserFromGroup,
  type SessionUser,
} from '@uvd/contracts';
import type { AppContext } from '../context.ts';
import { isUniqueViolation } from '../db/unique-violation.ts';
import { addMembers, groupMembers, groupNamesOf, removeMember } from '../groups/memberships.ts';
import { findGroup, groupsOfOrg } from '../groups/repository.ts';
import { hashPassword } from '../identity/passwords.ts';
import type { Principal } from '../identity/principal.ts';
import { announceRevocation } from '../identity/revocation.ts';
import { HttpError, conflict, forbidden, notFound, unauthorized } from '../lib/http-error.ts';
import { registerRoute } from '../lib/route.ts';
import * as repo from './repository.ts';

const usernameTaken = (username: string) =>
  conflict(`A user with the username "${username}" already exists.`, undefined, { field: 'email' });

const fullName = (first: string, last: string) => `${first} ${last}`.trim();

/**
 * The session user of behaviour §3. The directory row supplies what may have changed since the token was issued
 * (language, timezone, names, groups). With an external Keycloak (IDP_ISSUER_BASE) a user may have no row;
 * the token's claims and the defaults of behaviour §3 then stand in, so the console still starts.
 */
async function sessionUser(ctx: AppContext, principal: Principal): Promise<SessionUser> {
  const roles = [...principal.roles];
  const base = {
    sub: principal.sub,
    roles,
    realm_access: { roles },
    realm: principal.orgId,
  };
  // Keycloak subjects are UUIDs too; anything else cannot be one of our rows (and would be a SQL type error).
  const row = Id.safeParse(principal.sub).success ? await repo.findProfile(ctx.db, principal.orgId, principal.sub) : undefined;
  // With the built-in provider every subject has a row: none means the user was deleted after the token was issued.
  if (!row && !ctx.config.idpIssuerBase) throw unauthorized('The user of this token no longer exists.');
  if (!row) {
    return {
      ...base,
      username: principal.username,
      given_name: principal.givenName,
      family_name: principal.familyName,
      name: fullName(principal.givenName, principal.familyName),
      email: principal.email,
      groups: [...principal.groups],
      language: DEFAULT_LANGUAGE,
      timezone: DEFAULT_TIMEZONE,
      must_change_password: false,
    };
  }
  return {
    ...base,
    username: row.username,
    given_name: row.firstName,
    family_name: row.lastName,
    name: fullName(row.firstName, row.lastName),
    email: row.email,
    groups: await groupNamesOf(ctx.db, row.id),
    language: row.language || DEFAULT_LANGUAGE,
    timezone: row.timezone || DEFAULT_TIMEZONE,
    must_change_password: row.mustChangePassword,
  };
}

/** The users backend (behaviour §7), with the add/remove group user calls. */
export const usersRoutes: FastifyPluginAsync<AppContext> = async (app, ctx) => {
  registerRoute(app, listUsers, async ({ principal }) => ({ data: await repo.listUsers(ctx.db, principal.orgId) }));

  registerRoute(app, getMyProfile, async ({ principal }) => sessionUser(ctx, principal));

  registerRoute(app, getUsername, async ({ params, principal }) => {
    const user = await repo.findUser(ctx.db, principal.orgId, params.id);
    if (!user) throw notFound('User');
    return { username: user.username };
  });

  registerRoute(app, createUser, async ({ body, principal, reply }) => {
    // Usernames are emails, lowercased by the contract, so sign-in is case-insensitive on the address.
    const username = body.email;
    const role = body.role ?? NEW_USER_DEFAULT_ROLE;
    // The rule of deletes, for grants: only a done-superadmin makes another one.
    if (role === 'done-superadmin' && !principal.roles.includes('done-superadmin')) {
      throw forbidden('Only a done-superadmin may give the role done-superadmin.');
    }
    const groupIds = [...new Set(body.groupIds ?? [])];
    // Hashing takes tens of milliseconds on the thread pool: done before the transaction, not inside it.
    const passwordHash = await hashPassword(body.password);
    const user = await ctx.db
      .transaction(async (tx) => {
        const groups = await groupsOfOrg(tx, principal.orgId, groupIds);
        const unknown = groupIds.filter((id) => !groups.some((group) => group.id === id));
        if (unknown.length > 0) {
          throw new HttpError(404, ErrorCode.notFound, `Group was not found: ${unknown.join(', ')}.`, { field: 'groupIds', ids: unknown });
        }
        if (await repo.usernameTaken(tx, principal.orgId, username)) throw usernameTaken(username);
        const created = await repo.insertUser(tx, {
          orgId: principal.orgId,
          username,
          firstName: body.firstName,
          lastName: body.lastName,
          email: body.email,
          passwordHash,
          roles: [role],
        });
        for (const group of groups) await addMembers(tx, group.id, [created.id]);
        return { ...created, groups };
      })
      .catch((error: unknown) => {
        throw isUniqueViolation(error) ? usernameTaken(username) : error;
      });
    reply.code(201);
    return user;
  });

  registerRoute(app, deleteUser, async ({ params, principal }) => {
    await ctx.db.transaction(async (tx) => {
      const user = await repo.findUser(tx, principal.orgId, params.id);
      if (!user) throw notFound('User');
      // An organization must keep someone able to administer it; removing oneself is the first step to losing that.
      if (user.id === principal.sub) throw conflict('You cannot delete your own account.', ErrorCode.cannotDeleteSelf);
      if (user.roles.includes('done-superadmin') && !principal.roles.includes('done-superadmin')) {
        throw forbidden('Only a done-superadmin may delete a done-superadmin.');
      }
      await repo.deleteUser(tx, principal.orgId, user.id);
      // Their open live streams, on every server process, end when this commits.
      await announceRevocation(tx, { userId: user.id, orgId: principal.orgId });
    });
    return { data: { [params.id]: true as const } };
  });

  registerRoute(app, addUsersToGroup, async ({ params, body, principal }) =>
    ctx.db.transaction(async (tx) => {
      const group = await findGroup(tx, principal.orgId, params.groupId);
      if (!group) throw notFound('Group');
      const wanted = [...new Set(body)];
      const known = await repo.existingUserIds(tx, principal.orgId, wanted);
      const unknown = wanted.filter((id) => !known.has(id));
      if (unknown.length > 0) {
        throw new HttpError(404, ErrorCode.notFound, `User was not found: ${unknown.join(', ')}.`, { ids: unknown });
      }
      await addMembers(tx, group.id, wanted);
      return groupMembers(tx, group.id);
    }),
  );

  registerRoute(app, removeUserFromGroup, async ({ params, principal }) =>
    ctx.db.transaction(async (tx) => {
      const group = await findGroup(tx, principal.orgId, params.groupId);
      if (!group) throw notFound('Group');
      const user = await repo.findUser(tx, principal.orgId, params.user_id);
      if (!user) throw notFound('User');
      await removeMember(tx, group.id, user.id);
      return groupMembers(tx, group.id);
    }),
  );
};
