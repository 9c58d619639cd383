// The sign-in path on the seeded data: a demo user signs in at the realm's token endpoint and the
// API answers with that organization's hospital, limited to the user's groups; the other realm sees its own.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FloorMapMetadata, LogList, RobotList, SessionUser } from '@uvd/contracts';
import { startRouteTestServer, type TestServer } from '../testing/harness.ts';
import { DEMO, NORTHWIND } from './demo-data.ts';
import { seedDemoIfEmpty } from './demo-seed.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startRouteTestServer();
  await seedDemoIfEmpty(server.context.database);
});
afterAll(async () => {
  await server.close();
});

const passwordOf = (organization: typeof DEMO, username: string) => {
  const user = organization.users.find((candidate) => candidate.username === username);
  if (!user) throw new Error(`${username} is not a demo user`);
  return user.password;
};

const signIn = async (realm: string, username: string, password: string) =>
  server.request<{ access_token?: string; error?: string }>('POST', `/idp/realms/${realm}/protocol/openid-connect/token`, {
    form: { grant_type: 'password', client_id: server.context.config.clientId, username, password, scope: 'openid' },
    query: { scope: 'offline_access' },
  });

const tokenOf = async (realm: string, username: string, password: string) => {
  const grant = await signIn(realm, username, password);
  expect(grant.status).toBe(200);
  const token = grant.body.access_token;
  if (!token) throw new Error('no access token');
  return token;
};

describe('demo sign-in', () => {
  it('lets the documented demo users sign in, and my-profile accepts their tokens', async () => {
    for (const user of DEMO.users) {
      const token = await tokenOf('demo', user.username, user.password);
      const profile = await server.request('GET', '/api/user/my-profile', { token });
      expect(profile.status).toBe(200);
      expect(SessionUser.parse(profile.body)).toMatchObject({ username: user.username, realm: 'demo' });
    }
  });

  it('keeps the realms apart: the same username with the other realm\'s password is refused', async () => {
    const refused = await signIn('northwind', 'admin', passwordOf(DEMO, 'admin'));
    expect([400, 401]).toContain(refused.status);
    expect(refused.body.error).toBe('invalid_grant');
    const token = await tokenOf('northwind', 'admin', passwordOf(NORTHWIND, 'admin'));
    const robots = RobotList.parse((await server.request('GET', '/api/robot/robot/robots', { token })).body);
    expect(robots.payload.map((robot) => robot.name)).toEqual(['NW-UVD-1']);
  });

  it('shows an operator the robots and logs of their ward only', async () => {
    const token = await tokenOf('demo', 'operator', passwordOf(DEMO, 'operator'));
    const robots = RobotList.parse((await server.request('GET', '/api/robot/robot/robots', { token })).body);
    expect(robots.payload.map((robot) => robot.name)).toEqual(['UVD-1', 'UVD-2']);
    const logs = LogList.parse((await server.request('GET', '/api/log', { token, query: { limit: 50 } })).body);
    expect(logs.count).toBeGreaterThan(10);
    expect(new Set(logs.payload.map((log) => log.robot_name))).toEqual(new Set(['UVD-1', 'UVD-2']));
  });

  it('serves the generated plan and its metadata for a robot\'s floor', async () => {
    const token = await tokenOf('demo', 'admin', passwordOf(DEMO, 'admin'));
    const robots = RobotList.parse((await server.request('GET', '/api/admin/robot/admin/robot/robots', { token })).body);
    expect(robots.payload).toHaveLength(4);
    const [row] = await server.context.db.query.robots.findMany({ where: (robot, { eq }) => eq(robot.name, 'UVD-2') });
    const floorId = row?.floorId ?? '';
    const map = await server.request<string>('GET', '/api/floors/floor/map', { token, query: { floor_id: floorId, image_format: 'svg' } });
    expect(map.status).toBe(200);
    expect(map.headers.get('content-type')).toContain('image/svg+xml');
    expect(map.body).toContain('A3-301');
    const metadata = FloorMapMetadata.parse((await server.request('GET', '/api/floors/floor/map/metadata', { token, query: { floor_id: floorId } })).body);
    expect(metadata).toMatchObject({ resolution: 0.05, width: 920, height: 332 });
    expect(metadata.rooms.length).toBeGreaterThan(10);
  });
});
