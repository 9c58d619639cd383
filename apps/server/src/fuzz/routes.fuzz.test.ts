/**
 * Property-based fuzzing of every route of the contracts' route table over real HTTP: bodies, queries and path
 * parameters derived from the route's own schemas and mutated (NUL, lone surrogates, RTL and emoji, huge
 * strings and numbers, wrong types, extra and missing fields, arrays for scalars, invalid JSON, wrong content
 * types), sent by an admin of the fuzzed organization or by nobody. Never a 5xx; every reply matches the schema
 * declared for its status; a refused request (4xx) leaves every table as it was.
 *
 * Fixed seed by default; FUZZ_SEED and FUZZ_RUNS (runs per route) for longer local runs. FUZZ_TALLY=1 counts the
 * problems of every request instead of stopping a route at its first (to measure a defect's extent); FUZZ_VERBOSE=1
 * prints every reply.
 */
import fc from 'fast-check';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { Contact, CreatedDelivery, DeliveryStatus, isStreamRoute, Job, ROUTE_TABLE, routeUrl, type RouteTableEntry } from '@uvd/contracts';
import { actions, contacts, deliveries, groups, jobs, logs, users } from '../db/schema.ts';
import { startRouteTestServer, type TestServer, type TestUser } from '../testing/harness.ts';
import { addFloorMap } from '../testing/rooms-fixtures.ts';
import { createSite } from '../testing/site-fixtures.ts';
import { fuzzed, jsonSchemaOf, nastyText, validOf, type IdPool } from './arbitraries.ts';
import { changedTables, replyProblem, sendRoute, tableChecksums, type BodyEncoding, type RouteRequest } from './http.ts';

const SEED = Number(process.env.FUZZ_SEED ?? 20261124);
const RUNS = Number(process.env.FUZZ_RUNS ?? 24);
const TALLY = process.env.FUZZ_TALLY === '1';
/** FUZZ_VERBOSE=1 prints every reply, to see how far the generated requests get. */
const VERBOSE = process.env.FUZZ_VERBOSE === '1';
const problems: string[] = [];
let requestCount = 0;
console.info(`fuzz: seed ${SEED}, ${RUNS} runs per route (FUZZ_SEED, FUZZ_RUNS)`);

let server: TestServer;
let admin: TestUser;
let operator: TestUser;
let pool: IdPool;

let orgId: string;
let groupId: string;
let robotId: string;
let roomIds: string[];

beforeAll(async () => {
  // With a metrics token, GET /metrics is fuzzed past its 404 (nobody and a user's token get 401).
  server = await startRouteTestServer({ metricsToken: 'fuzz-metrics-token-0123456789abcdef' });
  orgId = await server.createOrg('fuzz');
  groupId = await server.createGroup(orgId);
  const site = await createSite(server.context.db, orgId, { floors: 1, roomsPerFloor: 3, robots: 2, groupIds: [groupId] });
  await addFloorMap(server.context.db, site.floors[0]?.id ?? '');
  admin = await server.createUser(orgId, ['done-admin']);
  operator = await server.createUser(orgId, ['done-teleoperator'], { groupIds: [groupId] });
  robotId = site.robotIds[0] ?? '';
  roomIds = site.floors[0]?.roomIds ?? [];
  pool = {
    realm: orgId,
    ids: {
      robot: site.robotIds,
      room: roomIds,
      floor: site.floors.map((floor) => floor.id),
      building: [site.buildingId],
      user: [admin.id, operator.id],
    },
    words: {
      dose: [10, 20, 30, 50],
      email: ['someone@hospital.test', 'Second.Person@Hospital.test'],
      topic: [orgId],
      token: [FCM_TOKEN],
      deviceToken: [FCM_TOKEN],
      language: ['en', 'FI', 'se'],
      timezone: ['Europe/Helsinki', 'UTC', 'America/Argentina/Buenos_Aires'],
    },
  };
});

const FCM_TOKEN = `fuzz-${'f'.repeat(60)}`;

const exists = async (table: typeof jobs | typeof contacts | typeof groups | typeof users, id: string | undefined) =>
  id !== undefined && (await server.context.db.select({ id: table.id }).from(table).where(eq(table.id, id))).length > 0;

/**
 * Routes fuzzed earlier delete, stop and answer what later ones need (a Scheduled job with its log and an open
 * prompt, a contact, a second group, the teleoperator): made again before each route, so every route gets reach.
 */
beforeEach(async () => {
  const db = server.context.db;
  const [job] = await db.select({ status: jobs.status }).from(jobs).where(eq(jobs.id, pool.ids.job?.[0] ?? crypto.randomUUID()));
  if (job?.status !== 'Scheduled') {
    const created = await server.request('POST', `/api/jobs/jobs/${robotId}`, {
      token: admin.token,
      body: { name: 'Fuzz', start_time: '2099-01-01T00:00:00Z', rooms: roomIds.map((room_id, order_no) => ({ room_id, order_no, dose: 10 })) },
    });
    const jobId = Job.parse(created.body).job_id;
    // A log keyed by the job's id and a prompt of its robot, so the log and action routes have rows to act on.
    await db.insert(logs).values({ jobId, orgId, jobName: 'Fuzz', completionStatus: 'done', robotId, robotName: 'Robot', createdBy: admin.username, startTime: new Date() });
    const [action] = await db.insert(actions).values({ orgId, jobId, robotId, promptId: `p-${jobId}`, buttonText: 'continue' }).returning({ id: actions.id });
    pool.ids.job = [jobId];
    pool.ids.action = action ? [action.id] : [];
  }
  // A Queued delivery for the deliveries' routes (a fuzzed cancel ends it).
  const [delivery] = await db.select({ status: deliveries.status }).from(deliveries).where(eq(deliveries.id, pool.ids.delivery?.[0] ?? crypto.randomUUID()));
  if (delivery?.status !== DeliveryStatus.queued) {
    const created = await server.request('POST', '/api/deliveries', {
      token: admin.token,
      body: { pickup_room_id: roomIds[0], dropoff_room_id: roomIds[1], items: [{ description: 'Fuzz', category: 'other', quantity: 1 }] },
    });
    pool.ids.delivery = [CreatedDelivery.parse(created.body).delivery_id];
  }
  if (!(await exists(contacts, pool.ids.contact?.[0]))) {
    const contact = await server.request('POST', '/api/contact/admin/profile/contacts', {
      token: admin.token,
      body: { title: 'Nurse', name: 'Maija', phone: '+358 1', email: 'maija@hospital.test' },
    });
    pool.ids.contact = [Contact.parse(contact.body).id];
  }
  const groupsLeft = [];
  for (const id of pool.ids.group ?? []) if (await exists(groups, id)) groupsLeft.push(id);
  if (!groupsLeft.includes(groupId)) groupId = await server.createGroup(orgId);
  const others = groupsLeft.filter((id) => id !== groupId);
  pool.ids.group = [groupId, ...(others.length > 0 ? others : [await server.createGroup(orgId)])];
  if (!(await exists(users, operator.id))) {
    operator = await server.createUser(orgId, ['done-teleoperator'], { groupIds: [groupId] });
    pool.ids.user = [admin.id, operator.id];
  }
});

afterAll(async () => {
  await server.close();
});

/** Field values that let a generated request reach past the first checks of the identity provider. */
const identityHints = (): Record<string, fc.Arbitrary<unknown>> => ({
  client_id: fc.oneof({ weight: 6, arbitrary: fc.constant(server.context.config.clientId) }, nastyText),
  grant_type: fc.oneof({ weight: 6, arbitrary: fc.constantFrom('password', 'password', 'refresh_token', 'client_credentials') }, nastyText),
  username: fc.oneof({ weight: 6, arbitrary: fc.constant(operator.username) }, nastyText),
  password: fc.oneof({ weight: 6, arbitrary: fc.constant(operator.password) }, nastyText),
});

/** Half of the time, a generated record whose named fields are drawn from `hints`. */
const withHints = (base: fc.Arbitrary<unknown>, hints: Record<string, fc.Arbitrary<unknown>>): fc.Arbitrary<unknown> =>
  fc.tuple(base, fc.record(hints), fc.boolean()).map(([value, hinted, use]) =>
    use && typeof value === 'object' && value !== null && !Array.isArray(value) ? { ...value, ...hinted } : value,
  );

/** The generated parts of a request for `entry` (the route itself stays out, so counterexamples print short). */
function requestArbitrary(entry: RouteTableEntry): fc.Arbitrary<Omit<RouteRequest, 'entry'>> {
  const { contract } = entry;
  const identity = entry.mount === 'identity';
  /** One part of the request is fuzzed at a time, the others valid, so the fuzzed part is what gets checked. */
  const part = (schema: z.ZodType | undefined, io: 'input' | 'output', fuzz: boolean): fc.Arbitrary<unknown> => {
    if (!schema) return fc.constant(undefined);
    const json = jsonSchemaOf(schema, io);
    return fuzz ? fuzzed(json, pool, contract.path) : validOf(json, pool, contract.path);
  };
  const params = (fuzz: boolean) =>
    withHints(part(contract.params, 'output', fuzz), { organization: fc.oneof({ weight: 6, arbitrary: fc.constant(pool.realm) }, nastyText) });
  const body = (fuzz: boolean) =>
    contract.body
      ? withHints(part(contract.body, 'input', fuzz), identity ? identityHints() : {})
      : fc.option(fc.jsonValue({ maxDepth: 2 }), { nil: undefined });
  const target = fc.oneof(
    { weight: contract.params ? 1 : 0, arbitrary: fc.constant('params') },
    { weight: contract.querystring ? 1 : 0, arbitrary: fc.constant('query') },
    { weight: contract.body ? 3 : 0, arbitrary: fc.constant('body') },
    { weight: 1, arbitrary: fc.constant('all') },
  );
  const parts = target.chain((target) =>
    fc.record({
      params: params(target === 'params' || target === 'all'),
      query: part(contract.querystring, 'output', target === 'query' || target === 'all'),
      body: body(target === 'body' || target === 'all'),
    }),
  );
  const usual: BodyEncoding = identity ? 'form' : 'json';
  const encoding = fc.oneof(
    { weight: 6, arbitrary: fc.constant(usual) },
    { weight: 1, arbitrary: fc.constantFrom<BodyEncoding>(identity ? 'json' : 'form', 'invalid-json', 'text', 'none') },
  );
  const needsToken = contract.auth !== false;
  return fc.record({
    parts,
    encoding,
    // One request in eight without a token; routes without bearer auth sometimes get one they ignore.
    token: fc.integer({ min: 0, max: 7 }).map((draw) => (draw === 0 ? undefined : needsToken || draw === 1 ? admin.token : undefined)),
    headers: fc.option(
      fc.record({ 'last-event-id': fc.oneof(fc.nat().map(String), nastyText.filter((text) => /^[\x20-\x7e]*$/.test(text))) }, { requiredKeys: [] }),
      { nil: undefined },
    ),
  }).map(({ parts: { params, query, body }, ...rest }) => ({
    ...rest,
    params: typeof params === 'object' && params !== null && !Array.isArray(params) ? { ...params } : {},
    query,
    body,
  }));
}

// The token endpoint records failed logins (brute-force protection, behaviour §7 "Identity provider"): a refused grant
// writes by design.
const WRITES_WHEN_REFUSED: Record<string, readonly string[]> = { identity: ['users', 'sessions', 'refresh_tokens'] };

describe('fuzzing every route of the route table', () => {
  for (const entry of ROUTE_TABLE) {
    const name = `${entry.contract.method} ${routeUrl(entry)}${isStreamRoute(entry.contract) ? ' (stream: status and headers only)' : ''}`;
    it(name, async () => {
      const seen = new Map<number, number>();
      await fc.assert(
        fc.asyncProperty(requestArbitrary(entry), async (generated) => {
          const request: RouteRequest = { ...generated, entry };
          const before = await tableChecksums(server.testDatabase.database);
          const reply = await sendRoute(server.url, request);
          seen.set(reply.status, (seen.get(reply.status) ?? 0) + 1);
          requestCount += 1;
          if (VERBOSE) console.info(name, reply.status, JSON.stringify(reply.body ?? null).slice(0, 200));
          let problem = replyProblem(entry, reply);
          if (!problem && reply.status >= 400 && reply.status < 500) {
            const after = await tableChecksums(server.testDatabase.database);
            const changed = changedTables(before, after, WRITES_WHEN_REFUSED[entry.mount] ?? []);
            if (changed.length > 0) problem = `a ${reply.status} changed ${changed.join(', ')}`;
          }
          if (problem && TALLY) problems.push(`${name}: ${problem}`);
          else if (problem) throw new Error(problem);
        }),
        { seed: SEED, numRuns: RUNS, endOnFailure: true },
      );
      statuses.set(name, seen);
      expect(seen.size).toBeGreaterThan(0);
      // A route that answers with a rendered document takes its time: the job PDF's 11 of 24 runs that render one took
      // 20-25 s together on a machine two and a half times slower than usual, and once ran out the suite's 30 s.
    }, 90_000);
  }
});

const statuses = new Map<string, Map<number, number>>();
afterAll(() => {
  const lines = [...statuses].map(([route, seen]) => `${route}: ${[...seen].sort(([a], [b]) => a - b).map(([status, count]) => `${status}×${count}`).join(' ')}`);
  console.info(`fuzz replies by status:\n${lines.join('\n')}`);
  if (TALLY) console.info(`fuzz tally: ${problems.length} problems in ${requestCount} requests\n${problems.join('\n')}`);
});
