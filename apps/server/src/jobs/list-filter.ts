/**
 * The filters shared by the jobs and logs lists: robots and a start-time range, and the count of matches.
 */
import { gte, lt, lte, sql, type SQL } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import type { Executor } from '../db/client.ts';

/**
 * `column DESC NULLS LAST`: the list indexes are built so (drizzle's `.desc()`), and PostgreSQL walks an index
 * for ORDER BY only when the nulls order matches too; plain DESC means NULLS FIRST and costs a sort of every match.
 */
export const newestFirst = (column: AnyPgColumn): SQL => sql`${column} DESC NULLS LAST`;

const BARE_DATE = /^\d{4}-\d{2}-\d{2}$/;
const DAY_MS = 86_400_000;

/**
 * Conditions on `column` for `from_date`/`to_date`. A bare date is a UTC day: `from_date` starts at its
 * midnight and `to_date` covers the whole day (before the next midnight); a timestamp is inclusive as given.
 */
export function dateConditions(column: AnyPgColumn, fromDate: string | undefined, toDate: string | undefined): SQL[] {
  const conditions: SQL[] = [];
  if (fromDate !== undefined) conditions.push(gte(column, new Date(BARE_DATE.test(fromDate) ? `${fromDate}T00:00:00Z` : fromDate)));
  if (toDate !== undefined) {
    if (BARE_DATE.test(toDate)) conditions.push(lt(column, new Date(Date.parse(`${toDate}T00:00:00Z`) + DAY_MS)));
    else conditions.push(lte(column, new Date(toDate)));
  }
  return conditions;
}

/**
 * Above this many matches the lists stop counting exactly (spec §9 pages are 5 to 50 rows, so nobody pages
 * through this far) and answer the planner's estimate instead, never below the cap: an exact count over a
 * million rows costs tens of milliseconds on every page, the estimate about a tenth of one.
 */
export const EXACT_COUNT_CAP = 10_000;

/**
 * Counts the rows of `matching` (a `SELECT 1 FROM … WHERE …` query without ORDER BY or LIMIT) exactly up to
 * `EXACT_COUNT_CAP`, and beyond it returns the planner's row estimate of the same query.
 */
export async function cappedCount(executor: Executor, matching: SQL): Promise<number> {
  const capped = firstRow(await executor.execute(sql`SELECT count(*)::int AS n FROM (${matching} LIMIT ${EXACT_COUNT_CAP + 1}) AS capped`));
  const exact = Number(capped?.n ?? 0);
  if (exact <= EXACT_COUNT_CAP) return exact;
  const plan = firstRow(await executor.execute(sql`EXPLAIN (FORMAT JSON) ${matching}`));
  return Math.max(EXACT_COUNT_CAP + 1, planRows(plan?.['QUERY PLAN']));
}

/** The first row of a raw query result; both drivers (node-postgres and PGlite) answer `{ rows }`. */
function firstRow(result: unknown): Record<string, unknown> | undefined {
  if (typeof result !== 'object' || result === null || !('rows' in result) || !Array.isArray(result.rows)) return undefined;
  const row: unknown = result.rows[0];
  return typeof row === 'object' && row !== null ? (row as Record<string, unknown>) : undefined;
}

/** The top node's "Plan Rows" of an `EXPLAIN (FORMAT JSON)` answer (drivers give it parsed or as text). */
function planRows(queryPlan: unknown): number {
  const parsed: unknown = typeof queryPlan === 'string' ? JSON.parse(queryPlan) : queryPlan;
  if (!Array.isArray(parsed)) return 0;
  const first: unknown = parsed[0];
  if (typeof first !== 'object' || first === null || !('Plan' in first)) return 0;
  const plan: unknown = first.Plan;
  if (typeof plan !== 'object' || plan === null || !('Plan Rows' in plan)) return 0;
  const rows = plan['Plan Rows'];
  return typeof rows === 'number' ? Math.round(rows) : 0;
}
