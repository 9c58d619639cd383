/** Reading the audit trail: search (newest first, paged) and export (oldest first, in batches). */
import { Readable } from 'node:stream';
import { and, eq, gt, ilike, or, sql, type SQL } from 'drizzle-orm';
import type { AuditListQuery } from '@uvd/contracts';
import type { Executor } from '../db/client.ts';
import { auditEntries } from '../db/schema.ts';
import type { Principal } from '../identity/principal.ts';
import { cappedCount, dateConditions, filterTimeZone } from '../jobs/list-filter.ts';
import { toAuditEntry } from './chain.ts';

export type AuditFilter = Omit<AuditListQuery, 'offset' | 'limit'>;

/** A LIKE pattern that matches `text` literally anywhere. */
const containing = (text: string): string => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** The organization's entries matching the filter. A bare date is a day in the caller's timezone, as in the lists. */
export async function auditConditions(executor: Executor, principal: Principal, filter: AuditFilter): Promise<SQL> {
  const timeZone = await filterTimeZone(executor, principal, filter);
  const dates = dateConditions(auditEntries.at, filter.from_date, filter.to_date, timeZone);
  const conditions: (SQL | undefined)[] = [eq(auditEntries.orgId, principal.orgId), ...dates];
  if (filter.actor !== undefined) conditions.push(sql`lower(${auditEntries.actor}) = lower(${filter.actor})`);
  if (filter.entity !== undefined) conditions.push(eq(auditEntries.entity, filter.entity));
  if (filter.q !== undefined && filter.q !== '') {
    const pattern = containing(filter.q);
    conditions.push(
      or(
        ilike(auditEntries.actor, pattern),
        ilike(auditEntries.entity, pattern),
        ilike(auditEntries.entityId, pattern),
        ilike(auditEntries.request, pattern),
        ilike(auditEntries.ip, pattern),
        sql`${auditEntries.before}::text ILIKE ${pattern}`,
        sql`${auditEntries.after}::text ILIKE ${pattern}`,
      ),
    );
  }
  return and(...conditions) ?? sql`true`;
}

export async function listAuditEntries(executor: Executor, principal: Principal, query: AuditListQuery & { offset: number; limit: number }) {
  const where = await auditConditions(executor, principal, query);
  const [count, rows] = await Promise.all([
    cappedCount(executor, sql`SELECT 1 FROM ${auditEntries} WHERE ${where}`),
    executor
      .select()
      .from(auditEntries)
      .where(where)
      .orderBy(sql`${auditEntries.at} DESC`, sql`${auditEntries.id} DESC`)
      .limit(query.limit)
      .offset(query.offset),
  ]);
  return { count, payload: rows.map(toAuditEntry) };
}

const EXPORT_BATCH = 1000;

/** The matching entries as NDJSON, oldest first, read in batches so that a long trail never sits in memory. */
export async function exportAuditEntries(executor: Executor, principal: Principal, filter: AuditFilter): Promise<Readable> {
  const where = await auditConditions(executor, principal, filter);
  async function* lines() {
    let after: { at: Date; id: number } | undefined;
    for (;;) {
      const keyset = after ? or(gt(auditEntries.at, after.at), and(eq(auditEntries.at, after.at), gt(auditEntries.id, after.id))) : undefined;
      const rows = await executor
        .select()
        .from(auditEntries)
        .where(and(where, keyset))
        .orderBy(auditEntries.at, auditEntries.id)
        .limit(EXPORT_BATCH);
      if (rows.length > 0) yield rows.map((row) => `${JSON.stringify(toAuditEntry(row))}\n`).join('');
      const last = rows.at(-1);
      if (!last || rows.length < EXPORT_BATCH) return;
      after = { at: last.at, id: last.id };
    }
  }
  return Readable.from(lines());
}
