/**
 * The filters shared by the jobs and logs lists: robots and a start-time range, and the count of matches.
 */
import { and, eq, gte, inArray, lt, lte, sql, type SQL } from 'drizzle-orm';
import type { AnyPgColumn, PgTable } from 'drizzle-orm/pg-core';
import { LATEST_INSTANT_MS } from '@uvd/contracts';
import type { Executor } from '../db/client.ts';
import type { Principal } from '../identity/principal.ts';
import { seesEverything, visibleRobotIds } from '../lib/visibility.ts';

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
    if (BARE_DATE.test(toDate)) {
      const nextMidnight = Date.parse(`${toDate}T00:00:00Z`) + DAY_MS;
      // After 9999-12-31 comes year 10000, which no driver sends to PostgreSQL: end at that day's last instant.
      conditions.push(nextMidnight > LATEST_INSTANT_MS ? lte(column, new Date(LATEST_INSTANT_MS)) : lt(column, new Date(nextMidnight)));
    }
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

/** The table behind a list (jobs or logs) and its indexed columns: (org, [robot,] start DESC NULLS LAST, id). */
export interface ListTable {
  table: PgTable;
  id: AnyPgColumn;
  start: AnyPgColumn;
  robot: AnyPgColumn;
  /** A rank ordered before the start (ascending), e.g. the jobs list's running jobs first. */
  rank?: SQL;
}

export interface ListScope {
  /** Organization and date conditions. */
  where: SQL | undefined;
  /** The robots whose rows are listed; undefined means every robot of the organization. */
  robotIds: string[] | undefined;
}

/**
 * The robots a list covers: those asked for (`robot_id`), cut to those the caller sees. Undefined when a
 * restricted role asks for no robot (the organization filter alone applies).
 */
export async function listedRobots(executor: Executor, principal: Principal, requested: readonly string[]): Promise<string[] | undefined> {
  const asked = [...new Set(requested)];
  if (seesEverything(principal)) return asked.length > 0 ? asked : undefined;
  const visible = (await visibleRobotIds(executor, principal)).map((robot) => robot.id);
  return asked.length > 0 ? visible.filter((id) => asked.includes(id)) : visible;
}

/** Up to this many robots, a page is merged from one index range per robot (see `pageQuery`). */
const MERGE_ROBOTS_MAX = 32;

/**
 * A query of the ids (column `id`) of one page, newest first, for the `IN (…)` of the query reading the rows.
 * Only indexed columns are read, so PostgreSQL skips deep offsets with an index-only scan. For several robots,
 * no single index gives their rows in start order, so each robot's index range is read up to offset+limit rows
 * and the ranges are merged (a Merge Append) instead of sorting every match.
 */
export function pageQuery(list: ListTable, scope: ListScope, offset: number, limit: number): SQL {
  // A rank leads the order (no constant stands in for a missing one: ORDER BY 0 means a column position).
  const ranked = (rest: SQL) => (list.rank ? sql`${list.rank}, ${rest}` : rest);
  const order = ranked(sql`${newestFirst(list.start)}, ${list.id}`);
  const robotIds = scope.robotIds;
  if (robotIds === undefined || robotIds.length === 1 || robotIds.length > MERGE_ROBOTS_MAX) {
    const where = and(scope.where, robotIds ? inArray(list.robot, robotIds) : undefined);
    return sql`SELECT ${list.id} AS id FROM ${list.table} WHERE ${where ?? sql`true`} ORDER BY ${order} LIMIT ${limit} OFFSET ${offset}`;
  }
  const ranges = robotIds.map(
    (robotId) =>
      sql`(SELECT ${list.id} AS id, ${list.rank ?? sql`0`} AS rank, ${list.start} AS start FROM ${list.table} WHERE ${and(scope.where, eq(list.robot, robotId)) ?? sql`true`} ORDER BY ${order} LIMIT ${offset + limit})`,
  );
  return sql`SELECT id FROM (${sql.join(ranges, sql` UNION ALL `)}) AS ranges ORDER BY rank, start DESC NULLS LAST, id LIMIT ${limit} OFFSET ${offset}`;
}

/** The count of a list's matches, exact up to `EXACT_COUNT_CAP` (see `cappedCount`). */
export function listCount(executor: Executor, list: ListTable, scope: ListScope): Promise<number> {
  const where = and(scope.where, scope.robotIds ? inArray(list.robot, scope.robotIds) : undefined);
  return cappedCount(executor, sql`SELECT 1 FROM ${list.table} WHERE ${where ?? sql`true`}`);
}
