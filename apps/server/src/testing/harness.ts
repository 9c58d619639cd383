/**
 * Servers over a fresh database for API tests. Each test makes its own organization and users with the fixtures,
 * so no test depends on seeded data.
 * - `startTestServer`: the whole server (robot link, broker, workers) on a loopback port; `request` goes through
 *   real HTTP. For tests of robots, of what the robot link does, and of HTTP itself (sockets, streams, headers on
 *   the wire, shedding, slow clients).
 * - `startRouteTestServer`: the same API without its robot link (app.ts `robotLink: false`); `request` goes
 *   through Fastify's `inject`, past the sockets. It still listens, so `url` serves what a test sends itself.
 */
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { Role } from '@uvd/contracts';
import { buildApp, type App } from '../app.ts';
import { loadConfig, type Config } from '../config.ts';
import { groups, organizations, userGroups, users } from '../db/schema.ts';
import { hash } from '@node-rs/argon2';
import { ARGON2_PARAMS } from '../identity/passwords.ts';
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
 * Test users' passwords are argon2id at the smallest cost argon2 takes: at the stored passwords' cost
 * (identity/passwords.ts, 19 MiB) a user's hash and its password grant's verification take about 25 ms of CPU
 * (here, 2026-11), and the suite makes a thousand users or more. The token endpoint verifies them with the same
 * code, reading the cost from the hash; the users the API creates are hashed at the stored cost, as users.test.ts
 * checks.
 */
const hashFixturePassword = (password: string): Promise<string> => hash(password, { ...ARGON2_PARAMS, memoryCost: 8, timeCost: 1 });

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
export function startTestServer(overrides: Partial<Config> = {}, shared?: TestDatabase): Promise<TestServer> {
  return start(overrides, shared, { robotLink: true, transport: 'http' });
}

/**
 * A test server without the robot link (no broker, gateway, command outbox or job execution: app.ts
 * `robotLink: false`) whose `request` runs through Fastify's `inject`. For tests of the API that involve no
 * robot; the notification, webhook, mail and audit workers run as in the whole server.
 */
export function startRouteTestServer(overrides: Partial<Config> = {}, shared?: TestDatabase): Promise<TestServer> {
  return start(overrides, shared, { robotLink: false, transport: 'inject' });
}

/** Headers of an injected reply as fetch gives them (repeated ones, such as set-cookie, appended in order). */
function headersOf(raw: Record<string, string | string[] | number | undefined>): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(raw)) {
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) headers.append(name, String(item));
  }
  return headers;
}

async function start(
  overrides: Partial<Config>,
  shared: TestDatabase | undefined,
  mode: { robotLink: boolean; transport: 'http' | 'inject' },
): Promise<TestServer> {
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
  const built = await buildApp({ config, database: testDatabase.database, robotLink: mode.robotLink });
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
    let status: number;
    let responseHeaders: Headers;
    let text: string;
    if (mode.transport === 'inject') {
      // The Host a client of `url` sends, so that origins and issuers read from the request are the same.
      const reply = await built.app.inject({
        method,
        url: `${target.pathname}${target.search}`,
        headers: { host: target.host, ...headers },
        ...(body === undefined ? {} : { payload: body }),
      });
      status = reply.statusCode;
      responseHeaders = headersOf(reply.headers);
      text = reply.payload;
    } else {
      const response = await fetch(target, { method, headers, body });
      status = response.status;
      responseHeaders = response.headers;
      text = await response.text();
    }
    let parsed: unknown = text;
    if (responseHeaders.get('content-type')?.includes('json') && text) parsed = JSON.parse(text);
    return { status, headers: responseHeaders, body: parsed as T };
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
        passwordHash: await hashFixturePassword(password),
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
