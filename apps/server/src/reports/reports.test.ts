/**
 * The reports over real HTTP on a real database (PGlite, or PostgreSQL with TEST_DATABASE_URL). Logs with their
 * dose figures and grids are inserted as the log writer stores them (the dose model is its own module's).
 */
import { eq } from 'drizzle-orm';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, PeriodSummary, type LoggedJobEvent, type LoggedPrompt } from '@uvd/contracts';
import { logs, users, type StoredLogDose, type StoredLoggedRoom } from '../db/schema.ts';
import { startRouteTestServer, type TestServer, type TestUser } from '../testing/harness.ts';
import { createSite, type Site } from '../testing/site-fixtures.ts';
import { CSV_COLUMNS } from './csv.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startRouteTestServer();
});
afterAll(async () => {
  await server.close();
});

interface World {
  orgId: string;
  groupId: string;
  admin: TestUser;
  /** A teleoperator of `groupId`, whose robots and rooms are `site`'s. */
  operator: TestUser;
  /** A teleoperator of another group of the same organization. */
  stranger: TestUser;
  otherGroupId: string;
  site: Site;
  /** A second building, in no group. */
  hidden: Site;
}

async function world(): Promise<World> {
  const orgId = await server.createOrg();
  const groupId = await server.createGroup(orgId);
  const otherGroupId = await server.createGroup(orgId);
  const site = await createSite(server.context.db, orgId, { floors: 2, roomsPerFloor: 2, robots: 1, groupIds: [groupId] });
  const hidden = await createSite(server.context.db, orgId, { roomsPerFloor: 2, robots: 1 });
  return {
    orgId,
    groupId,
    otherGroupId,
    site,
    hidden,
    admin: await server.createUser(orgId, ['done-admin']),
    operator: await server.createUser(orgId, ['done-teleoperator'], { groupIds: [groupId] }),
    stranger: await server.createUser(orgId, ['done-teleoperator'], { groupIds: [otherGroupId] }),
  };
}

const setSettings = (user: TestUser, language: string, timezone = 'Europe/Helsinki') =>
  server.context.db.update(users).set({ language, timezone }).where(eq(users.id, user.id));

const room = (order: number, roomId: string, name: string, values: Partial<StoredLoggedRoom> = {}): StoredLoggedRoom => ({
  order,
  room_id: roomId,
  room_name: name,
  dose: 100,
  state: 'done',
  dose_received: 100,
  ...values,
});

/** A 4 × 4 m room's field of 1 m cells: `low` in the first cell, `high` elsewhere. */
const grid = (low: number, high: number) => ({
  origin: { x: 0, y: 0 },
  cell_m: 1,
  columns: 4,
  rows: 4,
  values: Array.from({ length: 16 }, (_, index) => (index === 0 ? low : high)),
});

interface LogValues {
  name?: string;
  start: string;
  robotId: string;
  rooms: StoredLoggedRoom[];
  events?: LoggedJobEvent[];
  prompts?: LoggedPrompt[];
  dose?: StoredLogDose | null;
  trajectory?: { t: number; x: number; y: number; floor_id: string }[];
  createdBy?: string;
}

const logRow = (orgId: string, values: LogValues) => {
  const start = new Date(values.start);
  return {
    jobId: crypto.randomUUID(),
    orgId,
    jobName: values.name ?? 'Ward round',
    completionStatus: 'completed',
    robotId: values.robotId,
    robotName: 'UVD 1',
    createdBy: values.createdBy ?? 'planner',
    startTime: start,
    endTime: new Date(start.getTime() + 30 * 60_000),
    plannedStartTime: start,
    rooms: values.rooms,
    events: values.events ?? [],
    prompts: values.prompts ?? [],
    trajectory: values.trajectory ?? null,
    dose: values.dose ?? null,
  };
};

async function insertLog(w: World, values: LogValues): Promise<string> {
  const row = logRow(w.orgId, values);
  await server.context.db.insert(logs).values(row);
  return row.jobId;
}

const SAMI = 'Čoahkkinlatnja ŋ đ ŧ ž š';

/** A job of the group's robot over the first floor's two rooms, with figures, interruptions, a prompt, grids and path. */
async function fullJob(w: World): Promise<string> {
  const [first = '', second = ''] = w.site.floors[0]?.roomIds ?? [];
  const floorId = w.site.floors[0]?.id ?? '';
  const robotId = w.site.robotIds[0] ?? '';
  return insertLog(w, {
    name: 'Ward A, evening',
    start: '2030-03-04T16:00:00Z',
    robotId,
    createdBy: 'planner-päivi',
    rooms: [
      room(0, first, SAMI, { dose_stats: { min: 120, p10: 130, mean: 150, coverage: 1 } }),
      room(1, second, 'Potilashuone 12 (äöå)', { state: 'aborted', dose_received: 40, dose_stats: { min: 5, p10: 12.5, mean: 45, coverage: 0.25 } }),
    ],
    events: [
      { at: '2030-03-04T16:00:00Z', kind: 'started', actor: 'starter-sanna', order_no: null, room_id: null, room_name: null, dose: null, cause: 'operator' },
      { at: '2030-03-04T16:10:00Z', kind: 'paused', actor: 'nurse-anna', order_no: 1, room_id: second, room_name: 'Potilashuone 12 (äöå)', dose: 20, cause: 'operator' },
      { at: '2030-03-04T16:12:00Z', kind: 'resumed', actor: 'nurse-anna', order_no: 1, room_id: second, room_name: 'Potilashuone 12 (äöå)', dose: 20, cause: 'operator' },
      { at: '2030-03-04T16:20:00Z', kind: 'stopped', actor: 'nurse-bertta', order_no: null, room_id: null, room_name: null, dose: null, cause: 'operator' },
    ],
    prompts: [
      {
        action_id: crypto.randomUUID(),
        button: 'wait_to_enter',
        room_name: SAMI,
        asked_at: '2030-03-04T16:01:00Z',
        answered_at: '2030-03-04T16:02:00Z',
        answered_by: 'nurse-anna',
        confirm: true,
        source: 'notification',
      },
    ],
    dose: {
      lamp: { uvc_power_w: 80, height_m: 1, length_m: 1, radial_profile: [1] },
      lamp_intervals: [
        { order: 0, from: '2030-03-04T16:02:00Z', to: '2030-03-04T16:08:00Z' },
        { order: 1, from: '2030-03-04T16:09:00Z', to: '2030-03-04T16:20:00Z' },
      ],
      grids: { '0': grid(120, 160), '1': { ...grid(5, 60), origin: { x: 5, y: 0 } } },
    },
    trajectory: [
      { t: 0, x: 2, y: 2, floor_id: floorId },
      { t: 60, x: 2, y: 3, floor_id: floorId },
      { t: 600, x: 7, y: 2, floor_id: floorId },
    ],
  });
}

async function download(path: string, user: TestUser, query?: Record<string, string>): Promise<Response> {
  const target = new URL(`/api${path}`, server.url);
  for (const [key, value] of Object.entries(query ?? {})) target.searchParams.set(key, value);
  return fetch(target, { headers: { authorization: `Bearer ${user.token}` } });
}

async function pdfText(response: Response): Promise<string> {
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toBe('application/pdf');
  const bytes = new Uint8Array(await response.arrayBuffer());
  expect(new TextDecoder().decode(bytes.subarray(0, 5))).toBe('%PDF-');
  const document = await getDocument({ data: bytes, isEvalSupported: false, useSystemFonts: false }).promise;
  const pages: string[] = [];
  for (let number = 1; number <= document.numPages; number++) {
    const content = await (await document.getPage(number)).getTextContent();
    pages.push(content.items.map((item) => ('str' in item ? item.str : '')).join(' '));
  }
  await document.destroy();
  // Cells wrap: a word may be cut over lines, so the checks read the text with its spaces collapsed.
  return pages.join('\n').replace(/\s+/g, ' ');
}

/** RFC 4180: quoted fields may hold commas, doubled quotes and line breaks. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let index = 0; index < text.length; index++) {
    const char = text.charAt(index);
    if (quoted) {
      if (char === '"' && text[index + 1] === '"') {
        field += '"';
        index++;
      } else if (char === '"') quoted = false;
      else field += char;
    } else if (char === '"') quoted = true;
    else if (char === ',') {
      row.push(field);
      field = '';
    } else if (char === '\r' && text[index + 1] === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
      index++;
    } else field += char;
  }
  expect(field, 'the last row ends with CRLF').toBe('');
  return rows;
}

async function csvRecords(response: Response): Promise<Record<string, string>[]> {
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/csv; charset=utf-8/);
  const bytes = new Uint8Array(await response.arrayBuffer());
  expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
  const [header, ...rows] = parseCsv(new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes.subarray(3)));
  expect(header).toEqual([...CSV_COLUMNS]);
  for (const row of rows) expect(row).toHaveLength(CSV_COLUMNS.length);
  return rows.map((row) => Object.fromEntries(CSV_COLUMNS.map((column, index) => [column, row[index] ?? ''])));
}

function expectError(response: { status: number; body: unknown }, status: number, field?: string): void {
  expect(response.status).toBe(status);
  const error = ApiError.parse(response.body);
  if (field) expect(error.message).toContain(field);
}

describe('job reports', () => {
  it('PDF in Finnish: every room with planned and delivered dose, interruptions, prompts, the dose map; the Sami letters survive', async () => {
    const w = await world();
    const jobId = await fullJob(w);
    await setSettings(w.operator, 'FI');
    const response = await download(`/reports/job/${jobId}/pdf`, w.operator);
    expect(response.headers.get('content-disposition')).toBe(`attachment; filename="disinfection-${jobId}.pdf"`);
    const text = await pdfText(response);
    for (const expected of [
      'Desinfiointiraportti',
      'Ward A, evening',
      'planner-päivi',
      SAMI,
      'Potilashuone 12 (äöå)',
      'Desinfioitu',
      'Ei desinfioitu (keskeytetty)',
      // planned, min, p10, mean with mJ/cm² beside, Finnish decimals; coverage; the robot's own figure
      '100,0 (10,0)',
      '120,0 (12,0)',
      '12,5 (1,3)',
      '45,0 (4,5)',
      '25 %',
      '40,0 (4,0)',
      'Keskeytykset',
      'Tauko',
      'Jatkettu',
      'nurse-anna',
      'nurse-bertta',
      'Pysäytetty',
      'Kysymykset',
      'Saako huoneeseen mennä?',
      'ilmoitus',
      'Annoskartta',
      'Robotin reitti',
      'Annos (J/m², mJ/cm²)',
      'Europe/Helsinki',
      'Käynnistäjä',
      'starter-sanna',
    ]) {
      expect(text).toContain(expected);
    }
    // Who started the job is said beside who planned it; a start is no interruption.
    expect(text).not.toContain('Käynnistetty');
    // Times in the user's timezone: 16:10 UTC is 18.10 in Helsinki.
    expect(text).toContain('18.10');
  });

  it('PDF in Swedish (se) with its letters', async () => {
    const w = await world();
    const jobId = await fullJob(w);
    await setSettings(w.admin, 'SE', 'Europe/Stockholm');
    const text = await pdfText(await download(`/reports/job/${jobId}/pdf`, w.admin));
    for (const expected of ['Desinfektionsrapport', 'Desinficerat', 'Inte desinficerat (avbrutet)', 'Pausat', 'Återupptaget', 'Får roboten gå in?', 'Doskarta', 'Robotens väg', SAMI, '120,0 (12,0)', 'Europe/Stockholm']) {
      expect(text).toContain(expected);
    }
    // 16:10 UTC is 17:10 in Stockholm.
    expect(text).toContain('17:10');
  });

  it('a log without a dose field still reports its rooms, and says it has no dose map', async () => {
    const w = await world();
    const jobId = await insertLog(w, {
      start: '2030-03-04T16:00:00Z',
      robotId: w.site.robotIds[0] ?? '',
      rooms: [room(0, w.site.floors[0]?.roomIds[0] ?? '', 'Old room', { dose_stats: undefined })],
      trajectory: [{ t: 0, x: 1, y: 1, floor_id: w.site.floors[0]?.id ?? '' }],
      events: [{ at: '2030-03-04T16:00:00Z', kind: 'started', actor: null, order_no: null, room_id: null, room_name: null, dose: null, cause: 'scheduler' }],
    });
    const text = await pdfText(await download(`/reports/job/${jobId}/pdf`, w.admin));
    expect(text).toContain('Old room');
    expect(text).toContain('Started by');
    expect(text).toContain('the scheduler, at the planned start');
    expect(text).toContain('No dose map: the log has no recorded dose field.');
  });

  it('CSV: one row per room, stable keys, figures in J/m² and mJ/cm², times in the user’s timezone, RFC 4180 quoting', async () => {
    const w = await world();
    const jobId = await fullJob(w);
    await server.context.db.update(logs).set({ jobName: 'Evening, "quick"\nround' }).where(eq(logs.jobId, jobId));
    await setSettings(w.operator, 'FI');
    const records = await csvRecords(await download(`/reports/job/${jobId}/csv`, w.operator));
    expect(records).toHaveLength(2);
    const [first, second] = records;
    expect(first).toMatchObject({
      job_id: jobId,
      job_name: 'Evening, "quick"\nround',
      planned_by: 'planner-päivi',
      started_by: 'starter-sanna',
      job_start: '2030-03-04T18:00:00+02:00',
      order: '0',
      room: SAMI,
      state: 'done',
      state_label: 'Desinfioitu',
      planned_dose_j_m2: '100',
      planned_dose_mj_cm2: '10',
      dose_min_j_m2: '120',
      dose_min_mj_cm2: '12',
      coverage: '1',
      fully_dosed: 'true',
      lamp_on_from: '2030-03-04T18:02:00+02:00',
      lamp_on_to: '2030-03-04T18:08:00+02:00',
    });
    expect(first?.prompts).toContain('nurse-anna');
    expect(second).toMatchObject({ state: 'aborted', dose_p10_j_m2: '12.5', dose_p10_mj_cm2: '1.25', coverage: '0.25', fully_dosed: 'false', dose_reported_j_m2: '40' });
    expect(second?.interruptions).toContain('Tauko');
    expect(second?.job_interruptions).toContain('nurse-bertta');
    expect(second?.job_interruptions).not.toContain('starter-sanna');
    expect(first?.building).toMatch(/^Building /);
  });

  it('a formula-looking name is kept as text in the CSV', async () => {
    const w = await world();
    const jobId = await insertLog(w, { name: '=HYPERLINK("x")', start: '2030-03-04T16:00:00Z', robotId: w.site.robotIds[0] ?? '', rooms: [room(0, w.site.floors[0]?.roomIds[0] ?? '', '+room')] });
    const [record] = await csvRecords(await download(`/reports/job/${jobId}/csv`, w.admin));
    expect(record?.job_name).toBe(`'=HYPERLINK("x")`);
    expect(record?.room).toBe(`'+room`);
  });

  it('is 404 for a job without a log, a log of a robot outside the teleoperator’s groups, and another organization', async () => {
    const w = await world();
    const jobId = await fullJob(w);
    const hiddenJob = await insertLog(w, { start: '2030-03-04T16:00:00Z', robotId: w.hidden.robotIds[0] ?? '', rooms: [room(0, w.hidden.floors[0]?.roomIds[0] ?? '', 'Hidden')] });
    const otherOrg = await server.createOrg();
    const outsider = await server.createUser(otherOrg, ['done-superadmin']);
    for (const format of ['pdf', 'csv']) {
      expectError(await server.request('GET', `/api/reports/job/${crypto.randomUUID()}/${format}`, { token: w.admin.token }), 404);
      expectError(await server.request('GET', `/api/reports/job/${jobId}/${format}`, { token: w.stranger.token }), 404);
      expectError(await server.request('GET', `/api/reports/job/${hiddenJob}/${format}`, { token: w.operator.token }), 404);
      expectError(await server.request('GET', `/api/reports/job/${jobId}/${format}`, { token: outsider.token }), 404);
      expect((await download(`/reports/job/${hiddenJob}/${format}`, w.admin)).status).toBe(200);
    }
  });
});

describe('period reports', () => {
  /**
   * In March 2030 (Helsinki): week 10 (Mar 4–10) and week 11 (Mar 11–17); Mar 18–19 is week 12 with nothing.
   * The group's building: four rooms; the hidden building: two. Fully dosed: coverage 1, or done without figures.
   */
  async function month(w: World): Promise<void> {
    const [a1 = '', a2 = ''] = w.site.floors[0]?.roomIds ?? [];
    const [b1 = ''] = w.site.floors[1]?.roomIds ?? [];
    const [h1 = '', h2 = ''] = w.hidden.floors[0]?.roomIds ?? [];
    const robot = w.site.robotIds[0] ?? '';
    const hiddenRobot = w.hidden.robotIds[0] ?? '';
    // Week 10: full coverage; done without figures; done but coverage 0.9 (not fully dosed).
    await insertLog(w, {
      name: 'w10',
      start: '2030-03-04T08:00:00Z',
      robotId: robot,
      rooms: [room(0, a1, 'A1', { dose_stats: { min: 100, p10: 100, mean: 120, coverage: 1 } }), room(1, a2, 'A2'), room(2, b1, 'B1', { dose_stats: { min: 10, p10: 50, mean: 110, coverage: 0.9 } })],
    });
    // Week 11, Sunday 23:30 Helsinki (21:30 UTC): still week 11 in Helsinki.
    await insertLog(w, { name: 'w11', start: '2030-03-17T21:30:00Z', robotId: robot, rooms: [room(0, a1, 'A1', { state: 'not_reached', dose_received: null })] });
    // The hidden building's robot, week 11: seen by the admin only.
    await insertLog(w, { name: 'hidden', start: '2030-03-12T08:00:00Z', robotId: hiddenRobot, rooms: [room(0, h1, 'H1'), room(1, h2, 'H2', { state: 'aborted' })] });
    // Outside the period: the day before (Helsinki) and the day after.
    await insertLog(w, { name: 'before', start: '2030-03-03T21:59:00Z', robotId: robot, rooms: [room(0, a1, 'A1')] });
    await insertLog(w, { name: 'after', start: '2030-03-19T22:00:00Z', robotId: robot, rooms: [room(0, a1, 'A1')] });
  }

  const summaryOf = async (user: TestUser, query: Record<string, string>) => {
    const response = await server.request('GET', '/api/reports/period', { token: user.token, query });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    return PeriodSummary.parse(response.body);
  };

  const MARCH = { from_date: '2030-03-04', to_date: '2030-03-19' };

  it('sums rooms planned and fully dosed per building and ISO week, every week of the period in order', async () => {
    const w = await world();
    await month(w);
    const summary = await summaryOf(w.admin, MARCH);
    expect(summary).toMatchObject({ scope: 'organization', scope_id: null, scope_name: w.orgId, jobs: 3 });
    expect(summary.total).toEqual({ rooms_planned: 6, rooms_fully_dosed: 3, rate: 0.5 });
    expect(summary.by_week).toEqual([
      { week: '2030-W10', rooms_planned: 3, rooms_fully_dosed: 2, rate: 2 / 3 },
      { week: '2030-W11', rooms_planned: 3, rooms_fully_dosed: 1, rate: 1 / 3 },
      { week: '2030-W12', rooms_planned: 0, rooms_fully_dosed: 0, rate: null },
    ]);
    expect(summary.by_building.map(({ building_id, rooms_planned, rooms_fully_dosed }) => [building_id, rooms_planned, rooms_fully_dosed]).sort()).toEqual(
      [
        [w.site.buildingId, 4, 2],
        [w.hidden.buildingId, 2, 1],
      ].sort(),
    );
  });

  it('a teleoperator sees the logs of their groups’ robots; building, floor and group scopes hold their rooms', async () => {
    const w = await world();
    await month(w);
    expect((await summaryOf(w.operator, MARCH)).total).toEqual({ rooms_planned: 4, rooms_fully_dosed: 2, rate: 0.5 });
    expect((await summaryOf(w.stranger, MARCH)).total).toEqual({ rooms_planned: 0, rooms_fully_dosed: 0, rate: null });
    const building = await summaryOf(w.admin, { ...MARCH, scope: 'building', scope_id: w.hidden.buildingId });
    expect(building.total).toEqual({ rooms_planned: 2, rooms_fully_dosed: 1, rate: 0.5 });
    expect(building.jobs).toBe(1);
    const floor = await summaryOf(w.admin, { ...MARCH, scope: 'floor', scope_id: w.site.floors[1]?.id ?? '' });
    expect(floor.total).toEqual({ rooms_planned: 1, rooms_fully_dosed: 0, rate: 0 });
    expect(floor.scope_name).toMatch(/^Building .* \/ Floor 2$/);
    const group = await summaryOf(w.operator, { ...MARCH, scope: 'group', scope_id: w.groupId });
    expect(group.total).toEqual({ rooms_planned: 4, rooms_fully_dosed: 2, rate: 0.5 });
    // A group that is not the teleoperator's is not theirs to report on; the admin may.
    expectError(await server.request('GET', '/api/reports/period', { token: w.operator.token, query: { ...MARCH, scope: 'group', scope_id: w.otherGroupId } }), 404);
    expect((await summaryOf(w.admin, { ...MARCH, scope: 'group', scope_id: w.otherGroupId })).total.rooms_planned).toBe(0);
  });

  it('another organization’s building, floor or group is 404', async () => {
    const w = await world();
    const otherOrg = await server.createOrg();
    const outsider = await server.createUser(otherOrg, ['done-superadmin']);
    for (const [scope, id] of [
      ['building', w.site.buildingId],
      ['floor', w.site.floors[0]?.id ?? ''],
      ['group', w.groupId],
    ] as const) {
      for (const path of ['/api/reports/period', '/api/reports/period/pdf', '/api/reports/period/csv']) {
        expectError(await server.request('GET', path, { token: outsider.token, query: { ...MARCH, scope, scope_id: id } }), 404);
      }
    }
  });

  it('refuses bad periods with a 400 naming the field', async () => {
    const w = await world();
    const cases: [Record<string, string>, string][] = [
      [{ from_date: '2030-03-10', to_date: '2030-03-01' }, 'from_date'],
      [{ from_date: '2030-01-01', to_date: '2031-01-02' }, 'to_date'],
      [{ from_date: '2030-03-01', to_date: '2030-03-10', scope: 'building' }, 'scope_id'],
      [{ from_date: '2030-02-30', to_date: '2030-03-10' }, 'from_date'],
      [{ from_date: '2030-03-01', to_date: '10.3.2030' }, 'to_date'],
      [{ to_date: '2030-03-10' }, 'from_date'],
      [{ from_date: '2030-03-01', to_date: '2030-03-10', scope: 'ward', scope_id: w.groupId }, 'scope'],
      [{ from_date: '2030-03-01', to_date: '2030-03-10', scope: 'group', scope_id: 'not-an-id' }, 'scope_id'],
      [{ from_date: '0000-12-01', to_date: '0001-01-02' }, 'from_date'],
    ];
    for (const path of ['/api/reports/period', '/api/reports/period/pdf', '/api/reports/period/csv']) {
      for (const [query, field] of cases) expectError(await server.request('GET', path, { token: w.admin.token, query }), 400, field);
    }
    // 366 days is the longest period; the first and last days of the calendar are days like any other.
    for (const query of [
      { from_date: '2030-01-01', to_date: '2031-01-01' },
      { from_date: '0001-01-01', to_date: '0001-01-31' },
      { from_date: '9999-12-01', to_date: '9999-12-31' },
    ]) {
      for (const path of ['/api/reports/period', '/api/reports/period/pdf', '/api/reports/period/csv']) {
        expect((await server.request('GET', path, { token: w.admin.token, query })).status, `${path} ${query.from_date}`).toBe(200);
      }
    }
  });

  it('CSV and PDF hold every room of the period in the scope, oldest first, in the user’s language', async () => {
    const w = await world();
    await month(w);
    await setSettings(w.admin, 'FI');
    const records = await csvRecords(await download('/reports/period/csv', w.admin, { ...MARCH, scope: 'building', scope_id: w.site.buildingId }));
    expect(records.map((record) => [record.job_name, record.room, record.fully_dosed])).toEqual([
      ['w10', 'A1', 'true'],
      ['w10', 'A2', 'true'],
      ['w10', 'B1', 'false'],
      ['w11', 'A1', 'false'],
    ]);
    const text = await pdfText(await download('/reports/period/pdf', w.admin, MARCH));
    for (const expected of ['Desinfioinnin toteumaraportti', 'Toteuma', 'Rakennuksittain', 'Viikoittain', '2030-W10', '66,7 %', 'Kaikki huoneet', 'H2', 'Ei desinfioitu (keskeytetty)', 'Ei saavutettu']) {
      expect(text).toContain(expected);
    }
    expect(text).not.toContain('before');
  });

  it('reads a long period page by page: every room once, in order', async () => {
    const w = await world();
    const [a1 = '', a2 = ''] = w.site.floors[0]?.roomIds ?? [];
    const robot = w.site.robotIds[0] ?? '';
    // 250 logs over pages of 100; two share a starttime to the microsecond with another, so the keyset needs the id.
    const rows = Array.from({ length: 250 }, (_, index) =>
      logRow(w.orgId, { name: `job ${String(index).padStart(3, '0')}`, start: new Date(Date.UTC(2030, 4, 1, 8) + Math.floor(index / 3) * 60_000).toISOString(), robotId: robot, rooms: [room(0, a1, 'A1'), room(1, a2, 'A2')] }),
    );
    await server.context.db.insert(logs).values(rows);
    const records = await csvRecords(await download('/reports/period/csv', w.operator, { from_date: '2030-05-01', to_date: '2030-05-31' }));
    expect(records).toHaveLength(500);
    expect(new Set(records.map((record) => `${record.job_id}/${record.order}`)).size).toBe(500);
    const starts = records.map((record) => record.job_start);
    expect([...starts].sort()).toEqual(starts);
  });
});

describe('a large period report', () => {
  it('leaves the server answering while its PDF is drawn', { timeout: 240_000 }, async () => {
    const w = await world();
    const rooms = w.site.floors.flatMap((floor) => floor.roomIds);
    const robot = w.site.robotIds[0] ?? '';
    // 1000 jobs of four rooms.
    for (let batch = 0; batch < 10; batch++) {
      await server.context.db.insert(logs).values(
        Array.from({ length: 100 }, (_, index) =>
          logRow(w.orgId, {
            start: new Date(Date.UTC(2030, 5, 1) + (batch * 100 + index) * 30 * 60_000).toISOString(),
            robotId: robot,
            rooms: rooms.map((roomId, order) => room(order, roomId, `Room ${order}`, { dose_stats: { min: 90, p10: 100, mean: 130, coverage: 0.97 } })),
            events: [{ at: new Date(Date.UTC(2030, 5, 1)).toISOString(), kind: 'paused', actor: 'nurse', order_no: 0, room_id: rooms[0] ?? '', room_name: 'Room 0', dose: 10, cause: 'operator' }],
          }),
        ),
      );
    }
    const progress = { finished: false };
    const report = download('/reports/period/pdf', w.admin, { from_date: '2030-06-01', to_date: '2030-06-30' }).then(async (response) => {
      const bytes = await response.arrayBuffer();
      progress.finished = true;
      return { status: response.status, size: bytes.byteLength };
    });
    // While the report is under way, health checks keep being answered: the drawing happens off the event loop.
    const answeredDuring: number[] = [];
    const underWay = () => !progress.finished;
    while (underWay()) {
      const health = await fetch(new URL('/healthz', server.url));
      if (underWay()) answeredDuring.push(health.status);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const result = await report;
    expect(result.status).toBe(200);
    expect(result.size).toBeGreaterThan(10_000);
    expect(answeredDuring.length).toBeGreaterThan(3);
    expect(answeredDuring.every((status) => status === 200)).toBe(true);
  });
});
