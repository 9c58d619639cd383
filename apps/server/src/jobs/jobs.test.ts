import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, AT_LEAST_ONE_ROOM, CommandRefusal, DataFlag, Doses, DUPLICATE_ROOM, Job, JobList, type JobInput } from '@uvd/contracts';
import { jobs, logs, organizations, robots } from '../db/schema.ts';
import { EXACT_COUNT_CAP } from './list-filter.ts';
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
  /** Robots 0 and 1 and every room are in the operator's group; robot 2 is not. */
  site: Site;
  hiddenRobotId: string;
  roomIds: string[];
}

async function world(): Promise<World> {
  const orgId = await server.createOrg();
  const groupId = await server.createGroup(orgId);
  const site = await createSite(server.context.db, orgId, { floors: 2, roomsPerFloor: 3, robots: 2, groupIds: [groupId] });
  const hidden = await createSite(server.context.db, orgId, { floors: 1, roomsPerFloor: 1, robots: 1 });
  const admin = await server.createUser(orgId, ['done-admin']);
  const operator = await server.createUser(orgId, ['done-teleoperator'], { groupIds: [groupId] });
  const hiddenRobotId = hidden.robotIds[0] ?? '';
  return { orgId, admin, operator, site, hiddenRobotId, roomIds: site.floors[0]?.roomIds ?? [] };
}

const input = (roomIds: string[], overrides: Partial<JobInput> = {}): JobInput => ({
  name: 'Ward A evening',
  notes: 'after visiting hours',
  start_time: '2030-05-04T18:30:45.123Z',
  rooms: roomIds.map((room_id, order_no) => ({ room_id, order_no, dose: 20 })),
  start_now: false,
  ...overrides,
});

const robotOf = (w: World, index = 0) => w.site.robotIds[index] ?? '';
const room = (w: World, index: number) => w.roomIds[index] ?? '';

async function createJob(w: World, user: TestUser, overrides: Partial<JobInput> = {}, robotId = robotOf(w)): Promise<Job> {
  const response = await server.request('POST', `/api/jobs/jobs/${robotId}`, {
    token: user.token,
    query: { start_now: false },
    body: input([room(w, 0), room(w, 1)], overrides),
  });
  expect(response.status).toBe(200);
  return Job.parse(response.body);
}

const jobCount = async (orgId: string) => (await server.context.db.select().from(jobs).where(eq(jobs.orgId, orgId))).length;

function expectError(response: { status: number; body: unknown }, status: number, pattern?: RegExp): ApiError {
  expect(response.status).toBe(status);
  const error = ApiError.parse(response.body);
  if (pattern) expect(error.message).toMatch(pattern);
  return error;
}

describe('POST /jobs/jobs/{robotId}', () => {
  it('creates a Scheduled job with seconds forced to 0, its rooms in order, and publishes job_change', async () => {
    const w = await world();
    const response = await server.request('POST', `/api/jobs/jobs/${robotOf(w)}`, {
      token: w.admin.token,
      query: { start_now: false },
      body: input([room(w, 2), room(w, 0)]),
    });
    expect(response.status).toBe(200);
    const job = Job.parse(response.body);
    expect(job).toMatchObject({
      name: 'Ward A evening',
      notes: 'after visiting hours',
      status: 'Scheduled',
      robot_id: robotOf(w),
      start_time: '2030-05-04T18:30:00.000Z',
      created_by: w.admin.username,
      start_now: false,
      performed: false,
      active_state: null,
    });
    expect(job.rooms.map((r) => [r.room_id, r.order_no, r.dose])).toEqual([
      [room(w, 2), 0, 20],
      [room(w, 0), 1, 20],
    ]);
    expect(job.rooms[0]?.room_name).toBe('Room 1.3');
    const events = await server.context.bus.replay(w.orgId, 'jobs', 0);
    expect(events.map((event) => [event.type, event.key])).toEqual([['job_change', job.job_id]]);
    expect(Job.parse(events[0]?.payload).job_id).toBe(job.job_id);
  });

  it('takes start_now from the query string', async () => {
    const w = await world();
    const response = await server.request('POST', `/api/jobs/jobs/${robotOf(w)}`, {
      token: w.admin.token,
      query: { start_now: true },
      body: input([room(w, 0)], { start_now: false }),
    });
    // Starting now, the job is started at once: this robot has never reported, so the start is refused and
    // nothing is saved (start-now.test.ts runs it on a robot that is there).
    expect(expectError(response, 409).error).toBe(CommandRefusal.robotOffline);
    expect(await jobCount(w.orgId)).toBe(0);
  });

  it('lets a teleoperator create a job on a robot of their group', async () => {
    const w = await world();
    const job = await createJob(w, w.operator);
    expect(job.created_by).toBe(w.operator.username);
  });

  it.each([
    ['a blank name', { name: '   ' }, /name/],
    ['no room', { rooms: [] }, new RegExp(AT_LEAST_ONE_ROOM)],
    ['a malformed start_time', { start_time: 'tomorrow' }, /start_time/],
    ['a negative dose', { rooms: [{ room_id: '00000000-0000-4000-8000-000000000000', order_no: 0, dose: -1 }] }, /rooms\.0\.dose/],
  ])('answers 400 naming the field for %s, writing nothing', async (_, overrides, pattern) => {
    const w = await world();
    const response = await server.request('POST', `/api/jobs/jobs/${robotOf(w)}`, {
      token: w.admin.token,
      body: input([room(w, 0)], overrides as Partial<JobInput>),
    });
    expectError(response, 400, pattern);
    expect(await jobCount(w.orgId)).toBe(0);
    expect(await server.context.bus.replay(w.orgId, 'jobs', 0)).toEqual([]);
  });

  it('refuses a start time in the past naming start_time, writing nothing, unless the job starts now', async () => {
    const w = await world();
    const past = await server.request('POST', `/api/jobs/jobs/${robotOf(w)}`, {
      token: w.admin.token,
      query: { start_now: false },
      body: input([room(w, 0)], { start_time: '2020-01-01T10:00:00Z' }),
    });
    expect(expectError(past, 400, /start_time/).details).toMatchObject({ field: 'start_time' });
    expect(await jobCount(w.orgId)).toBe(0);
    // The editor's default start is the current minute: not the past.
    const thisMinute = await server.request('POST', `/api/jobs/jobs/${robotOf(w)}`, {
      token: w.admin.token,
      body: input([room(w, 0)], { start_time: new Date().toISOString() }),
    });
    expect(thisMinute.status).toBe(200);
    const startingNow = await server.request('POST', `/api/jobs/jobs/${robotOf(w)}`, {
      token: w.admin.token,
      query: { start_now: true },
      body: input([room(w, 0)], { start_time: '2020-01-01T10:00:00Z' }),
    });
    // Not refused for its start time: for the robot, which has never reported.
    expect(expectError(startingNow, 409).error).toBe(CommandRefusal.robotOffline);
  });

  it('refuses a duplicate room with the documented message (behaviour §5)', async () => {
    const w = await world();
    const body = input([room(w, 0), room(w, 0)]);
    const response = await server.request('POST', `/api/jobs/jobs/${robotOf(w)}`, { token: w.admin.token, body });
    const error = expectError(response, 400);
    expect(error).toMatchObject({ error: 'duplicate_room', message: DUPLICATE_ROOM, details: { field: 'rooms.1.room_id' } });
    expect(await jobCount(w.orgId)).toBe(0);
  });

  it('refuses a room of another floor than the robot', async () => {
    const w = await world();
    const otherFloorRoom = w.site.floors[1]?.roomIds[0] ?? '';
    const response = await server.request('POST', `/api/jobs/jobs/${robotOf(w)}`, {
      token: w.admin.token,
      body: input([room(w, 0), otherFloorRoom]),
    });
    expect(expectError(response, 400, /rooms\.1\.room_id.*not on the floor/).details).toEqual({ field: 'rooms.1.room_id' });
    expect(await jobCount(w.orgId)).toBe(0);
  });

  it('refuses a dose the organization does not offer', async () => {
    const w = await world();
    const body = input([room(w, 0)]);
    body.rooms[0] = { room_id: room(w, 0), order_no: 0, dose: 25 };
    const response = await server.request('POST', `/api/jobs/jobs/${robotOf(w)}`, { token: w.admin.token, body });
    expectError(response, 400, /rooms\.0\.dose.*10, 20, 30, 50/);
  });

  it('refuses order numbers that are not 0..n-1', async () => {
    const w = await world();
    const body = input([room(w, 0), room(w, 1)]);
    body.rooms = [
      { room_id: room(w, 0), order_no: 0, dose: 20 },
      { room_id: room(w, 1), order_no: 2, dose: 20 },
    ];
    const response = await server.request('POST', `/api/jobs/jobs/${robotOf(w)}`, { token: w.admin.token, body });
    expectError(response, 400, /rooms\.1\.order_no/);
  });

  it('refuses clearly a robot that stands on no floor', async () => {
    const w = await world();
    await server.context.db.update(robots).set({ floorId: null }).where(eq(robots.id, robotOf(w)));
    const response = await server.request('POST', `/api/jobs/jobs/${robotOf(w)}`, { token: w.admin.token, body: input([room(w, 0)]) });
    expectError(response, 400, /not placed on a floor/);
  });

  it('answers 400 naming robotId when it is not an id', async () => {
    const w = await world();
    const response = await server.request('POST', '/api/jobs/jobs/robot-1', { token: w.admin.token, body: input([room(w, 0)]) });
    expectError(response, 400, /robotId/);
  });

  it('answers 401 without a token', async () => {
    const w = await world();
    const response = await server.request('POST', `/api/jobs/jobs/${robotOf(w)}`, { body: input([room(w, 0)]) });
    expectError(response, 401);
  });

  it("answers 404 for another organization's robot or room", async () => {
    const w = await world();
    const other = await world();
    const foreignRobot = await server.request('POST', `/api/jobs/jobs/${robotOf(other)}`, {
      token: w.admin.token,
      body: input([room(other, 0)]),
    });
    expectError(foreignRobot, 404, /Robot/);
    const foreignRoom = await server.request('POST', `/api/jobs/jobs/${robotOf(w)}`, {
      token: w.admin.token,
      body: input([room(w, 0), room(other, 0)]),
    });
    expectError(foreignRoom, 404, /Room/);
    expect(await jobCount(w.orgId)).toBe(0);
    expect(await jobCount(other.orgId)).toBe(0);
  });

  it("answers 404 to a teleoperator for a robot outside their groups", async () => {
    const w = await world();
    const response = await server.request('POST', `/api/jobs/jobs/${w.hiddenRobotId}`, {
      token: w.operator.token,
      body: input([room(w, 0)]),
    });
    expectError(response, 404, /Robot/);
  });
});

describe('PUT /jobs/jobs/{jobId}', () => {
  it('replaces name, time and rooms, and publishes job_change', async () => {
    const w = await world();
    const created = await createJob(w, w.admin);
    const response = await server.request('PUT', `/api/jobs/jobs/${created.job_id}`, {
      token: w.admin.token,
      body: input([room(w, 1)], { name: '  Renamed  ', start_time: '2030-06-01T08:15:59+03:00' }),
    });
    expect(response.status).toBe(200);
    const job = Job.parse(response.body);
    expect(job).toMatchObject({ job_id: created.job_id, name: 'Renamed', start_time: '2030-06-01T05:15:00.000Z' });
    expect(job.rooms.map((r) => r.room_id)).toEqual([room(w, 1)]);
    const events = await server.context.bus.replay(w.orgId, 'jobs', 0);
    expect(events).toHaveLength(2);
    expect(Job.parse(events[1]?.payload).name).toBe('Renamed');
  });

  it('answers 409 jobControls.errorJobRunning for a Running job and changes nothing', async () => {
    const w = await world();
    const created = await createJob(w, w.admin);
    await server.context.db.update(jobs).set({ status: 'Running', activeState: 'disinfecting' }).where(eq(jobs.id, created.job_id));
    const response = await server.request('PUT', `/api/jobs/jobs/${created.job_id}`, {
      token: w.admin.token,
      body: input([room(w, 1)], { name: 'Renamed' }),
    });
    expect(expectError(response, 409).error).toBe('jobControls.errorJobRunning');
    const [row] = await server.context.db.select().from(jobs).where(eq(jobs.id, created.job_id));
    expect(row?.name).toBe('Ward A evening');
  });

  it('answers 400 naming the field and keeps the job as it was', async () => {
    const w = await world();
    const created = await createJob(w, w.admin);
    const response = await server.request('PUT', `/api/jobs/jobs/${created.job_id}`, {
      token: w.admin.token,
      body: input([room(w, 1), room(w, 1)]),
    });
    expectError(response, 400, new RegExp(DUPLICATE_ROOM.replace('.', '\\.')));
    const fetched = await server.request('GET', `/api/jobs/job/${created.job_id}`, { token: w.admin.token });
    expect(Job.parse(fetched.body).rooms).toHaveLength(2);
  });

  it('refuses a start time in the past naming start_time and keeps the job as it was', async () => {
    const w = await world();
    const created = await createJob(w, w.admin);
    const response = await server.request('PUT', `/api/jobs/jobs/${created.job_id}`, {
      token: w.admin.token,
      body: input([room(w, 1)], { start_time: '2020-01-01T10:00:00Z' }),
    });
    expectError(response, 400, /start_time/);
    const fetched = Job.parse((await server.request('GET', `/api/jobs/job/${created.job_id}`, { token: w.admin.token })).body);
    expect(fetched.start_time).toBe(created.start_time);
  });

  it('answers 401 without a token', async () => {
    const w = await world();
    const created = await createJob(w, w.admin);
    expectError(await server.request('PUT', `/api/jobs/jobs/${created.job_id}`, { body: input([room(w, 1)]) }), 401);
  });

  it("answers 404 for another organization's job", async () => {
    const w = await world();
    const other = await world();
    const foreign = await createJob(other, other.admin);
    const response = await server.request('PUT', `/api/jobs/jobs/${foreign.job_id}`, { token: w.admin.token, body: input([room(w, 1)]) });
    expectError(response, 404, /Job/);
  });
});

describe('GET /jobs/v2/jobs', () => {
  async function listedWorld() {
    const w = await world();
    const times = ['2030-01-01T10:00:00Z', '2030-01-02T10:00:00Z', '2030-01-02T23:59:00Z', '2030-01-03T00:00:00Z'];
    const created: Job[] = [];
    for (const [index, start_time] of times.entries()) {
      created.push(await createJob(w, w.admin, { name: `job ${index}`, start_time }, robotOf(w, index % 2)));
    }
    return { w, created };
  }

  it('lists Scheduled jobs next due first with the count, paginated', async () => {
    const { w } = await listedWorld();
    const first = JobList.parse((await server.request('GET', '/api/jobs/v2/jobs', { token: w.admin.token, query: { limit: 3 } })).body);
    expect(first.count).toBe(4);
    expect(first.payload.map((job) => job.name)).toEqual(['job 0', 'job 1', 'job 2']);
    expect(first.payload[1]?.robot_name).toMatch(/^Robot 2/);
    expect(first.payload[0]?.rooms[0]?.room_name).toBe('Room 1.1');
    const second = JobList.parse(
      (await server.request('GET', '/api/jobs/v2/jobs', { token: w.admin.token, query: { limit: 3, offset: 3 } })).body,
    );
    expect(second.payload.map((job) => job.name)).toEqual(['job 3']);
  });

  it('holds only jobs not yet performed, and counts only them (the live rule drops performed jobs the same way)', async () => {
    const { w, created } = await listedWorld();
    const done = created[2]?.job_id ?? '';
    await server.context.db
      .update(jobs)
      .set({ status: 'Completed', performed: true, completionStatus: 'completed' })
      .where(eq(jobs.id, done));
    const list = JobList.parse((await server.request('GET', '/api/jobs/v2/jobs', { token: w.admin.token, query: { limit: 2 } })).body);
    expect(list.count).toBe(3);
    expect(list.payload.map((job) => job.name)).toEqual(['job 0', 'job 1']);
    const second = JobList.parse((await server.request('GET', '/api/jobs/v2/jobs', { token: w.admin.token, query: { limit: 2, offset: 2 } })).body);
    expect(second.payload.map((job) => job.name)).toEqual(['job 3']);
    // Every listed job survives behaviour §4's live rule: none is performed.
    expect([...list.payload, ...second.payload].every((job) => !job.performed)).toBe(true);
  });

  // Issue #25: a job due in a minute was last (newest first), on the last page of a long list.
  it('lists Running jobs first (newest first), then Scheduled ones next due first, the same across pages, for one robot, several or all', async () => {
    const w = await world();
    const soon = Date.now() + 5 * 60_000;
    const minutes = (count: number) => new Date(soon + count * 60_000).toISOString();
    // Created in an order unlike the list's: the far future first, the next due last.
    const scheduled: Job[] = [];
    for (const [index, offset] of [600, 30, 90_000, 240, 0, 60].entries()) {
      scheduled.push(await createJob(w, w.admin, { name: `due +${String(offset)} min`, start_time: minutes(offset) }, robotOf(w, index % 2)));
    }
    const running = [await createJob(w, w.admin, { name: 'running early', start_time: minutes(1) }), await createJob(w, w.admin, { name: 'running late', start_time: minutes(2) }, robotOf(w, 1))];
    await server.context.db.update(jobs).set({ status: 'Running', activeState: 'disinfecting', startTime: new Date(soon - 3_600_000) }).where(eq(jobs.id, running[0]?.job_id ?? ''));
    await server.context.db.update(jobs).set({ status: 'Running', activeState: 'paused', startTime: new Date(soon - 60_000) }).where(eq(jobs.id, running[1]?.job_id ?? ''));
    const expected = ['running late', 'running early', 'due +0 min', 'due +30 min', 'due +60 min', 'due +240 min', 'due +600 min', 'due +90000 min'];

    const pages = async (query: Record<string, string | number | string[]>, limit: number) => {
      const names: string[] = [];
      for (let offset = 0; ; offset += limit) {
        const page = JobList.parse((await server.request('GET', '/api/jobs/v2/jobs', { token: w.admin.token, query: { ...query, limit, offset } })).body);
        names.push(...page.payload.map((job) => job.name));
        if (offset + limit >= page.count) return names;
      }
    };
    for (const limit of [3, 5, 10]) {
      expect(await pages({}, limit)).toEqual(expected);
      // Two robots: each robot's range merged (list-filter.ts pageQuery), in the same order.
      expect(await pages({ robot_id: [robotOf(w, 0), robotOf(w, 1)] }, limit)).toEqual(expected);
    }
    const robot0 = new Set(['running early', ...scheduled.filter((_, index) => index % 2 === 0).map((job) => job.name)]);
    expect(await pages({ robot_id: [robotOf(w, 0)] }, 2)).toEqual(expected.filter((name) => robot0.has(name)));
    expect(await pages({ status: ['Scheduled'] }, 4)).toEqual(expected.slice(2));
  });

  it('filters by status (repeatable), with the matching count', async () => {
    const { w, created } = await listedWorld();
    await server.context.db
      .update(jobs)
      .set({ status: 'Running', activeState: 'disinfecting' })
      .where(eq(jobs.id, created[1]?.job_id ?? ''));
    const list = async (query: Record<string, string | number | string[]>) =>
      JobList.parse((await server.request('GET', '/api/jobs/v2/jobs', { token: w.admin.token, query })).body);
    const running = await list({ status: 'Running' });
    expect(running.payload.map((job) => job.name)).toEqual(['job 1']);
    expect(running.count).toBe(1);
    expect((await list({ status: 'Scheduled' })).count).toBe(3);
    expect((await list({ status: ['Running', 'Scheduled'] })).count).toBe(4);
    // Ended jobs are history (Logs): asking the jobs list for them is a mistake worth naming.
    expectError(await server.request('GET', '/api/jobs/v2/jobs', { token: w.admin.token, query: { status: 'Completed' } }), 400, /status/);
  });

  it.each(['/api/jobs/v2/jobs', '/api/log'])('%s refuses a from_date after the to_date, naming from_date', async (path) => {
    const w = await world();
    const refused = await server.request('GET', path, { token: w.admin.token, query: { from_date: '2030-01-03', to_date: '2030-01-02' } });
    expect(expectError(refused, 400, /from_date/).message).toMatch(/to_date/);
    const sameDay = await server.request('GET', path, { token: w.admin.token, query: { from_date: '2030-01-02T12:00:00Z', to_date: '2030-01-02' } });
    expect(sameDay.status).toBe(200);
  });

  it('defaults to 10 per page', async () => {
    const w = await world();
    for (let index = 0; index < 11; index++) await createJob(w, w.admin, { name: `job ${index}` });
    const list = JobList.parse((await server.request('GET', '/api/jobs/v2/jobs', { token: w.admin.token })).body);
    expect(list.count).toBe(11);
    expect(list.payload).toHaveLength(10);
  });

  it('filters by repeated robot_id and by dates (a bare to_date includes its whole day)', async () => {
    const { w } = await listedWorld();
    const names = async (query: Record<string, string | number | string[]>) =>
      JobList.parse((await server.request('GET', '/api/jobs/v2/jobs', { token: w.admin.token, query })).body).payload.map((job) => job.name);
    expect(await names({ robot_id: [robotOf(w, 0)] })).toEqual(['job 0', 'job 2']);
    expect(await names({ robot_id: [robotOf(w, 0), robotOf(w, 1)] })).toEqual(['job 0', 'job 1', 'job 2', 'job 3']);
    expect(await names({ robot_id: [robotOf(w, 1), robotOf(w, 0)], offset: 1, limit: 2 })).toEqual(['job 1', 'job 2']);
    expect(await names({ robot_id: [w.hiddenRobotId] })).toEqual([]);
    // Bare dates are days in the user's timezone (Helsinki, UTC+2 in January): 2030-01-02T23:59Z is on January 3rd.
    expect(await names({ from_date: '2030-01-02', to_date: '2030-01-02' })).toEqual(['job 1']);
    expect(await names({ from_date: '2030-01-03', to_date: '2030-01-03' })).toEqual(['job 2', 'job 3']);
    expect(await names({ from_date: '2030-01-02T12:00:00Z' })).toEqual(['job 2', 'job 3']);
    expect(await names({ to_date: '2030-01-02T10:00:00+00:00' })).toEqual(['job 0', 'job 1']);
  });

  it("reads bare dates as days of the user's timezone, DST days included, and another user's zone as theirs", async () => {
    const w = await world();
    // Helsinki wall clock in the names: UTC+2 in winter, UTC+3 from 2030-03-31 03:00 to 2030-10-27 04:00.
    const starts = {
      'Mar 30 23:59': '2030-03-30T21:59:00Z',
      'Mar 31 00:00': '2030-03-30T22:00:00Z',
      'Mar 31 23:59': '2030-03-31T20:59:00Z',
      'Apr 1 00:00': '2030-03-31T21:00:00Z',
      'Jun 15 01:30': '2030-06-14T22:30:00Z',
      'Oct 26 23:59': '2030-10-26T20:59:00Z',
      'Oct 27 00:00': '2030-10-26T21:00:00Z',
      'Oct 27 23:59': '2030-10-27T21:59:00Z',
      'Oct 28 00:00': '2030-10-27T22:00:00Z',
    };
    for (const [name, start_time] of Object.entries(starts)) await createJob(w, w.admin, { name, start_time });
    const day = async (user: TestUser, date: string) =>
      JobList.parse((await server.request('GET', '/api/jobs/v2/jobs', { token: user.token, query: { from_date: date, to_date: date } })).body)
        .payload.map((job) => job.name);
    expect(await day(w.admin, '2030-03-31')).toEqual(['Mar 31 00:00', 'Mar 31 23:59']);
    expect(await day(w.admin, '2030-10-27')).toEqual(['Oct 27 00:00', 'Oct 27 23:59']);
    expect(await day(w.admin, '2030-06-15')).toEqual(['Jun 15 01:30']);
    expect(await day(w.admin, '2030-06-14')).toEqual([]);
    const saved = await server.request('POST', '/api/settings/settings', { token: w.operator.token, body: { language: 'fi', timezone: 'America/New_York' } });
    expect(saved.status).toBe(200);
    expect(await day(w.operator, '2030-06-14')).toEqual(['Jun 15 01:30']);
    expect(await day(w.operator, '2030-03-31')).toEqual(['Mar 31 23:59', 'Apr 1 00:00']);
    // A timestamp beside a bare date: January 2nd in New York (UTC-5) lasts until 05:00 UTC on the 3rd.
    await createJob(w, w.admin, { name: 'Jan 2 23:00 in New York', start_time: '2030-01-03T04:00:00Z' });
    const late = await server.request('GET', '/api/jobs/v2/jobs', {
      token: w.operator.token,
      query: { from_date: '2030-01-03T03:00:00Z', to_date: '2030-01-02' },
    });
    expect(JobList.parse(late.body).payload.map((job) => job.name)).toEqual(['Jan 2 23:00 in New York']);
  });

  it("shows a teleoperator only their groups' robots' jobs, and nobody another organization's", async () => {
    const w = await world();
    await createJob(w, w.admin, { name: 'visible' });
    await server.context.db.insert(jobs).values({
      orgId: w.orgId,
      robotId: w.hiddenRobotId,
      name: 'hidden',
      startTime: new Date('2030-01-01T00:00:00Z'),
      createdBy: 'someone',
    });
    const other = await world();
    await createJob(other, other.admin, { name: 'foreign' });
    const asOperator = JobList.parse((await server.request('GET', '/api/jobs/v2/jobs', { token: w.operator.token })).body);
    expect(asOperator.payload.map((job) => job.name)).toEqual(['visible']);
    expect(asOperator.count).toBe(1);
    const asAdmin = JobList.parse((await server.request('GET', '/api/jobs/v2/jobs', { token: w.admin.token })).body);
    expect(asAdmin.payload.map((job) => job.name).sort()).toEqual(['hidden', 'visible']);
  });

  it(`counts exactly up to ${EXACT_COUNT_CAP} matches, then answers at least the cap, and pages beyond it`, async () => {
    const w = await world();
    const total = EXACT_COUNT_CAP + 50;
    await server.context.db.execute(sql`
      INSERT INTO jobs (org_id, robot_id, name, start_time, created_by)
      SELECT ${w.orgId}, ${robotOf(w)}::uuid, 'bulk ' || g, timestamptz '2030-01-01T00:00:00Z' - make_interval(mins => g), 'bench'
      FROM generate_series(1, ${total}::int) AS g`);
    const deep = JobList.parse(
      (await server.request('GET', '/api/jobs/v2/jobs', { token: w.admin.token, query: { offset: total - 3, limit: 5 } })).body,
    );
    expect(deep.count).toBeGreaterThan(EXACT_COUNT_CAP);
    // Scheduled, next due first: the last page holds the latest (bulk 1 starts last).
    expect(deep.payload.map((job) => job.name)).toEqual(['bulk 3', 'bulk 2', 'bulk 1']);
    const filtered = JobList.parse(
      (await server.request('GET', '/api/jobs/v2/jobs', { token: w.admin.token, query: { from_date: '2029-12-31T23:00:00Z' } })).body,
    );
    expect(filtered.count).toBe(60);
  });

  it.each([
    [{ limit: 0 }, /limit/],
    [{ offset: -1 }, /offset/],
    [{ robot_id: 'robot-1' }, /robot_id/],
    [{ from_date: '02.01.2030' }, /from_date/],
  ])('answers 400 naming the field for %o', async (query, pattern) => {
    const w = await world();
    expectError(await server.request('GET', '/api/jobs/v2/jobs', { token: w.admin.token, query }), 400, pattern);
  });

  it('answers 401 without a token', async () => {
    expectError(await server.request('GET', '/api/jobs/v2/jobs'), 401);
  });
});

describe('GET /jobs/job/{id}', () => {
  it('gives the job, with room data only when extra_room_data=true', async () => {
    const w = await world();
    const created = await createJob(w, w.admin);
    const plain = Job.parse((await server.request('GET', `/api/jobs/job/${created.job_id}`, { token: w.admin.token })).body);
    expect(plain.rooms[0]).toEqual({ room_id: room(w, 0), order_no: 0, dose: 20, state: 'pending' });
    const detailed = Job.parse(
      (await server.request('GET', `/api/jobs/job/${created.job_id}`, { token: w.admin.token, query: { extra_room_data: true } })).body,
    );
    expect(detailed.rooms[0]).toEqual({
      room_id: room(w, 0),
      order_no: 0,
      dose: 20,
      room_name: 'Room 1.1',
      building_id: w.site.buildingId,
      floor_id: w.site.floors[0]?.id,
      ready_for_disinfection: true,
      state: 'pending',
    });
    expect(detailed.trajectory).toBeUndefined();
  });

  it('adds the logged trajectory with extra_navigation_data=true', async () => {
    const w = await world();
    const created = await createJob(w, w.admin);
    const floorId = w.site.floors[0]?.id ?? '';
    await server.context.db.insert(logs).values({
      jobId: created.job_id,
      orgId: w.orgId,
      jobName: created.name,
      completionStatus: 'Completed',
      robotId: robotOf(w),
      robotName: created.robot_name,
      createdBy: created.created_by,
      startTime: new Date(created.start_time),
      trajectory: [
        { t: 0, x: 1, y: 2, floor_id: floorId },
        { t: 5, x: 2, y: 2, floor_id: floorId },
      ],
    });
    const job = Job.parse(
      (
        await server.request('GET', `/api/jobs/job/${created.job_id}`, {
          token: w.admin.token,
          query: { extra_room_data: true, extra_navigation_data: true },
        })
      ).body,
    );
    expect(job.trajectory).toHaveLength(2);
  });

  it('tells how a job stopped before it began ended: Completed, aborted, without a log, and no longer in the jobs list', async () => {
    const w = await world();
    const created = await createJob(w, w.admin);
    expect(created.completion_status).toBeNull();
    const stopped = await server.request('POST', `/api/command/job/${created.job_id}`, { token: w.admin.token, query: { command: 'stop' } });
    expect(DataFlag.parse(stopped.body)).toEqual({ data: true });
    const job = Job.parse((await server.request('GET', `/api/jobs/job/${created.job_id}`, { token: w.admin.token })).body);
    expect(job).toMatchObject({ status: 'Completed', performed: true, completion_status: 'aborted' });
    // It never ran, so no log says it did.
    expectError(await server.request('GET', `/api/log/${created.job_id}`, { token: w.admin.token }), 404);
    const list = JobList.parse((await server.request('GET', '/api/jobs/v2/jobs', { token: w.admin.token, query: { from_date: '2000-01-01' } })).body);
    expect(list.payload.map((listed) => listed.job_id)).not.toContain(created.job_id);
  });

  it('shows a Running job as disinfecting or paused', async () => {
    const w = await world();
    const created = await createJob(w, w.admin);
    await server.context.db.update(jobs).set({ status: 'Running', activeState: 'paused' }).where(eq(jobs.id, created.job_id));
    const job = Job.parse((await server.request('GET', `/api/jobs/job/${created.job_id}`, { token: w.admin.token })).body);
    expect([job.status, job.active_state]).toEqual(['Running', 'paused']);
  });

  it('answers 400 naming the field', async () => {
    const w = await world();
    const created = await createJob(w, w.admin);
    expectError(await server.request('GET', '/api/jobs/job/nope', { token: w.admin.token }), 400, /id/);
    expectError(
      await server.request('GET', `/api/jobs/job/${created.job_id}`, { token: w.admin.token, query: { extra_room_data: 'yes' } }),
      400,
      /extra_room_data/,
    );
  });

  it('answers 401 without a token', async () => {
    const w = await world();
    const created = await createJob(w, w.admin);
    expectError(await server.request('GET', `/api/jobs/job/${created.job_id}`), 401);
  });

  it("answers 404 for another organization's job and for a teleoperator's invisible robot", async () => {
    const w = await world();
    const other = await world();
    const foreign = await createJob(other, other.admin);
    expectError(await server.request('GET', `/api/jobs/job/${foreign.job_id}`, { token: w.admin.token }), 404, /Job/);
    const [hidden] = await server.context.db
      .insert(jobs)
      .values({ orgId: w.orgId, robotId: w.hiddenRobotId, name: 'hidden', startTime: new Date(), createdBy: 'someone' })
      .returning();
    expectError(await server.request('GET', `/api/jobs/job/${hidden?.id ?? ''}`, { token: w.operator.token }), 404);
    expect((await server.request('GET', `/api/jobs/job/${hidden?.id ?? ''}`, { token: w.admin.token })).status).toBe(200);
  });
});

describe('GET /jobs/jobs/uvc/dose', () => {
  it("gives the organization's doses and default", async () => {
    const w = await world();
    await server.context.db.update(organizations).set({ uvcDoses: [15, 30], defaultDose: 30 }).where(eq(organizations.id, w.orgId));
    const doses = Doses.parse((await server.request('GET', '/api/jobs/jobs/uvc/dose', { token: w.operator.token })).body);
    expect(doses).toEqual({ uvc_doses: [15, 30], default_dose: 30 });
  });

  it('answers 401 without a token', async () => {
    expectError(await server.request('GET', '/api/jobs/jobs/uvc/dose'), 401);
  });
});

describe('DELETE /jobs/jobs/{id}', () => {
  it('deletes the job and publishes a deleted job_change', async () => {
    const w = await world();
    const created = await createJob(w, w.admin);
    const response = await server.request('DELETE', `/api/jobs/jobs/${created.job_id}`, { token: w.operator.token });
    expect(DataFlag.parse(response.body)).toEqual({ data: true });
    expectError(await server.request('GET', `/api/jobs/job/${created.job_id}`, { token: w.admin.token }), 404);
    const events = await server.context.bus.replay(w.orgId, 'jobs', 0);
    expect(events.at(-1)?.payload).toEqual({ job_id: created.job_id, deleted: true });
  });

  it('answers 409 jobControls.errorJobRunning for a Running job and keeps it', async () => {
    const w = await world();
    const created = await createJob(w, w.admin);
    await server.context.db.update(jobs).set({ status: 'Running' }).where(eq(jobs.id, created.job_id));
    expect(expectError(await server.request('DELETE', `/api/jobs/jobs/${created.job_id}`, { token: w.admin.token }), 409).error).toBe(
      'jobControls.errorJobRunning',
    );
    expect(await jobCount(w.orgId)).toBe(1);
  });

  it('answers 400 naming the field, 401 without a token', async () => {
    const w = await world();
    const created = await createJob(w, w.admin);
    expectError(await server.request('DELETE', '/api/jobs/jobs/42', { token: w.admin.token }), 400, /id/);
    expectError(await server.request('DELETE', `/api/jobs/jobs/${created.job_id}`), 401);
    expect(await jobCount(w.orgId)).toBe(1);
  });

  it("answers 404 for another organization's job", async () => {
    const w = await world();
    const other = await world();
    const foreign = await createJob(other, other.admin);
    expectError(await server.request('DELETE', `/api/jobs/jobs/${foreign.job_id}`, { token: w.admin.token }), 404);
    expect(await jobCount(other.orgId)).toBe(1);
  });
});

describe('PATCH /jobs/job/{job_id}/notes', () => {
  it('replaces the notes and publishes job_change', async () => {
    const w = await world();
    const created = await createJob(w, w.admin);
    const response = await server.request('PATCH', `/api/jobs/job/${created.job_id}/notes`, {
      token: w.operator.token,
      body: { notes: 'Room 2 door was locked' },
    });
    expect(Job.parse(response.body).notes).toBe('Room 2 door was locked');
    const events = await server.context.bus.replay(w.orgId, 'jobs', 0);
    expect(Job.parse(events.at(-1)?.payload).notes).toBe('Room 2 door was locked');
  });

  it('answers 400 naming notes, 401 without a token', async () => {
    const w = await world();
    const created = await createJob(w, w.admin);
    expectError(await server.request('PATCH', `/api/jobs/job/${created.job_id}/notes`, { token: w.admin.token, body: {} }), 400, /notes/);
    expectError(await server.request('PATCH', `/api/jobs/job/${created.job_id}/notes`, { body: { notes: 'x' } }), 401);
  });

  it("answers 404 for another organization's job", async () => {
    const w = await world();
    const other = await world();
    const foreign = await createJob(other, other.admin);
    expectError(
      await server.request('PATCH', `/api/jobs/job/${foreign.job_id}/notes`, { token: w.admin.token, body: { notes: 'x' } }),
      404,
    );
  });
});
