import { and, asc, eq, inArray } from 'drizzle-orm';
import type { GroupUser, Role, User } from '@uvd/contracts';
import { Role as RoleSchema } from '@uvd/contracts';
import type { Executor } from '../db/client.ts';
import { groups, userGroups, users } from '../db/schema.ts';

const userColumns = {
  id: users.id,
  username: users.username,
  firstName: users.firstName,
  lastName: users.lastName,
  email: users.email,
  roles: users.roles,
};

/** Roles are stored as free text; only the spec's roles go on the wire. */
const knownRoles = (roles: readonly string[]): Role[] =>
  roles.filter((role): role is Role => RoleSchema.safeParse(role).success);

const toUser = (row: { id: string; username: string; firstName: string; lastName: string; email: string; roles: string[] }): User => ({
  ...row,
  roles: knownRoles(row.roles),
});

export async function listUsers(db: Executor, orgId: string): Promise<User[]> {
  const rows = await db.select(userColumns).from(users).where(eq(users.orgId, orgId)).orderBy(asc(users.username));
  return rows.map(toUser);
}

export async function findUser(db: Executor, orgId: string, id: string): Promise<User | undefined> {
  const [row] = await db
    .select(userColumns)
    .from(users)
    .where(and(eq(users.orgId, orgId), eq(users.id, id)));
  return row ? toUser(row) : undefined;
}

export async function findProfile(db: Executor, orgId: string, id: string) {
  const [row] = await db
    .select({ ...userColumns, language: users.language, timezone: users.timezone })
    .from(users)
    .where(and(eq(users.orgId, orgId), eq(users.id, id)));
  return row;
}

export async function groupNamesOf(db: Executor, userId: string): Promise<string[]> {
  const rows = await db
    .select({ name: groups.name })
    .from(userGroups)
    .innerJoin(groups, eq(groups.id, userGroups.groupId))
    .where(eq(userGroups.userId, userId))
    .orderBy(asc(groups.name));
  return rows.map((row) => row.name);
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

export async function insertUser(db: Executor, user: NewUser): Promise<User> {
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

export async function groupMembers(db: Executor, groupId: string): Promise<GroupUser[]> {
  return db
    .select({ id: users.id, username: users.username })
    .from(userGroups)
    .innerJoin(users, eq(users.id, userGroups.userId))
    .where(eq(userGroups.groupId, groupId))
    .orderBy(asc(users.username));
}

export async function addMembers(db: Executor, groupId: string, userIds: readonly string[]): Promise<void> {
  if (userIds.length === 0) return;
  await db
    .insert(userGroups)
    .values(userIds.map((userId) => ({ userId, groupId })))
    .onConflictDoNothing();
}

export async function removeMember(db: Executor, groupId: string, userId: string): Promise<void> {
  await db.delete(userGroups).where(and(eq(userGroups.groupId, groupId), eq(userGroups.userId, userId)));
}
