import { and, asc, eq, inArray } from 'drizzle-orm';
import type { Group, Role, User } from '@uvd/contracts';
import { DEFAULT_TIMEZONE, Id, Role as RoleSchema } from '@uvd/contracts';
import type { Executor } from '../db/client.ts';
import { groups, userGroups, users } from '../db/schema.ts';
import type { Principal } from '../identity/principal.ts';

const userColumns = {
  id: users.id,
  username: users.username,
  firstName: users.firstName,
  lastName: users.lastName,
  email: users.email,
  roles: users.roles,
};

/** Roles are stored as free text; only the roles of behaviour §1 go on the wire. */
const knownRoles = (roles: readonly string[]): Role[] =>
  roles.filter((role): role is Role => RoleSchema.safeParse(role).success);

/** A user without their groups: what the checks before a change need. */
export type DirectoryUser = Omit<User, 'groups'>;

const toUser = (row: { id: string; username: string; firstName: string; lastName: string; email: string; roles: string[] }): DirectoryUser => ({
  ...row,
  roles: knownRoles(row.roles),
});

/** The users of the organization by username, each with their groups by name (two queries, not one per user). */
export async function listUsers(db: Executor, orgId: string): Promise<User[]> {
  const rows = await db.select(userColumns).from(users).where(eq(users.orgId, orgId)).orderBy(asc(users.username));
  const memberships = await db
    .select({ userId: userGroups.userId, id: groups.id, name: groups.name })
    .from(userGroups)
    .innerJoin(groups, eq(groups.id, userGroups.groupId))
    .where(eq(groups.orgId, orgId))
    .orderBy(asc(groups.name));
  const groupsOf = new Map<string, Group[]>();
  for (const { userId, id, name } of memberships) groupsOf.set(userId, [...(groupsOf.get(userId) ?? []), { id, name }]);
  return rows.map((row) => ({ ...toUser(row), groups: groupsOf.get(row.id) ?? [] }));
}

export async function findUser(db: Executor, orgId: string, id: string): Promise<DirectoryUser | undefined> {
  const [row] = await db
    .select(userColumns)
    .from(users)
    .where(and(eq(users.orgId, orgId), eq(users.id, id)));
  return row ? toUser(row) : undefined;
}

export async function findProfile(db: Executor, orgId: string, id: string) {
  const [row] = await db
    .select({ ...userColumns, language: users.language, timezone: users.timezone, mustChangePassword: users.mustChangePassword })
    .from(users)
    .where(and(eq(users.orgId, orgId), eq(users.id, id)));
  return row;
}

/** The caller's timezone setting (behaviour §3); the default for a user without a row (an external Keycloak's). */
export async function timezoneOf(db: Executor, principal: Principal): Promise<string> {
  // Keycloak subjects are UUIDs too; anything else cannot be one of our rows (and would be a SQL type error).
  if (!Id.safeParse(principal.sub).success) return DEFAULT_TIMEZONE;
  const [row] = await db
    .select({ timezone: users.timezone })
    .from(users)
    .where(and(eq(users.orgId, principal.orgId), eq(users.id, principal.sub)));
  return row?.timezone || DEFAULT_TIMEZONE;
}

export async function usernameTaken(db: Executor, orgId: string, username: string): Promise<boolean> {
  const [row] = await db
    .select({ id: users.id })
    .from(users)
    .where(and(eq(users.orgId, orgId), eq(users.username, username)));
  return row !== undefined;
}

export interface NewUser {
  orgId: string;
  username: string;
  firstName: string;
  lastName: string;
  email: string;
  passwordHash: string;
  roles: Role[];
}

export async function insertUser(db: Executor, user: NewUser): Promise<DirectoryUser> {
  const [row] = await db.insert(users).values(user).returning(userColumns);
  if (!row) throw new Error('INSERT … RETURNING gave no row');
  return toUser(row);
}

/** Deletes the user; sessions, refresh tokens, memberships and device subscriptions go with it (FK cascade). */
export async function deleteUser(db: Executor, orgId: string, id: string): Promise<boolean> {
  const rows = await db
    .delete(users)
    .where(and(eq(users.orgId, orgId), eq(users.id, id)))
    .returning({ id: users.id });
  return rows.length > 0;
}

/** The ids among `ids` that are users of `orgId`. */
export async function existingUserIds(db: Executor, orgId: string, ids: readonly string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await db
    .select({ id: users.id })
    .from(users)
    .where(and(eq(users.orgId, orgId), inArray(users.id, [...ids])));
  return new Set(rows.map((row) => row.id));
}

