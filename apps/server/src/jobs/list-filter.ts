/**
 * The filters shared by the jobs and logs lists: robots and a start-time range, and the count of matches.
 */
import { and, eq, gte, inArray, lt, lte, sql, type SQL } from 'drizzle-orm';
import type { AnyPgColumn, PgTable } from 'drizzle-orm/pg-core';
import { DEFAULT_TIMEZONE, EARLIEST_INSTANT_MS, LATEST_INSTANT_MS } from '@uvd/contracts';
import type { Executor } from '../db/client.ts';
import type { Principal } from '../identity/principal.ts';
import { seesEverything, visibleRobotIds } from '../lib/visibility.ts';
import { timezoneOf } from '../users/repository.ts';

/**
 * `column DESC NULLS LAST`: the list indexes are built so (drizzle's `.desc()`), and PostgreSQL walks an index
 * for ORDER BY only when the nulls order matches too; plain DESC means NULLS FIRST and costs a sort of every match.
 */
export const newestFirst = (column: AnyPgColumn): SQL => sql`${column} DESC NULLS LAST`;

const BARE_DATE = /^\d{4}-\d{2}-\d{2}$/;
const HOUR_MS = 3_600_000;

const wallClockFormats = new Map<string, Intl.DateTimeFormat>();

/** A formatter of the wall clock of `timeZone` to the second (one per zone: making one costs far more than using it). */
function wallClockFormat(timeZone: string): Intl.DateTimeFormat {
  let format = wallClockFormats.get(timeZone);
  if (!format) {
    const options: Intl.DateTimeFormatOptions = { era: 'short', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' };
    try {
      format = new Intl.DateTimeFormat('en-US', { ...options, timeZone });
    } catch {
      // Settings accept only zones Intl knows; one it no longer knows (an older ICU) reads as the default.
      format = new Intl.DateTimeFormat('en-US', { ...options, timeZone: DEFAULT_TIMEZONE });
    }
    wallClockFormats.set(timeZone, format);
  }
  return format;
}

/** The UTC instant (ms) of a calendar date and time, for any year (Date.UTC maps years 0–99 to 1900–1999). */
function utcInstant(year: number, month: number, day: number, hour = 0, minute = 0, second = 0): number {
  const instant = new Date(0);
  instant.setUTCFullYear(year, month - 1, day);
  instant.setUTCHours(hour, minute, second, 0);
  return instant.getTime();
}

/** The wall clock of `format`'s zone at a whole-second `instant`: its date (yyyy-MM-dd) and its offset from UTC. */
function wallClockAt(instant: number, format: Intl.DateTimeFormat): { date: string; offsetMs: number } {
  const parts = new Map(format.formatToParts(instant).map((part) => [part.type, part.value]));
  const number = (type: Intl.DateTimeFormatPartTypes) => Number(parts.get(type));
  const year = parts.get('era') === 'BC' ? 1 - number('year') : number('year');
  const wall = utcInstant(year, number('month'), number('day'), number('hour'), number('minute'), number('second'));
  const date = `${String(year).padStart(4, '0')}-${String(number('month')).padStart(2, '0')}-${String(number('day')).padStart(2, '0')}`;
  return { date, offsetMs: wall - instant };
}

/**
 * The first instant (ms) of a calendar day in `timeZone`: its local midnight, DST-correct; where a change skips
 * midnight, the change. `day` may run past the month's end (Date normalizes it), so `to_date` asks for day + 1.
 */
export function zonedDayStart(year: number, month: number, day: number, timeZone: string): number {
  const midnight = utcInstant(year, month, day);
  const { date } = wallClockAt(midnight, wallClockFormat('UTC'));
  const format = wallClockFormat(timeZone);
  // Offsets run from UTC-12 to UTC+14, so local midnight lies within 14 h before and 12 h after UTC's, and no zone
  // changes its offset twice in that window: the offsets at its two ends give every candidate. The day starts at
  // the earlier candidate that reads as this date (the later one, on a day whose midnight a change skips).
  const candidates = [midnight - wallClockAt(midnight - 14 * HOUR_MS, format).offsetMs, midnight - wallClockAt(midnight + 12 * HOUR_MS, format).offsetMs];
  const [first = midnight, second = midnight] = candidates.sort((a, b) => a - b);
  return wallClockAt(first, format).date === date ? first : second;
}

const dayParts = (date: string): [number, number, number] => {
  const [year = 0, month = 1, day = 1] = date.split('-').map(Number);
  return [year, month, day];
};

/**
 * Conditions on `column` for `from_date`/`to_date`. A bare date is a day of `timeZone` (the user's setting):
 * [its local midnight, the next local midnight), DST-correct; `from_date` starts at the first, `to_date` ends
 * before the second. A timestamp is inclusive as given.
 */
export function dateConditions(column: AnyPgColumn, fromDate: string | undefined, toDate: string | undefined, timeZone: string): SQL[] {
  const conditions: SQL[] = [];
  if (fromDate !== undefined) {
    // Midnight of 0001-01-01 east of UTC is in year 0, which drivers cannot send; no stored time is earlier than year 1.
    const start = BARE_DATE.test(fromDate) ? Math.max(EARLIEST_INSTANT_MS, zonedDayStart(...dayParts(fromDate), timeZone)) : Date.parse(fromDate);
    conditions.push(gte(column, new Date(start)));
  }
  if (toDate !== undefined) {
    if (BARE_DATE.test(toDate)) {
      const [year, month, day] = dayParts(toDate);
      const nextMidnight = zonedDayStart(year, month, day + 1, timeZone);
      // After 9999-12-31 comes year 10000, which no driver sends to PostgreSQL: end at that day's last instant.
      conditions.push(nextMidnight > LATEST_INSTANT_MS ? lte(column, new Date(LATEST_INSTANT_MS)) : lt(column, new Date(nextMidnight)));
    } else conditions.push(lte(column, new Date(toDate)));
  }
  return conditions;
}

/** The caller's timezone when a filter has a bare date to read in it (else no lookup is needed). */
export async function filterTimeZone(executor: Executor, principal: Principal, filter: { from_date?: string | undefined; to_date?: string | undefined }): Promise<string> {
  const bare = [filter.from_date, filter.to_date].some((date) => date !== undefined && BARE_DATE.test(date));
  return bare ? timezoneOf(executor, principal) : DEFAULT_TIMEZONE;
}

/**
 * Above this many matches the lists stop counting exactly (behaviour §9 pages are 5 to 50 rows, so nobody pages
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
  /**
   * Keys ordered before the start (each ascending, nulls last), e.g. the jobs list's running jobs first and the
   * scheduled ones next due first.
   */
  lead?: readonly SQL[];
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
  const lead = list.lead ?? [];
  const order = sql.join([...lead, newestFirst(list.start), list.id], sql`, `);
  const robotIds = scope.robotIds;
  if (robotIds === undefined || robotIds.length === 1 || robotIds.length > MERGE_ROBOTS_MAX) {
    const where = and(scope.where, robotIds ? inArray(list.robot, robotIds) : undefined);
    return sql`SELECT ${list.id} AS id FROM ${list.table} WHERE ${where ?? sql`true`} ORDER BY ${order} LIMIT ${limit} OFFSET ${offset}`;
  }
  // Each range carries its order's keys as columns (lead_0, lead_1, …, start) for the merge above it.
  const leadNames = lead.map((_, index) => sql.raw(`lead_${String(index)}`));
  const columns = sql.join([sql`${list.id} AS id`, ...lead.map((key, index) => sql`${key} AS ${leadNames[index]}`), sql`${list.start} AS start`], sql`, `);
  const ranges = robotIds.map(
    (robotId) =>
      sql`(SELECT ${columns} FROM ${list.table} WHERE ${and(scope.where, eq(list.robot, robotId)) ?? sql`true`} ORDER BY ${order} LIMIT ${offset + limit})`,
  );
  const merged = sql.join([...leadNames, sql`start DESC NULLS LAST`, sql`id`], sql`, `);
  return sql`SELECT id FROM (${sql.join(ranges, sql` UNION ALL `)}) AS ranges ORDER BY ${merged} LIMIT ${limit} OFFSET ${offset}`;
}

/** The count of a list's matches, exact up to `EXACT_COUNT_CAP` (see `cappedCount`). */
export function listCount(executor: Executor, list: ListTable, scope: ListScope): Promise<number> {
  const where = and(scope.where, scope.robotIds ? inArray(list.robot, scope.robotIds) : undefined);
  return cappedCount(executor, sql`SELECT 1 FROM ${list.table} WHERE ${where ?? sql`true`}`);
}
