/**
 * Robots of a kind: every robot reply says whether it is a disinfection or a delivery robot, and a disinfection
 * job for a delivery robot is refused (409 robot_kind) on create, replace and start-now, changing nothing.
 */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, Job, RobotList } from '@uvd/contracts';
import { jobs, robots } from '../db/schema.ts';
import { expectStatus } from '../testing/assertions.ts';
import { startRouteTestServer, type TestServer } from '../testing/harness.ts';
import { createSite } from '../testing/site-fixtures.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startRouteTestServer();
});
afterAll(async () => {
  await server.close();
});

async function world() {
  const orgId = await server.createOrg('kinds');
  const groupId = await server.createGroup(orgId);
  const site = await createSite(server.context.db, orgId, { roomsPerFloor: 2, robots: 2, groupIds: [groupId] });
  const [disinfector = '', courier = ''] = site.robotIds;
  await server.context.db.update(robots).set({ kind: 'delivery', name: 'Courier' }).where(eq(robots.id, courier));
  await server.context.db.update(robots).set({ name: 'Disinfector' }).where(eq(robots.id, disinfector));
  const admin = await server.createUser(orgId, ['done-admin']);
  const operator = await server.createUser(orgId, ['done-teleoperator'], { groupIds: [groupId] });
  const rooms = (site.floors[0]?.roomIds ?? []).map((room_id, order_no) => ({ room_id, order_no, dose: 10 }));
  return { orgId, admin, operator, disinfector, courier, rooms };
}

const jobBody = (rooms: { room_id: string; order_no: number; dose: number }[], changes: Record<string, unknown> = {}) => ({
  name: 'Ward 3',
  start_time: '2099-01-01T08:00:00Z',
  rooms,
  ...changes,
});

describe('robots of a kind', () => {
  it('every robot list says each robot is a disinfection or a delivery robot', async () => {
    const w = await world();
    for (const [path, user] of [
      ['/api/robot/robot/robots', w.operator],
      ['/api/admin/robot/admin/robot/robots', w.admin],
    ] as const) {
      const response = await server.request('GET', path, { token: user.token });
      expectStatus(response, 200);
      const kinds = RobotList.parse(response.body).payload.map((robot) => [robot.name, robot.kind]);
      expect(kinds, path).toEqual([
        ['Courier', 'delivery'],
        ['Disinfector', 'disinfection'],
      ]);
    }
  });

  it('refuses a disinfection job for a delivery robot (409 robot_kind), saved or started now, and saves nothing', async () => {
    const w = await world();
    for (const query of [{ start_now: 'false' }, { start_now: 'true' }]) {
      const response = await server.request('POST', `/api/jobs/jobs/${w.courier}`, { token: w.admin.token, query, body: jobBody(w.rooms) });
      expectStatus(response, 409);
      expect(ApiError.parse(response.body)).toMatchObject({ error: 'robot_kind', details: { kind: 'delivery' } });
      expect(ApiError.parse(response.body).message).toContain('Courier');
    }
    expect(await server.context.db.select().from(jobs).where(eq(jobs.robotId, w.courier))).toEqual([]);
    // The disinfection robot takes the same job.
    expectStatus(await server.request('POST', `/api/jobs/jobs/${w.disinfector}`, { token: w.admin.token, body: jobBody(w.rooms) }), 200);
  });

  it('refuses to replace a job whose robot has become a delivery robot, leaving the job as it was', async () => {
    const w = await world();
    const created = await server.request('POST', `/api/jobs/jobs/${w.disinfector}`, { token: w.admin.token, body: jobBody(w.rooms) });
    expectStatus(created, 200);
    const job = Job.parse(created.body);
    await server.context.db.update(robots).set({ kind: 'delivery' }).where(eq(robots.id, w.disinfector));
    const replaced = await server.request('PUT', `/api/jobs/jobs/${job.job_id}`, {
      token: w.admin.token,
      body: jobBody(w.rooms, { name: 'Renamed', start_now: false }),
    });
    expectStatus(replaced, 409);
    expect(ApiError.parse(replaced.body).error).toBe('robot_kind');
    const [stored] = await server.context.db.select({ name: jobs.name }).from(jobs).where(eq(jobs.id, job.job_id));
    expect(stored?.name).toBe('Ward 3');
  });
});
