import { and, asc, eq, inArray } from 'drizzle-orm';
import type { Group } from '@uvd/contracts';
import type { Executor } from '../db/client.ts';
import { groups } from '../db/schema.ts';

const groupColumns = { id: groups.id, name: groups.name };

export async function listGroups(db: Executor, orgId: string): Promise<Group[]> {
  return db.select(groupColumns).from(groups).where(eq(groups.orgId, orgId)).orderBy(asc(groups.name));
}

export async function findGroup(db: Executor, orgId: string, id: string): Promise<Group | undefined> {
  const [row] = await db
    .select(groupColumns)
    .from(groups)
    .where(and(eq(groups.orgId, orgId), eq(groups.id, id)));
  return row;
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

/** The groups among `ids` that belong to `orgId`, by name. */
export async function groupsOfOrg(db: Executor, orgId: string, ids: readonly string[]): Promise<Group[]> {
  if (ids.length === 0) return [];
  return db
    .select(groupColumns)
    .from(groups)
    .where(and(eq(groups.orgId, orgId), inArray(groups.id, [...ids])))
    .orderBy(asc(groups.name));
}
