import { and, asc, eq } from 'drizzle-orm';
import type { Group } from '@uvd/contracts';
import type { Executor } from '../db/client.ts';
import { groups, userGroups } from '../db/schema.ts';

const groupColumns = { id: groups.id, name: groups.name };

export async function listGroups(db: Executor, orgId: string): Promise<Group[]> {
  return db.select(groupColumns).from(groups).where(eq(groups.orgId, orgId)).orderBy(asc(groups.name));
}

/** The groups of `orgId` that `userId` belongs to. */
export async function listGroupsOfUser(db: Executor, orgId: string, userId: string): Promise<Group[]> {
  return db
    .select(groupColumns)
    .from(groups)
    .innerJoin(userGroups, eq(userGroups.groupId, groups.id))
    .where(and(eq(groups.orgId, orgId), eq(userGroups.userId, userId)))
    .orderBy(asc(groups.name));
}

export async function findGroup(db: Executor, orgId: string, id: string): Promise<Group | undefined> {
  const [row] = await db
    .select(groupColumns)
    .from(groups)
    .where(and(eq(groups.orgId, orgId), eq(groups.id, id)));
  return row;
}

export async function isMember(db: Executor, groupId: string, userId: string): Promise<boolean> {
  const [row] = await db
    .select({ userId: userGroups.userId })
    .from(userGroups)
    .where(and(eq(userGroups.groupId, groupId), eq(userGroups.userId, userId)));
  return row !== undefined;
}

export async function groupNameTaken(db: Executor, orgId: string, name: string): Promise<boolean> {
  const [row] = await db
    .select({ id: groups.id })
    .from(groups)
    .where(and(eq(groups.orgId, orgId), eq(groups.name, name)));
  return row !== undefined;
}

export async function insertGroup(db: Executor, orgId: string, name: string): Promise<Group> {
  const [row] = await db.insert(groups).values({ orgId, name }).returning(groupColumns);
  if (!row) throw new Error('INSERT … RETURNING gave no row');
  return row;
}

/** Memberships of users, robots and rooms go with the group (FK cascade); the members themselves stay. */
export async function deleteGroup(db: Executor, orgId: string, id: string): Promise<boolean> {
  const rows = await db
    .delete(groups)
    .where(and(eq(groups.orgId, orgId), eq(groups.id, id)))
    .returning({ id: groups.id });
  return rows.length > 0;
}
