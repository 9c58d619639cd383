import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DataFlag, FloorRobots, Robot, RobotList, RobotSummary, type RobotMode, type RobotStatus } from '@uvd/contracts';
import { robotGroups, robots } from '../db/schema.ts';
import { expectFieldError, expectStatus } from '../testing/assertions.ts';
import { startRouteTestServer, type TestServer } from '../testing/harness.ts';
import { putRobotsInGroup } from '../testing/rooms-fixtures.ts';
import { createSite } from '../testing/site-fixtures.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startRouteTestServer();
});
afterAll(async () => {
  await server.close();
});

interface RobotSeed {
  name: string;
  floorId?: string | null;
  mode?: RobotMode;
  status?: RobotStatus;
  battery?: number;
  chargingStatus?: number;
}

async function addRobots(orgId: string, seeds: RobotSeed[]): Promise<string[]> {
  const rows = await server.context.db
    .insert(robots)
    .values(
      seeds.map((seed) => ({
        orgId,
        name: seed.name,
        serialNumber: `SN-${crypto.randomUUID()}`,
        floorId: seed.floorId ?? null,
        mode: seed.mode ?? 0,
        // As the gateway writes a robot that speaks: its mode and signal count only while it is online.
        connectionState: (seed.mode ?? 0) === 0 ? 'OFFLINE' : 'ONLINE',
        status: seed.status ?? 'idle',
        battery: seed.battery ?? 80,
        chargingStatus: seed.chargingStatus ?? 0,
        signal: 70,
        pose: seed.floorId ? { x: 1.5, y: 2.5, theta: 0.5 } : null,
        lastSeenAt: new Date('2025-03-01T10:00:00Z'),
      })),
    )
    .returning({ id: robots.id });
  return rows.map((row) => row.id);
}

/**
 * An organization with robots Charlie, alpha, Bravo (two on the ground floor) and Delta (the group's, upper floor);
 * an admin; a teleoperator whose group holds alpha and Delta; another organization with one robot.
 */
async function world() {
  const orgId = await server.createOrg();
  const db = server.context.db;
  const site = await createSite(db, orgId, { floors: 2, roomsPerFloor: 1, robots: 0 });
  const [ground, upper] = site.floors;
  if (!ground || !upper) throw new Error('site incomplete');
  const [charlie, alpha, bravo, delta] = await addRobots(orgId, [
    { name: 'Charlie', floorId: ground.id, mode: 2, status: 'disinfecting', battery: 15 },
    { name: 'alpha', floorId: ground.id, mode: 0, status: 'idle', battery: 90, chargingStatus: 1 },
    { name: 'Bravo', floorId: null, mode: 4, status: 'error', battery: 5, chargingStatus: 1 },
    { name: 'Delta', floorId: upper.id, mode: 2, status: 'idle', battery: 50 },
  ]);
  if (!charlie || !alpha || !bravo || !delta) throw new Error('robots missing');
  const groupId = await server.createGroup(orgId);
  await putRobotsInGroup(db, groupId, [alpha, delta]);
  const admin = await server.createUser(orgId, ['done-admin']);
  const operator = await server.createUser(orgId, ['done-teleoperator'], { groupIds: [groupId] });
  const otherOrgId = await server.createOrg('other');
  const other = await createSite(db, otherOrgId, { floors: 1, roomsPerFloor: 0, robots: 1 });
  const otherGroupId = await server.createGroup(otherOrgId);
  const [otherRobot] = other.robotIds;
  const [otherFloor] = other.floors;
  if (!otherRobot || !otherFloor) throw new Error('site incomplete');
  return { orgId, site, ground, upper, charlie, alpha, bravo, delta, groupId, admin, operator, otherRobot, otherFloor, otherGroupId };
}

const groupRobotIds = async (groupId: string) =>
  (await server.context.db.select({ id: robotGroups.robotId }).from(robotGroups).where(eq(robotGroups.groupId, groupId)))
    .map((row) => row.id)
    .sort();

describe('GET /robot/robot/robots', () => {
  it('lists every robot to an admin sorted by name, with count and payload', async () => {
    const w = await world();
    const response = await server.request('GET', '/api/robot/robot/robots', { token: w.admin.token, query: { offset: 0, limit: 50 } });
    expectStatus(response, 200);
    const list = RobotList.parse(response.body);
    expect(list.count).toBe(4);
    expect(list.payload.map((r) => r.robot_id)).toEqual([w.alpha, w.bravo, w.charlie, w.delta]);
    const charlie = list.payload[2];
    expect(charlie).toEqual({
      robot_id: w.charlie,
      name: 'Charlie',
      kind: 'disinfection',
      status: 'disinfecting',
      mode: 2,
      battery: 15,
      charging_status: 0,
      signal: 70,
      floor_id: w.ground.id,
      building_id: w.site.buildingId,
      pose: { x: 1.5, y: 2.5, theta: 0.5 },
      last_seen: '2025-03-01T10:00:00.000Z',
      // Not connected since this server started, so the gateway has no reason to call it stale.
      stale: false,
    });
    expect(list.payload[1]).toMatchObject({ floor_id: null, building_id: null, pose: null, charging_status: 1 });

    const page = await server.request('GET', '/api/robot/robot/robots', { token: w.admin.token, query: { offset: 1, limit: 2 } });
    const second = RobotList.parse(page.body);
    expect(second.count).toBe(4);
    expect(second.payload.map((r) => r.robot_id)).toEqual([w.bravo, w.charlie]);
  });

  it('shows a teleoperator only the robots of their groups', async () => {
    const w = await world();
    const response = await server.request('GET', '/api/robot/robot/robots', { token: w.operator.token });
    const list = RobotList.parse(response.body);
    expect(list.count).toBe(2);
    expect(list.payload.map((r) => r.robot_id)).toEqual([w.alpha, w.delta]);
  });

  it('answers 400 naming the field, 401 without a token', async () => {
    const w = await world();
    expectFieldError(await server.request('GET', '/api/robot/robot/robots', { token: w.admin.token, query: { limit: -5 } }), 'limit');
    expectFieldError(await server.request('GET', '/api/robot/robot/robots', { token: w.admin.token, query: { offset: 'x' } }), 'offset');
    expectStatus(await server.request('GET', '/api/robot/robot/robots'), 401);
  });
});

describe('GET /admin/robot/admin/robot/robots', () => {
  it('lists every robot of the organization, never another organization’s', async () => {
    const w = await world();
    const superadmin = await server.createUser(w.orgId, ['done-superadmin'], { groupIds: [w.groupId] });
    const response = await server.request('GET', '/api/admin/robot/admin/robot/robots', {
      token: superadmin.token,
      query: { offset: 0, limit: 50 },
    });
    expectStatus(response, 200);
    const list = RobotList.parse(response.body);
    expect(list.count).toBe(4);
    expect(list.payload.map((r) => r.robot_id)).toEqual([w.alpha, w.bravo, w.charlie, w.delta]);
  });

  it('answers 400 naming the field, 401, 403 to a teleoperator', async () => {
    const w = await world();
    const path = '/api/admin/robot/admin/robot/robots';
    expectFieldError(await server.request('GET', path, { token: w.admin.token, query: { limit: 201 } }), 'limit');
    expectStatus(await server.request('GET', path), 401);
    expectStatus(await server.request('GET', path, { token: w.operator.token }), 403);
  });
});

describe('GET /robot/floor/robot', () => {
  it('lists the ids of the robots on a floor, sorted by name', async () => {
    const w = await world();
    const response = await server.request('GET', '/api/robot/floor/robot', { token: w.admin.token, query: { floor_id: w.ground.id } });
    expectStatus(response, 200);
    expect(FloorRobots.parse(response.body)).toEqual({ robot_list: [w.alpha, w.charlie] });
  });

  it('shows a teleoperator only the robots of their groups', async () => {
    const w = await world();
    const response = await server.request('GET', '/api/robot/floor/robot', { token: w.operator.token, query: { floor_id: w.ground.id } });
    expect(FloorRobots.parse(response.body)).toEqual({ robot_list: [w.alpha] });
  });

  it('answers 400 naming the field, 401, 404 for another organization’s floor', async () => {
    const w = await world();
    const get = (token: string | undefined, query: Record<string, string>) => server.request('GET', '/api/robot/floor/robot', { token, query });
    expectFieldError(await get(w.admin.token, {}), 'floor_id');
    expectFieldError(await get(w.admin.token, { floor_id: 'f1' }), 'floor_id');
    expectStatus(await get(undefined, { floor_id: w.ground.id }), 401);
    expectStatus(await get(w.admin.token, { floor_id: w.otherFloor.id }), 404);
  });
});

describe('GET /robot/robot/summary', () => {
  it('counts the robots by mode and status, charging and low on battery', async () => {
    const w = await world();
    const response = await server.request('GET', '/api/robot/robot/summary', { token: w.admin.token });
    expectStatus(response, 200);
    expect(RobotSummary.parse(response.body)).toEqual({
      total: 4,
      by_mode: { offline: 1, manual: 0, autonomous: 2, semi_autonomous: 0, maintenance: 1 },
      // The robot that is not online is counted offline, whatever status it last reported.
      by_status: { disinfecting: 1, idle: 1, error: 1, offline: 1 },
      charging: 2,
      low_battery: 2,
    });
  });

  it('counts only a teleoperator’s robots, and answers 401 without a token', async () => {
    const w = await world();
    const response = await server.request('GET', '/api/robot/robot/summary', { token: w.operator.token });
    expect(RobotSummary.parse(response.body)).toEqual({
      total: 2,
      by_mode: { offline: 1, manual: 0, autonomous: 1, semi_autonomous: 0, maintenance: 0 },
      by_status: { idle: 1, offline: 1 },
      charging: 1,
      low_battery: 0,
    });
    expectStatus(await server.request('GET', '/api/robot/robot/summary'), 401);
  });
});

describe('GET /admin/robot/:groupId', () => {
  it('replies the group’s robots as an array sorted by name', async () => {
    const w = await world();
    const response = await server.request('GET', `/api/admin/robot/${w.groupId}`, { token: w.admin.token });
    expectStatus(response, 200);
    const list = Robot.array().parse(response.body);
    expect(list.map((r) => r.robot_id)).toEqual([w.alpha, w.delta]);
    const empty = await server.createGroup(w.orgId);
    expect(Robot.array().parse((await server.request('GET', `/api/admin/robot/${empty}`, { token: w.admin.token })).body)).toEqual([]);
  });

  it('answers 400 naming the field, 401, 403, 404 for another organization’s group', async () => {
    const w = await world();
    expectFieldError(await server.request('GET', '/api/admin/robot/not-a-uuid', { token: w.admin.token }), 'groupId');
    expectStatus(await server.request('GET', `/api/admin/robot/${w.groupId}`), 401);
    expectStatus(await server.request('GET', `/api/admin/robot/${w.groupId}`, { token: w.operator.token }), 403);
    expectStatus(await server.request('GET', `/api/admin/robot/${w.otherGroupId}`, { token: w.admin.token }), 404);
  });
});

describe('POST /admin/robot/group_robot/robots', () => {
  it('adds robots to a group idempotently, which the group’s teleoperator then sees', async () => {
    const w = await world();
    const add = () =>
      server.request('POST', '/api/admin/robot/group_robot/robots', {
        token: w.admin.token,
        query: { group_id: w.groupId },
        body: [w.charlie, w.alpha],
      });
    const first = await add();
    expectStatus(first, 200);
    expect(DataFlag.parse(first.body)).toEqual({ data: true });
    expectStatus(await add(), 200);
    expect(await groupRobotIds(w.groupId)).toEqual([w.alpha, w.charlie, w.delta].sort());
    const seen = await server.request('GET', '/api/robot/robot/robots', { token: w.operator.token });
    expect(RobotList.parse(seen.body).payload.map((r) => r.robot_id)).toEqual([w.alpha, w.charlie, w.delta]);
  });

  it('answers 400 naming the field, 401, 403, 404 for another organization’s group or robot, writing nothing', async () => {
    const w = await world();
    const post = (token: string | undefined, query: Record<string, string>, body: unknown) =>
      server.request('POST', '/api/admin/robot/group_robot/robots', { token, query, body });
    expectFieldError(await post(w.admin.token, {}, [w.charlie]), 'group_id');
    expectFieldError(await post(w.admin.token, { group_id: w.groupId }, []), 'body');
    expectFieldError(await post(w.admin.token, { group_id: w.groupId }, [w.charlie, 'r2']), '1');
    expectFieldError(await post(w.admin.token, { group_id: w.groupId }, { robot_list: [w.charlie] }), 'body');
    expectStatus(await post(undefined, { group_id: w.groupId }, [w.charlie]), 401);
    expectStatus(await post(w.operator.token, { group_id: w.groupId }, [w.charlie]), 403);
    expectStatus(await post(w.admin.token, { group_id: w.otherGroupId }, [w.charlie]), 404);
    expectStatus(await post(w.admin.token, { group_id: w.groupId }, [w.charlie, w.otherRobot]), 404);
    expect(await groupRobotIds(w.groupId)).toEqual([w.alpha, w.delta].sort());
  });
});

describe('DELETE /admin/robot/robots', () => {
  it('removes robots from a group, ignoring robots not in it', async () => {
    const w = await world();
    const response = await server.request('DELETE', '/api/admin/robot/robots', {
      token: w.admin.token,
      query: { group_id: w.groupId },
      body: [w.alpha, w.bravo],
    });
    expectStatus(response, 200);
    expect(DataFlag.parse(response.body)).toEqual({ data: true });
    expect(await groupRobotIds(w.groupId)).toEqual([w.delta]);
    const seen = await server.request('GET', '/api/robot/robot/robots', { token: w.operator.token });
    expect(RobotList.parse(seen.body).payload.map((r) => r.robot_id)).toEqual([w.delta]);
  });

  it('answers 400 naming the field, 401, 403, 404 for another organization’s group or robot, writing nothing', async () => {
    const w = await world();
    const remove = (token: string | undefined, query: Record<string, string>, body: unknown) =>
      server.request('DELETE', '/api/admin/robot/robots', { token, query, body });
    expectFieldError(await remove(w.admin.token, { group_id: 'g' }, [w.alpha]), 'group_id');
    expectFieldError(await remove(w.admin.token, { group_id: w.groupId }, 'alpha'), 'body');
    expectStatus(await remove(undefined, { group_id: w.groupId }, [w.alpha]), 401);
    expectStatus(await remove(w.operator.token, { group_id: w.groupId }, [w.alpha]), 403);
    expectStatus(await remove(w.admin.token, { group_id: w.otherGroupId }, [w.alpha]), 404);
    expectStatus(await remove(w.admin.token, { group_id: w.groupId }, [w.alpha, w.otherRobot]), 404);
    expect(await groupRobotIds(w.groupId)).toEqual([w.alpha, w.delta].sort());
  });
});

describe('OpenAPI document', () => {
  it('describes every robots route', async () => {
    const response = await server.request<{ paths: Record<string, Record<string, unknown>> }>('GET', '/api/docs/json');
    expectStatus(response, 200);
    const paths = Object.keys(response.body.paths);
    for (const path of [
      '/robot/robot/robots',
      '/admin/robot/admin/robot/robots',
      '/robot/floor/robot',
      '/robot/robot/summary',
      '/admin/robot/{groupId}',
      '/admin/robot/group_robot/robots',
      '/admin/robot/robots',
    ]) {
      expect(paths.includes(path) || paths.includes(`/api${path}`), path).toBe(true);
    }
  });

  it('names the statuses and modes a robot can have', async () => {
    const response = await server.request('GET', '/api/docs/json');
    expectStatus(response, 200);
    const statuses = ['idle', 'driving', 'disinfecting', 'waiting', 'on_order', 'paused', 'charging', 'error', 'offline'];
    const text = JSON.stringify(response.body);
    // A client generated from the document gets the statuses as an enumeration, not any text.
    const enumerations = [...text.matchAll(/"status":\{[^{}]*"enum":(\[[^\]]*\])/g)].map((match) => match[1]);
    expect(enumerations).toContain(JSON.stringify(statuses));
    // Modes 0 Offline, 1 Manual, 2 Autonomous, 3 Semi-autonomous, 4 Maintenance.
    expect(text).toMatch(/"mode":\{[^{}]*"enum":\[0,1,2,3,4\]/);
  });
});
