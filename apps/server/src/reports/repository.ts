/**
 * SQL of the reports. What a caller may see is what the logs list shows them (a done-teleoperator: logs of the
 * robots of their groups; the restricted roles: every log of their organization); a scope narrows it to rooms of
 * a building, a floor or a group. Period rows are read in pages by keyset (starttime, job id), never all at once.
 */
import { and, desc, eq, inArray, sql, type SQL } from 'drizzle-orm';
import { DEFAULT_TIMEZONE, EARLIEST_INSTANT_MS, Id, LATEST_INSTANT_MS, type Compliance, type LampInterval, type LoggedJobEvent, type LoggedPrompt, type MapPoint, type PeriodSummary, type ReportScope, type TrajectoryPoint } from '@uvd/contracts';
import type { Executor } from '../db/client.ts';
import { buildings, floors, groups, logs, organizations, roomGroups, rooms, userGroups, users, type StoredLogDose } from '../db/schema.ts';
import type { Principal } from '../identity/principal.ts';
import { notFound } from '../lib/http-error.ts';
import { robotVisible, roomVisible, seesEverything } from '../lib/visibility.ts';
import { zonedDayStart } from '../jobs/list-filter.ts';
import { isInterruption, reportRooms, startOf, type LogSource, type ReportJob, type ReportRoom, type RoomPlace } from './rows.ts';

/** The caller's language and timezone (their settings). */
export async function settingsOf(db: Executor, principal: Principal): Promise<{ language: string; timezone: string }> {
  // Keycloak subjects are UUIDs too; anything else cannot be one of our rows.
  if (!Id.safeParse(principal.sub).success) return { language: 'EN', timezone: DEFAULT_TIMEZONE };
  const [row] = await db
    .select({ language: users.language, timezone: users.timezone })
    .from(users)
    .where(and(eq(users.orgId, principal.orgId), eq(users.id, principal.sub)));
  return { language: row?.language ?? 'EN', timezone: row?.timezone || DEFAULT_TIMEZONE };
}

const logVisibility = (db: Executor, principal: Principal): SQL => and(eq(logs.orgId, principal.orgId), seesEverything(principal) ? undefined : robotVisible(db, principal, logs.robotId)) ?? sql`false`;

const toJob = (row: {
  jobId: string;
  jobName: string;
  robotName: string;
  createdBy: string;
  completionStatus: string;
  reason: string | null;
  startTime: Date;
  endTime: Date | null;
  plannedStartTime: Date | null;
  events: LoggedJobEvent[];
}): ReportJob => ({
  job_id: row.jobId,
  job_name: row.jobName,
  robot_name: row.robotName,
  created_by: row.createdBy,
  started: startOf(row.events),
  completion_status: row.completionStatus,
  reason: row.reason,
  starttime: row.startTime.toISOString(),
  endtime: row.endTime?.toISOString() ?? null,
  planned_starttime: row.plannedStartTime?.toISOString() ?? null,
});

const jobColumns = {
  jobId: logs.jobId,
  jobName: logs.jobName,
  robotName: logs.robotName,
  createdBy: logs.createdBy,
  completionStatus: logs.completionStatus,
  reason: logs.reason,
  startTime: logs.startTime,
  endTime: logs.endTime,
  plannedStartTime: logs.plannedStartTime,
};

/** Where rooms are now: building and floor, with their outline. */
export interface PlacedRoom extends RoomPlace {
  roomId: string;
  roomName: string;
  floorLevel: number;
  polygon: MapPoint[];
}

async function placesOf(db: Executor, orgId: string, roomIds: readonly string[]): Promise<PlacedRoom[]> {
  const ids = [...new Set(roomIds)].filter((id) => Id.safeParse(id).success);
  if (ids.length === 0) return [];
  return db
    .select({
      roomId: rooms.id,
      roomName: rooms.name,
      polygon: rooms.polygon,
      floorId: floors.id,
      floorName: floors.name,
      floorLevel: floors.level,
      buildingId: buildings.id,
      buildingName: buildings.name,
    })
    .from(rooms)
    .innerJoin(floors, eq(floors.id, rooms.floorId))
    .innerJoin(buildings, eq(buildings.id, floors.buildingId))
    .where(and(eq(rooms.orgId, orgId), inArray(rooms.id, ids)));
}

/** Everything a job report shows. */
export interface JobReportData {
  job: ReportJob;
  notes: string;
  rooms: ReportRoom[];
  events: LoggedJobEvent[];
  prompts: LoggedPrompt[];
  trajectory: TrajectoryPoint[];
  dose: StoredLogDose | null;
  /** The floors the job's rooms or path are on, each with its rooms (the job's, and the others the caller may see). */
  floors: { floorId: string; floorName: string; buildingName: string; level: number; rooms: { roomId: string; name: string; polygon: MapPoint[] }[] }[];
}

/** A job's report data, or undefined when it has no log the caller may see. */
export async function jobReport(db: Executor, principal: Principal, jobId: string, { map }: { map: boolean }): Promise<JobReportData | undefined> {
  // The dose grids and the path can be large: only the PDF, which draws them, reads them.
  const [row] = await db
    .select({
      ...jobColumns,
      notes: logs.notes,
      rooms: logs.rooms,
      events: logs.events,
      prompts: logs.prompts,
      trajectory: map ? logs.trajectory : sql<null>`NULL`,
      dose: map ? logs.dose : sql<StoredLogDose | null>`CASE WHEN ${logs.dose} IS NULL THEN NULL ELSE jsonb_build_object('lamp_intervals', ${logs.dose}->'lamp_intervals') END`,
    })
    .from(logs)
    .where(and(eq(logs.jobId, jobId), logVisibility(db, principal)));
  if (!row) return undefined;
  const places = await placesOf(db, principal.orgId, row.rooms.map((room) => room.room_id));
  const placeMap = new Map(places.map((place) => [place.roomId, place]));
  const source: LogSource = {
    job: toJob(row),
    rooms: row.rooms,
    events: row.events,
    prompts: row.prompts,
    lampIntervals: row.dose?.lamp_intervals ?? null,
  };
  const trajectory = row.trajectory ?? [];
  // A start is in the log's events, but the report lists interruptions.
  const interruptions = row.events.filter(isInterruption);
  if (!map) return { job: source.job, notes: row.notes, rooms: reportRooms(source, placeMap), events: interruptions, prompts: row.prompts, trajectory, dose: null, floors: [] };
  const floorIds = [...new Set([...places.map((place) => place.floorId), ...trajectory.map((point) => point.floor_id)])].filter((id) => Id.safeParse(id).success);
  const floorRows =
    floorIds.length === 0
      ? []
      : await db
          .select({ floorId: floors.id, floorName: floors.name, level: floors.level, buildingName: buildings.name })
          .from(floors)
          .innerJoin(buildings, eq(buildings.id, floors.buildingId))
          .where(and(eq(floors.orgId, principal.orgId), inArray(floors.id, floorIds)));
  // The plan shows the other rooms of the floor the caller may see too, unlabelled, so the job's rooms sit in context.
  const floorRooms =
    floorIds.length === 0
      ? []
      : await db
          .select({ roomId: rooms.id, name: rooms.name, polygon: rooms.polygon, floorId: rooms.floorId })
          .from(rooms)
          .where(and(eq(rooms.orgId, principal.orgId), inArray(rooms.floorId, floorIds), seesEverything(principal) ? undefined : roomVisible(db, principal, rooms.id)));
  const jobRoomIds = new Set(row.rooms.map((room) => room.room_id));
  for (const place of places) {
    if (!floorRooms.some((room) => room.roomId === place.roomId)) floorRooms.push({ roomId: place.roomId, name: place.roomName, polygon: place.polygon, floorId: place.floorId });
  }
  return {
    job: source.job,
    notes: row.notes,
    rooms: reportRooms(source, placeMap),
    events: interruptions,
    prompts: row.prompts,
    trajectory,
    dose: row.dose,
    floors: floorRows
      .sort((a, b) => a.buildingName.localeCompare(b.buildingName) || a.level - b.level)
      .map((floor) => ({
        ...floor,
        rooms: floorRooms
          .filter((room) => room.floorId === floor.floorId)
          .sort((a, b) => Number(jobRoomIds.has(a.roomId)) - Number(jobRoomIds.has(b.roomId)))
          .map(({ roomId, name, polygon }) => ({ roomId, name, polygon })),
      })),
  };
}

// ---------------------------------------------------------------- periods

export interface ResolvedScope {
  scope: ReportScope;
  scopeId: string | null;
  name: string;
  /** A condition on a logged room (`room`: a jsonb element of logs.rooms) holding it in the scope. */
  roomCondition: (room: SQL) => SQL;
}

/** The scope asked for, or 404 when it is not the caller's to see (another organization; a group not theirs). */
export async function resolveScope(db: Executor, principal: Principal, scope: ReportScope, scopeId: string | undefined): Promise<ResolvedScope> {
  if (scope === 'organization' || scopeId === undefined) {
    const [org] = await db.select({ name: organizations.name }).from(organizations).where(eq(organizations.id, principal.orgId));
    return { scope: 'organization', scopeId: null, name: org?.name ?? principal.orgId, roomCondition: () => sql`true` };
  }
  if (scope === 'building') {
    const [building] = await db.select({ name: buildings.name }).from(buildings).where(and(eq(buildings.id, scopeId), eq(buildings.orgId, principal.orgId)));
    if (!building) throw notFound('Building');
    return {
      scope,
      scopeId,
      name: building.name,
      roomCondition: (room) => sql`(${room}->>'room_id') IN (SELECT ${rooms.id}::text FROM ${rooms} WHERE ${rooms.orgId} = ${principal.orgId} AND ${rooms.buildingId} = ${scopeId})`,
    };
  }
  if (scope === 'floor') {
    const [floor] = await db
      .select({ name: floors.name, buildingName: buildings.name })
      .from(floors)
      .innerJoin(buildings, eq(buildings.id, floors.buildingId))
      .where(and(eq(floors.id, scopeId), eq(floors.orgId, principal.orgId)));
    if (!floor) throw notFound('Floor');
    return {
      scope,
      scopeId,
      name: `${floor.buildingName} / ${floor.name}`,
      roomCondition: (room) => sql`(${room}->>'room_id') IN (SELECT ${rooms.id}::text FROM ${rooms} WHERE ${rooms.orgId} = ${principal.orgId} AND ${rooms.floorId} = ${scopeId})`,
    };
  }
  // A teleoperator's group scope must be one of their own groups.
  const mine = seesEverything(principal)
    ? undefined
    : inArray(groups.id, db.select({ id: userGroups.groupId }).from(userGroups).where(eq(userGroups.userId, principal.sub)));
  const [group] = await db.select({ name: groups.name }).from(groups).where(and(eq(groups.id, scopeId), eq(groups.orgId, principal.orgId), mine));
  if (!group) throw notFound('Group');
  return {
    scope,
    scopeId,
    name: group.name,
    roomCondition: (room) => sql`(${room}->>'room_id') IN (SELECT ${roomGroups.roomId}::text FROM ${roomGroups} WHERE ${roomGroups.groupId} = ${scopeId})`,
  };
}

/** The instants of a period of whole days in `timeZone`: [first midnight, the midnight after the last day). */
export function periodBounds(fromDate: string, toDate: string, timeZone: string): { from: Date; to: Date } {
  const parts = (date: string): [number, number, number] => {
    const [year = 1, month = 1, day = 1] = date.split('-').map(Number);
    return [year, month, day];
  };
  const [fy, fm, fd] = parts(fromDate);
  const [ty, tm, td] = parts(toDate);
  // No driver sends an instant outside years 1–9999 to PostgreSQL (midnight of 0001-01-01 east of UTC is in year 0).
  return {
    from: new Date(Math.max(EARLIEST_INSTANT_MS, zonedDayStart(fy, fm, fd, timeZone))),
    to: new Date(Math.min(LATEST_INSTANT_MS, zonedDayStart(ty, tm, td + 1, timeZone))),
  };
}

interface PeriodFilter {
  principal: Principal;
  scope: ResolvedScope;
  from: Date;
  to: Date;
  timeZone: string;
}

const periodWhere = (db: Executor, { principal, from, to }: PeriodFilter): SQL =>
  sql`${logVisibility(db, principal)} AND ${logs.startTime} >= ${from.toISOString()}::timestamptz AND ${logs.startTime} < ${to.toISOString()}::timestamptz`;

/** Rows of a raw query; both drivers (node-postgres and PGlite) answer `{ rows }`. */
function rowsOf(result: unknown): Record<string, unknown>[] {
  if (typeof result !== 'object' || result === null || !('rows' in result) || !Array.isArray(result.rows)) return [];
  return result.rows.filter((row): row is Record<string, unknown> => typeof row === 'object' && row !== null);
}

const FULLY_DOSED = (room: SQL): SQL =>
  sql`CASE WHEN jsonb_typeof(${room}->'dose_stats') = 'object' THEN coalesce((${room}->'dose_stats'->>'coverage')::float8 >= 1, false) ELSE (${room}->>'state') = 'done' END`;

const compliance = (planned: number, fully: number): Compliance => ({
  rooms_planned: planned,
  rooms_fully_dosed: fully,
  rate: planned === 0 ? null : fully / planned,
});

/** ISO week (yyyy-Www) of a calendar day, as PostgreSQL's `IYYY-"W"IW` writes it. */
export function isoWeek(year: number, month: number, day: number): string {
  const date = new Date(Date.UTC(2000, 0, 1));
  date.setUTCFullYear(year, month - 1, day);
  // The Thursday of the day's week (weeks run Monday to Sunday) decides its year; its weeks count from that year's first.
  date.setUTCDate(date.getUTCDate() + 3 - ((date.getUTCDay() + 6) % 7));
  const weekYear = date.getUTCFullYear();
  const newYear = new Date(Date.UTC(2000, 0, 1));
  newYear.setUTCFullYear(weekYear, 0, 1);
  const week = Math.floor(Math.round((date.getTime() - newYear.getTime()) / 86_400_000) / 7) + 1;
  return `${String(weekYear).padStart(4, '0')}-W${String(week).padStart(2, '0')}`;
}

/** Every ISO week a period of days touches, oldest first. */
export function weeksOf(fromDate: string, toDate: string): string[] {
  const weeks: string[] = [];
  const day = new Date(`${fromDate}T00:00:00Z`);
  const last = new Date(`${toDate}T00:00:00Z`).getTime();
  for (; day.getTime() <= last; day.setUTCDate(day.getUTCDate() + 1)) {
    const week = isoWeek(day.getUTCFullYear(), day.getUTCMonth() + 1, day.getUTCDate());
    if (weeks.at(-1) !== week) weeks.push(week);
  }
  return weeks;
}

/** The compliance figures of a period, aggregated by the database (no room row reaches this process). */
export async function periodSummary(db: Executor, filter: PeriodFilter, fromDate: string, toDate: string): Promise<PeriodSummary> {
  const room = sql.raw('r.room');
  const where = periodWhere(db, filter);
  const grouped = rowsOf(
    await db.execute(sql`
      SELECT ${buildings.id}::text AS building_id, ${buildings.name} AS building_name,
             to_char(${logs.startTime} AT TIME ZONE ${filter.timeZone}, 'IYYY-"W"IW') AS week,
             count(*)::int AS planned, count(*) FILTER (WHERE ${FULLY_DOSED(room)})::int AS fully
      FROM ${logs}
      CROSS JOIN LATERAL jsonb_array_elements(${logs.rooms}) AS r(room)
      LEFT JOIN ${rooms} ON ${rooms.id}::text = (r.room->>'room_id') AND ${rooms.orgId} = ${logs.orgId}
      LEFT JOIN ${buildings} ON ${buildings.id} = ${rooms.buildingId}
      WHERE ${where} AND ${filter.scope.roomCondition(room)}
      GROUP BY 1, 2, 3`),
  );
  const [jobs] = rowsOf(
    await db.execute(sql`
      SELECT count(*)::int AS jobs FROM ${logs}
      WHERE ${where} AND EXISTS (SELECT 1 FROM jsonb_array_elements(${logs.rooms}) AS r(room) WHERE ${filter.scope.roomCondition(room)})`),
  );
  const buildingsSeen = new Map<string, { name: string; planned: number; fully: number }>();
  const weeks = new Map(weeksOf(fromDate, toDate).map((week) => [week, { planned: 0, fully: 0 }]));
  let planned = 0;
  let fully = 0;
  for (const row of grouped) {
    const rowPlanned = Number(row.planned ?? 0);
    const rowFully = Number(row.fully ?? 0);
    planned += rowPlanned;
    fully += rowFully;
    if (typeof row.building_id === 'string') {
      const building = buildingsSeen.get(row.building_id) ?? { name: typeof row.building_name === 'string' ? row.building_name : '', planned: 0, fully: 0 };
      building.planned += rowPlanned;
      building.fully += rowFully;
      buildingsSeen.set(row.building_id, building);
    }
    const week = weeks.get(String(row.week));
    if (week) {
      week.planned += rowPlanned;
      week.fully += rowFully;
    }
  }
  return {
    from_date: fromDate,
    to_date: toDate,
    scope: filter.scope.scope,
    scope_id: filter.scope.scopeId,
    scope_name: filter.scope.name,
    jobs: Number(jobs?.jobs ?? 0),
    total: compliance(planned, fully),
    by_building: [...buildingsSeen.entries()]
      .map(([id, building]) => ({ building_id: id, building_name: building.name, ...compliance(building.planned, building.fully) }))
      .sort((a, b) => a.building_name.localeCompare(b.building_name)),
    by_week: [...weeks.entries()].map(([week, figures]) => ({ week, ...compliance(figures.planned, figures.fully) })),
  };
}

/** Logs per page when a period's rooms are read: about a hundred rooms; on PGlite one page's query holds the event loop (bench:reports). */
export const PERIOD_PAGE_LOGS = 50;

/**
 * The rooms of a period in the scope, oldest job first, one page of logs at a time (keyset on starttime and job
 * id: each page is an index range, however deep). Holds one page and the places of the rooms seen so far.
 */
export async function* periodRooms(db: Executor, filter: PeriodFilter, pageLogs = PERIOD_PAGE_LOGS): AsyncGenerator<ReportRoom[]> {
  const room = sql.raw('r.room');
  const where = periodWhere(db, filter);
  const places = new Map<string, RoomPlace>();
  const inScope = filter.scope.scope === 'organization' ? undefined : new Set<string>();
  let cursor: { start: string; jobId: string } | undefined;
  for (;;) {
    // The order matches `logs_org_start` (org, starttime DESC, job_id) read backwards, so each page is an index
    // range from the cursor on: a row comparison, or job ids ascending, would make every page sort what follows.
    const after = cursor
      ? sql`AND ${logs.startTime} >= ${cursor.start}::timestamptz AND (${logs.startTime} > ${cursor.start}::timestamptz OR ${logs.jobId} < ${cursor.jobId}::uuid)`
      : sql``;
    // The scope's rooms of each log, chosen by the database: a building's report never reads its other rooms' ids.
    const scoped =
      filter.scope.scope === 'organization'
        ? sql`NULL::jsonb`
        : sql`(SELECT coalesce(jsonb_agg(r.room->>'room_id'), '[]'::jsonb) FROM jsonb_array_elements(${logs.rooms}) AS r(room) WHERE ${filter.scope.roomCondition(room)})`;
    const rows = await db
      .select({
        ...jobColumns,
        rooms: logs.rooms,
        events: logs.events,
        prompts: logs.prompts,
        // Full precision (microseconds), which a Date would cut: the next page starts after exactly this row.
        cursor: sql<string>`${logs.startTime}::text`,
        lampIntervals: sql<LampInterval[] | null>`${logs.dose}->'lamp_intervals'`,
        scoped: sql<string[] | null>`${scoped}`,
      })
      .from(logs)
      .where(sql`${where} ${after} AND EXISTS (SELECT 1 FROM jsonb_array_elements(${logs.rooms}) AS r(room) WHERE ${filter.scope.roomCondition(room)})`)
      .orderBy(logs.startTime, desc(logs.jobId))
      .limit(pageLogs);
    if (rows.length === 0) return;
    const sources = rows.map(
      (row): LogSource => ({ job: toJob(row), rooms: row.rooms, events: row.events, prompts: row.prompts, lampIntervals: row.lampIntervals }),
    );
    const missing = sources.flatMap((source) => source.rooms.map((logged) => logged.room_id)).filter((id) => !places.has(id));
    for (const place of await placesOf(db, filter.principal.orgId, missing)) places.set(place.roomId, place);
    const page: ReportRoom[] = [];
    for (const [index, source] of sources.entries()) {
      if (inScope) {
        inScope.clear();
        for (const id of rows[index]?.scoped ?? []) inScope.add(id);
      }
      page.push(...reportRooms(source, places, inScope ? (id) => inScope.has(id) : undefined));
    }
    yield page;
    const last = rows.at(-1);
    if (!last) return;
    cursor = { start: last.cursor, jobId: last.jobId };
    if (rows.length < pageLogs) return;
  }
}

