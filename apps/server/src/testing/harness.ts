/**
 * A real server on a loopback port, over a fresh database, for API tests through real HTTP.
 * Each test makes its own organization and users with the fixtures, so no test depends on seeded data.
 */
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { Role } from '@uvd/contracts';
import { buildApp, type App } from '../app.ts';
import { loadConfig, type Config } from '../config.ts';
import { groups, organizations, userGroups, users } from '../db/schema.ts';
import { hashPassword } from '../identity/passwords.ts';
import { createTestDatabase, type TestDatabase } from './test-database.ts';

export interface TestResponse<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
}

export interface RequestOptions {
  token?: string | undefined;
  query?: Record<string, string | number | boolean | readonly (string | number)[]>;
  body?: unknown;
  /** Send `body` as application/x-www-form-urlencoded instead of JSON. */
  form?: Record<string, string>;
  headers?: Record<string, string>;
}

export interface TestUser {
  id: string;
  orgId: string;
  username: string;
  password: string;
  roles: Role[];
  token: string;
}

export interface TestServer extends App {
  url: string;
  testDatabase: TestDatabase;
  request<T = unknown>(method: string, path: string, options?: RequestOptions): Promise<TestResponse<T>>;
  /** A new organization with a unique realm name. */
  createOrg(prefix?: string): Promise<string>;
  /** A new user of `orgId` with `roles`, member of `groupIds`, with a valid access token. */
  createUser(orgId: string, roles: Role[], options?: { groupIds?: string[]; username?: string }): Promise<TestUser>;
  createGroup(orgId: string, name?: string): Promise<string>;
  close(): Promise<void>;
}

const unique = () => randomBytes(4).toString('hex');

/**
 * Test servers on one external broker (Mosquitto) are separate deployments unless they share a database: each
 * database's servers get a shared-subscription group of their own, or a robot's states would go to a server of
 * another test file that does not know the robot.
 */
const shareGroups = new WeakMap<TestDatabase, string>();
const shareGroupOf = (database: TestDatabase): string => {
  let group = shareGroups.get(database);
  if (!group) {
    group = `uvd-gateway-test-${unique()}`;
    shareGroups.set(database, group);
  }
  return group;
};

/**
 * `shared`: run on that database instead of a new one (another server, a restart on the same data); it is left
 * open when this server closes.
 */
export async function startTestServer(overrides: Partial<Config> = {}, shared?: TestDatabase): Promise<TestServer> {
  const testDatabase = shared ?? (await createTestDatabase());
  const config: Config = {
    // No token rate limit unless a test asks for one: createUser logs in through the token endpoint.
    // No shedding on the event loop's delay or use either: test files run several servers in one process, and one
    // server's start (PGlite's migrations block the loop) would make the others refuse requests.
    ...loadConfig({
      LOG_LEVEL: 'silent',
      SEED_DEMO: 'false',
      TOKEN_RATE_LIMIT_PER_MINUTE: '0',
      LOAD_MAX_EVENT_LOOP_DELAY_MS: '0',
      LOAD_MAX_EVENT_LOOP_UTILIZATION: '0',
    }),
    port: 0,
    host: '127.0.0.1',
    // The embedded MQTT broker on a free port of its own, so test servers never clash.
    mqttPort: 0,
    mqttUrl: undefined,
    mqttShareGroup: shareGroupOf(testDatabase),
    ...overrides,
  };
  const built = await buildApp({ config, database: testDatabase.database });
  await built.app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = built.app.server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  const db = testDatabase.database.db;

  const request = async <T>(method: string, path: string, options: RequestOptions = {}): Promise<TestResponse<T>> => {
    const target = new URL(path, url);
    for (const [key, value] of Object.entries(options.query ?? {})) {
      if (Array.isArray(value)) for (const item of value) target.searchParams.append(key, String(item));
      else target.searchParams.set(key, String(value));
    }
    const headers: Record<string, string> = { ...options.headers };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    let body: string | undefined;
    if (options.form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(options.form).toString();
    } else if (options.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(options.body);
    }
    const response = await fetch(target, { method, headers, body });
    const text = await response.text();
    let parsed: unknown = text;
    if (response.headers.get('content-type')?.includes('json') && text) parsed = JSON.parse(text);
    return { status: response.status, headers: response.headers, body: parsed as T };
  };

  const createOrg = async (prefix = 'org') => {
    const id = `${prefix}-${unique()}`;
    await db.insert(organizations).values({ id, name: id, uvcDoses: [10, 20, 30, 50], defaultDose: 20 });
    return id;
  };

  const createGroup = async (orgId: string, name = `group-${unique()}`) => {
    const [row] = await db.insert(groups).values({ orgId, name }).returning({ id: groups.id });
    if (!row) throw new Error('group not created');
    return row.id;
  };

  const createUser: TestServer['createUser'] = async (orgId, roles, options = {}) => {
    // Usernames are lowercase, as the token endpoint compares them (Keycloak's rule).
    const username = (options.username ?? `user-${unique()}`).toLowerCase();
    const password = `pw-${unique()}-${unique()}`;
    const [row] = await db
      .insert(users)
      .values({
        orgId,
        username,
        firstName: 'Test',
        lastName: username,
        email: `${username}@example.test`,
        passwordHash: await hashPassword(password),
        roles,
      })
      .returning({ id: users.id });
    if (!row) throw new Error('user not created');
    const groupIds = options.groupIds ?? [];
    if (groupIds.length > 0) await db.insert(userGroups).values(groupIds.map((groupId) => ({ userId: row.id, groupId })));
    // A real password grant, so every API test also exercises the token endpoint and its claims.
    const grant = await request<{ access_token?: string }>('POST', `/idp/realms/${orgId}/protocol/openid-connect/token`, {
      form: { grant_type: 'password', client_id: config.clientId, username, password, scope: 'openid' },
    });
    const token = grant.body.access_token;
    if (grant.status !== 200 || !token) throw new Error(`password grant failed: ${grant.status} ${JSON.stringify(grant.body)}`);
    return { id: row.id, orgId, username, password, roles, token };
  };

  return {
    ...built,
    url,
    testDatabase,
    request,
    createOrg,
    createGroup,
    createUser,
    close: async () => {
      await built.app.close();
      if (!shared) await testDatabase.drop();
    },
  };
}
