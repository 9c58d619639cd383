/**
 * Checks that ids named in a request belong to the caller's organization. An id of another organization is
 * as unknown as a made-up one: 404, never 403 (behaviour §6).
 */
import { and, eq, inArray } from 'drizzle-orm';
import type { Executor } from '../db/client.ts';
import { groups, robots, rooms } from '../db/schema.ts';
import { notFound } from './http-error.ts';

const scoped = { Group: groups, Robot: robots, Room: rooms } as const;
export type Scoped = keyof typeof scoped;

/** Resolves to the distinct ids when every one is of `orgId`; otherwise throws 404 naming `what`. */
export async function assertInOrg(db: Executor, what: Scoped, orgId: string, ids: readonly string[]): Promise<string[]> {
  const table = scoped[what];
  const unique = [...new Set(ids)];
  const found = await db
    .select({ id: table.id })
    .from(table)
    .where(and(eq(table.orgId, orgId), inArray(table.id, unique)));
  if (found.length !== unique.length) throw notFound(what);
  return unique;
}
