import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, LogEntry, LogList, LogStatus } from '@uvd/contracts';
import { logs, type LoggedRoom } from '../db/schema.ts';
import { startRouteTestServer, type TestServer, type TestUser } from '../testing/harness.ts';
import { createSite, type Site } from '../testing/site-fixtures.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startRouteTestServer();
});
afterAll(async () => {
  await server.close();
});

interface World {
  orgId: string;
  admin: TestUser;
  operator: TestUser;
  /** Both robots are in the operator's group. */
  site: Site;
  hiddenRobotId: string;
}

async function world(): Promise<World> {
  const orgId = await server.createOrg();
  const groupId = await server.createGroup(orgId);
  const site = await createSite(server.context.db, orgId, { roomsPerFloor: 2, robots: 2, groupIds: [groupId] });
  const hidden = await createSite(server.context.db, orgId, { roomsPerFloor: 1, robots: 1 });
  return {
    orgId,
    admin: await server.createUser(orgId, ['done-superadmin']),
    operator: await server.createUser(orgId, ['done-teleoperator'], { groupIds: [groupId] }),
    site,
    hiddenRobotId: hidden.robotIds[0] ?? '',
  };
}

/** Logs are written by the fleet when a job ends; here they are inserted as it would. */
async function insertLog(
  w: World,
  values: { name: string; starttime: string; robotId?: string | null; trajectory?: boolean; status?: string },
): Promise<string> {
  const jobId = crypto.randomUUID();
  const roomId = w.site.floors[0]?.roomIds[0] ?? '';
  const rooms: LoggedRoom[] = [
    { order: 0, room_id: roomId, room_name: 'Room 1.1', dose: 20, state: 'done', dose_received: 20 },
    { order: 1, room_id: w.site.floors[0]?.roomIds[1] ?? '', room_name: 'Room 1.2', dose: 20, state: 'not_ready', dose_received: null },
  ];
  const start = new Date(values.starttime);
  await server.context.db.insert(logs).values({
    jobId,
    orgId: w.orgId,
    jobName: values.name,
    completionStatus: values.status ?? 'Completed',
    robotId: values.robotId === undefined ? (w.site.robotIds[0] ?? null) : values.robotId,
    robotName: 'Robot 1',
    createdBy: 'nurse',
    startTime: start,
    endTime: new Date(start.getTime() + 20 * 60_000),
    rooms,
    trajectory: values.trajectory ? [{ t: 0, x: 1, y: 1, floor_id: w.site.floors[0]?.id ?? '' }] : null,
  });
  return jobId;
}

function expectError(response: { status: number; body: unknown }, status: number, pattern?: RegExp): ApiError {
  expect(response.status).toBe(status);
  const error = ApiError.parse(response.body);
  if (pattern) expect(error.message).toMatch(pattern);
  return error;
}

describe('GET /log', () => {
  it('lists newest starttime first with the count, paginated, with the logged rooms', async () => {
    const w = await world();
    await insertLog(w, { name: 'log 0', starttime: '2030-01-01T10:00:00Z', trajectory: true });
    await insertLog(w, { name: 'log 1', starttime: '2030-01-02T10:00:00Z' });
    await insertLog(w, { name: 'log 2', starttime: '2030-01-03T10:00:00Z' });
    const page = LogList.parse((await server.request('GET', '/api/log', { token: w.admin.token, query: { limit: 2 } })).body);
    expect(page.count).toBe(3);
    expect(page.payload.map((log) => log.job_name)).toEqual(['log 2', 'log 1']);
    expect(page.payload[0]?.attributes.rooms.map((room) => room.state)).toEqual(['done', 'not_ready']);
    expect(page.payload[0]?.endtime).toBe('2030-01-03T10:20:00.000Z');
    const rest = LogList.parse((await server.request('GET', '/api/log', { token: w.admin.token, query: { limit: 2, offset: 2 } })).body);
    expect(rest.payload.map((log) => [log.job_name, log.has_trajectory])).toEqual([['log 0', true]]);
  });

  it('filters by repeated robot_id and by dates, to_date as a date covering its day', async () => {
    const w = await world();
    await insertLog(w, { name: 'a', starttime: '2030-01-01T23:59:00Z' });
    await insertLog(w, { name: 'b', starttime: '2030-01-02T00:00:00Z', robotId: w.site.robotIds[1] ?? null });
    await insertLog(w, { name: 'c', starttime: '2030-01-03T00:00:00Z' });
    const names = async (query: Record<string, string | string[]>) =>
      LogList.parse((await server.request('GET', '/api/log', { token: w.admin.token, query })).body).payload.map((log) => log.job_name);
    expect(await names({ robot_id: [w.site.robotIds[1] ?? ''] })).toEqual(['b']);
    expect(await names({ from_date: '2030-01-01', to_date: '2030-01-02' })).toEqual(['b', 'a']);
    expect(await names({ from_date: '2030-01-02T00:00:00Z', to_date: '2030-01-03T00:00:00Z' })).toEqual(['c', 'b']);
  });

  it("reads bare dates as days of the user's timezone (Europe/Helsinki by default), DST days included", async () => {
    const w = await world();
    const starts = {
      // Helsinki wall clock in the comments: UTC+2 in winter, UTC+3 from 2026-03-29 03:00 to 2026-10-25 04:00.
      'Mar 28 23:59': '2026-03-28T21:59:00Z',
      'Mar 29 00:00': '2026-03-28T22:00:00Z',
      'Mar 29 23:59': '2026-03-29T20:59:00Z',
      'Mar 30 00:00': '2026-03-29T21:00:00Z',
      'Jun 15 01:30': '2026-06-14T22:30:00Z',
      'Oct 24 23:59': '2026-10-24T20:59:00Z',
      'Oct 25 00:00': '2026-10-24T21:00:00Z',
      'Oct 25 23:59': '2026-10-25T21:59:00Z',
      'Oct 26 00:00': '2026-10-25T22:00:00Z',
    };
    for (const [name, starttime] of Object.entries(starts)) await insertLog(w, { name, starttime });
    const day = async (user: TestUser, date: string) =>
      LogList.parse((await server.request('GET', '/api/log', { token: user.token, query: { from_date: date, to_date: date } })).body)
        .payload.map((log) => log.job_name)
        .reverse();
    expect(await day(w.admin, '2026-03-29')).toEqual(['Mar 29 00:00', 'Mar 29 23:59']);
    expect(await day(w.admin, '2026-10-25')).toEqual(['Oct 25 00:00', 'Oct 25 23:59']);
    expect(await day(w.admin, '2026-06-15')).toEqual(['Jun 15 01:30']);
    expect(await day(w.admin, '2026-06-14')).toEqual([]);

    // A user in New York (UTC-4 in summer) files the same instants under their own days.
    const saved = await server.request('POST', '/api/settings/settings', { token: w.operator.token, body: { language: 'en', timezone: 'America/New_York' } });
    expect(saved.status).toBe(200);
    expect(await day(w.operator, '2026-06-14')).toEqual(['Jun 15 01:30']);
    expect(await day(w.operator, '2026-03-29')).toEqual(['Mar 29 23:59', 'Mar 30 00:00']);
    const range = LogList.parse(
      (await server.request('GET', '/api/log', { token: w.operator.token, query: { from_date: '2026-03-28', to_date: '2026-03-28' } })).body,
    );
    expect(range.count).toBe(2);
  });

  it("shows a teleoperator only their groups' robots' logs, and nobody another organization's", async () => {
    const w = await world();
    await insertLog(w, { name: 'visible', starttime: '2030-01-01T10:00:00Z' });
    await insertLog(w, { name: 'hidden', starttime: '2030-01-01T11:00:00Z', robotId: w.hiddenRobotId });
    await insertLog(w, { name: 'robot removed', starttime: '2030-01-01T12:00:00Z', robotId: null });
    const other = await world();
    await insertLog(other, { name: 'foreign', starttime: '2030-01-01T10:00:00Z' });
    const asOperator = LogList.parse((await server.request('GET', '/api/log', { token: w.operator.token })).body);
    expect([asOperator.count, asOperator.payload.map((log) => log.job_name)]).toEqual([1, ['visible']]);
    const asAdmin = LogList.parse((await server.request('GET', '/api/log', { token: w.admin.token })).body);
    expect(asAdmin.payload.map((log) => log.job_name)).toEqual(['robot removed', 'hidden', 'visible']);
    expect(asAdmin.payload[0]?.robot_id).toBeNull();
  });

  it.each([
    [{ limit: 201 }, /limit/],
    [{ robot_id: 'x' }, /robot_id/],
    [{ to_date: '2030-13-01' }, /to_date/],
  ])('answers 400 naming the field for %o', async (query, pattern) => {
    const w = await world();
    expectError(await server.request('GET', '/api/log', { token: w.admin.token, query }), 400, pattern);
  });

  it('answers 401 without a token', async () => {
    expectError(await server.request('GET', '/api/log'), 401);
  });
});

describe('GET /log/{id} and /log/{id}/status', () => {
  it('gives one log and its completion status', async () => {
    const w = await world();
    const jobId = await insertLog(w, { name: 'ward', starttime: '2030-01-01T10:00:00Z', status: 'Aborted' });
    const log = LogEntry.parse((await server.request('GET', `/api/log/${jobId}`, { token: w.operator.token })).body);
    expect(log).toMatchObject({ job_id: jobId, job_name: 'ward', completion_status: 'Aborted', has_trajectory: false, created_by: 'nurse' });
    const status = LogStatus.parse((await server.request('GET', `/api/log/${jobId}/status`, { token: w.operator.token })).body);
    expect(status).toEqual({ data: { status: 'Aborted' } });
  });

  it('adds the recorded trajectory with extra_navigation_data=true, also once the job itself is deleted', async () => {
    const w = await world();
    // No job row at all: the log is what remains of a job that was deleted after it ran.
    const jobId = await insertLog(w, { name: 'ward', starttime: '2030-01-01T10:00:00Z', trajectory: true });
    const plain = LogEntry.parse((await server.request('GET', `/api/log/${jobId}`, { token: w.operator.token })).body);
    expect(plain.has_trajectory).toBe(true);
    expect(plain.trajectory).toBeUndefined();
    const detailed = LogEntry.parse(
      (await server.request('GET', `/api/log/${jobId}`, { token: w.operator.token, query: { extra_navigation_data: 'true' } })).body,
    );
    expect(detailed.trajectory).toEqual([{ t: 0, x: 1, y: 1, floor_id: w.site.floors[0]?.id }]);
    const without = await insertLog(w, { name: 'no path', starttime: '2030-01-01T11:00:00Z' });
    const none = LogEntry.parse((await server.request('GET', `/api/log/${without}`, { token: w.operator.token, query: { extra_navigation_data: 'true' } })).body);
    expect([none.has_trajectory, none.trajectory]).toEqual([false, undefined]);
    // The list never carries a path, however long.
    const list = LogList.parse((await server.request('GET', '/api/log', { token: w.operator.token })).body);
    expect(list.payload.every((log) => log.trajectory === undefined)).toBe(true);
  });

  it('answers 400 naming the field, 401 without a token', async () => {
    const w = await world();
    const jobId = await insertLog(w, { name: 'ward', starttime: '2030-01-01T10:00:00Z' });
    expectError(await server.request('GET', '/api/log/12', { token: w.admin.token }), 400, /id/);
    expectError(await server.request('GET', `/api/log/${jobId}`, { token: w.admin.token, query: { extra_navigation_data: 'maybe' } }), 400, /extra_navigation_data/);
    expectError(await server.request('GET', '/api/log/12/status', { token: w.admin.token }), 400, /id/);
    expectError(await server.request('GET', `/api/log/${jobId}`), 401);
    expectError(await server.request('GET', `/api/log/${jobId}/status`), 401);
  });

  it("answers 404 for another organization's log and a teleoperator's invisible robot", async () => {
    const w = await world();
    const other = await world();
    const foreign = await insertLog(other, { name: 'foreign', starttime: '2030-01-01T10:00:00Z' });
    expectError(await server.request('GET', `/api/log/${foreign}`, { token: w.admin.token }), 404, /Log/);
    expectError(await server.request('GET', `/api/log/${foreign}/status`, { token: w.admin.token }), 404, /Log/);
    const hidden = await insertLog(w, { name: 'hidden', starttime: '2030-01-01T10:00:00Z', robotId: w.hiddenRobotId });
    expectError(await server.request('GET', `/api/log/${hidden}`, { token: w.operator.token }), 404);
  });
});

describe('PATCH /log/{id}/notes', () => {
  it('replaces the notes', async () => {
    const w = await world();
    const jobId = await insertLog(w, { name: 'ward', starttime: '2030-01-01T10:00:00Z' });
    const response = await server.request('PATCH', `/api/log/${jobId}/notes`, { token: w.operator.token, body: { notes: 'Bed 3 blocked' } });
    expect(LogEntry.parse(response.body).notes).toBe('Bed 3 blocked');
    const [row] = await server.context.db.select().from(logs).where(eq(logs.jobId, jobId));
    expect(row?.notes).toBe('Bed 3 blocked');
  });

  it('answers 400 naming notes, 401 without a token', async () => {
    const w = await world();
    const jobId = await insertLog(w, { name: 'ward', starttime: '2030-01-01T10:00:00Z' });
    expectError(await server.request('PATCH', `/api/log/${jobId}/notes`, { token: w.admin.token, body: { notes: 7 } }), 400, /notes/);
    expectError(await server.request('PATCH', `/api/log/${jobId}/notes`, { body: { notes: 'x' } }), 401);
  });

  it("answers 404 for another organization's log", async () => {
    const w = await world();
    const other = await world();
    const foreign = await insertLog(other, { name: 'foreign', starttime: '2030-01-01T10:00:00Z' });
    expectError(await server.request('PATCH', `/api/log/${foreign}/notes`, { token: w.admin.token, body: { notes: 'x' } }), 404);
    const [row] = await server.context.db.select().from(logs).where(eq(logs.jobId, foreign));
    expect(row?.notes).toBe('');
  });
});
