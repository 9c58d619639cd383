/**
 * Who belongs to which group (`user_groups`): read by the groups routes, changed by the users routes' add/remove
 * group user calls and by a user's creation. It lives here, not in users/, so that users/ imports groups/ and never
 * the other way round.
 */
import { and, asc, eq } from 'drizzle-orm';
import type { Group, GroupUser } from '@uvd/contracts';
import type { Executor } from '../db/client.ts';
import { groups, userGroups, users } from '../db/schema.ts';

/** The groups of `orgId` that `userId` belongs to. */
export async function listGroupsOfUser(db: Executor, orgId: string, userId: string): Promise<Group[]> {
  return db
    .select({ id: groups.id, name: groups.name })
    .from(groups)
    .innerJoin(userGroups, eq(userGroups.groupId, groups.id))
    .where(and(eq(groups.orgId, orgId), eq(userGroups.userId, userId)))
    .orderBy(asc(groups.name));
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

export async function isMember(db: Executor, groupId: string, userId: string): Promise<boolean> {
  const [row] = await db
    .select({ userId: userGroups.userId })
    .from(userGroups)
    .where(and(eq(userGroups.groupId, groupId), eq(userGroups.userId, userId)));
  return row !== undefined;
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
