/**
 * The tenancy and role matrix, generated from the contracts' route table: for every route, a second
 * organization's admin and a teleoperator of another group of the same organization send a request built from
 * the route's schemas with the first organization's (first group's) ids in every id slot. They get 403 or 404,
 * or, for a GET list filtered by those ids, a reply holding none of them; a refused change writes nothing; every
 * reply to them holds none of the hidden ids; a teleoperator gets 403 from every route whose contract lists roles.
 * The streams are checked with events: a change of hidden data never reaches them, a later visible one does.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CreatedDelivery, isStreamRoute, Job, listCaughtMail, MAIL_CATCHER_HEADER, OAuthError, ROUTE_TABLE, routeUrl, type Role, type RouteTableEntry } from '@uvd/contracts';
import { actions, logs } from '../db/schema.ts';
import { DEFAULT_LAMP } from '../dose/lamp.ts';
import { lockDelivery, publishDeliveryChange } from '../deliveries/lifecycle.ts';
import { startRouteTestServer, type TestServer, type TestUser } from '../testing/harness.ts';
import { openSse, type SseClient } from '../testing/live-fixtures.ts';
import { addFloorMap } from '../testing/rooms-fixtures.ts';
import { createSite, type Site } from '../testing/site-fixtures.ts';
import { fromJsonSchema, jsonSchemaOf, kindOf, type Kind } from './arbitraries.ts';
import { changedTables, replyProblem, sendRoute, tableChecksums, type RouteRequest } from './http.ts';

type Ids = Record<Kind, string>;

interface Caller {
  name: string;
  user: TestUser;
  /** Ids of the first organization this caller must not see. */
  hidden: string[];
}

let server: TestServer;
let orgA: string;
let adminA: TestUser;
let operatorA: TestUser;
let ids: Ids;
let callers: Caller[];
/** Jobs each caller may see, for the streams' markers. */
let visibleJob: Record<string, string>;
let visibleRobot: Record<string, string>;
let visibleDelivery: Record<string, string>;
let orgOf: Record<string, string>;

const roomOf = (site: Site) => site.floors[0]?.roomIds ?? [];

async function createJob(user: TestUser, site: Site): Promise<string> {
  const response = await server.request('POST', `/api/jobs/jobs/${site.robotIds[0] ?? ''}`, {
    token: user.token,
    body: { name: 'Tenancy', start_time: '2099-01-01T00:00:00Z', rooms: roomOf(site).map((room_id, order_no) => ({ room_id, order_no, dose: 10 })) },
  });
  if (response.status !== 200) throw new Error(`job not created: ${JSON.stringify(response.body)}`);
  return Job.parse(response.body).job_id;
}

async function createDelivery(user: TestUser, site: Site): Promise<string> {
  const [pickup, dropoff] = roomOf(site);
  const response = await server.request('POST', '/api/deliveries', {
    token: user.token,
    body: { pickup_room_id: pickup, dropoff_room_id: dropoff, items: [{ description: 'Tenancy', category: 'other', quantity: 1 }] },
  });
  if (response.status !== 201) throw new Error(`delivery not created: ${JSON.stringify(response.body)}`);
  return CreatedDelivery.parse(response.body).delivery_id;
}

beforeAll(async () => {
  server = await startRouteTestServer();
  orgA = await server.createOrg('tenant-a');
  const firstGroup = await server.createGroup(orgA);
  const secondGroup = await server.createGroup(orgA);
  const siteA = await createSite(server.context.db, orgA, { roomsPerFloor: 2, robots: 1, groupIds: [firstGroup] });
  await addFloorMap(server.context.db, siteA.floors[0]?.id ?? '');
  const siteA2 = await createSite(server.context.db, orgA, { roomsPerFloor: 2, robots: 1, groupIds: [secondGroup] });
  adminA = await server.createUser(orgA, ['done-admin']);
  operatorA = await server.createUser(orgA, ['done-teleoperator'], { groupIds: [firstGroup] });
  const otherOperator = await server.createUser(orgA, ['done-teleoperator'], { groupIds: [secondGroup] });
  const orgB = await server.createOrg('tenant-b');
  const siteB = await createSite(server.context.db, orgB, { roomsPerFloor: 2, robots: 1 });
  const adminB = await server.createUser(orgB, ['done-admin']);
  const contact = await server.request<{ id: string }>('POST', '/api/contact/admin/profile/contacts', {
    token: adminA.token,
    body: { title: 'Nurse', name: 'Maija', phone: '+358 1', email: 'maija@hospital.test' },
  });
  ids = {
    robot: siteA.robotIds[0] ?? '',
    room: roomOf(siteA)[0] ?? '',
    floor: siteA.floors[0]?.id ?? '',
    building: siteA.buildingId,
    group: firstGroup,
    job: await createJob(adminA, siteA),
    user: operatorA.id,
    contact: contact.body.id,
    action: '',
    delivery: await createDelivery(adminA, siteA),
  };
  // The job's log (logs are keyed by the job id), so the log routes have a row to guard.
  await server.context.db.insert(logs).values({
    jobId: ids.job,
    orgId: orgA,
    jobName: 'Tenancy',
    completionStatus: 'done',
    robotId: ids.robot,
    robotName: 'Robot',
    createdBy: adminA.username,
    startTime: new Date('2030-01-01T00:00:00Z'),
    // A dose map, so that its route has one to guard.
    dose: { lamp: DEFAULT_LAMP, lamp_intervals: [], grids: {} },
  });
  const [action] = await server.context.db
    .insert(actions)
    .values({ orgId: orgA, jobId: ids.job, robotId: ids.robot, promptId: 'tenancy', buttonText: 'continue' })
    .returning({ id: actions.id });
  ids.action = action?.id ?? '';
  const groupHidden = [ids.robot, ...roomOf(siteA), ids.floor, ids.building, ids.group, ids.job, ids.action, ids.delivery];
  callers = [
    { name: "another organization's admin", user: adminB, hidden: [...Object.values(ids), ...roomOf(siteA), adminA.id, otherOperator.id, secondGroup] },
    { name: 'a teleoperator of another group', user: otherOperator, hidden: groupHidden },
  ];
  visibleJob = { [adminB.id]: await createJob(adminB, siteB), [otherOperator.id]: await createJob(adminA, siteA2), [adminA.id]: ids.job };
  visibleRobot = { [adminB.id]: siteB.robotIds[0] ?? '', [otherOperator.id]: siteA2.robotIds[0] ?? '', [adminA.id]: ids.robot };
  visibleDelivery = {
    [adminB.id]: await createDelivery(adminB, siteB),
    [otherOperator.id]: await createDelivery(adminA, siteA2),
    [adminA.id]: ids.delivery,
  };
  orgOf = { [adminB.id]: orgB, [otherOperator.id]: orgA, [adminA.id]: orgA };
});

afterAll(async () => {
  await server.close();
});

const asText = (value: unknown): string => (value === undefined ? 'nothing' : JSON.stringify(value));

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Fields whose generated value would fail for reasons other than tenancy: fixed to valid ones. */
const FIXED: Record<string, unknown> = {
  order_no: 0,
  dose: 10,
  start_time: '2099-01-01T00:00:00Z',
  offset: 0,
  limit: 50,
  token: `fcm-${'a'.repeat(40)}`,
  deviceToken: `fcm-${'a'.repeat(40)}`,
  email: 'someone@hospital.test',
  password: 'long enough password',
  language: 'en',
  timezone: 'Europe/Helsinki',
  // A report's period and scope: a month of the first organization's group (scope_id is a group id).
  from_date: '2030-01-01',
  to_date: '2030-01-31',
  scope: 'group',
};

/** A valid value of `schema` with every id slot holding the first organization's id of its kind. */
function build(schema: Record<string, unknown>, path: string, field: string, seed: number): unknown {
  const kind = kindOf(path, field);
  const id = kind ? ids[kind] : undefined;
  if (schema.format === 'uuid') return id ?? '00000000-0000-4000-8000-000000000000';
  if (schema.type === 'array' && isRecord(schema.items) && schema.items.format === 'uuid') return id ? [id] : [];
  if (field in FIXED) return FIXED[field];
  // Query flags travel as words, the body's start_now as a boolean.
  if (field === 'start_now') return schema.type === 'boolean' ? false : 'false';
  if (field === 'extra_room_data' || field === 'extra_navigation_data') return 'true';
  if (schema.type === 'object' && isRecord(schema.properties)) {
    const value: Record<string, unknown> = {};
    for (const [key, property] of Object.entries(schema.properties)) {
      if (key === 'last_event_id') continue;
      value[key] = build(isRecord(property) ? property : {}, path, key, seed);
    }
    return value;
  }
  if (schema.type === 'array' && isRecord(schema.items)) return [build(schema.items, path, field, seed)];
  const [sample] = fc.sample(fromJsonSchema(schema, { ids: {}, realm: orgA }), { seed, numRuns: 1 });
  return sample;
}

function requestFor(entry: RouteTableEntry, user: TestUser): RouteRequest {
  const { contract } = entry;
  const part = (schema: typeof contract.params, io: 'input' | 'output') =>
    schema ? build(jsonSchemaOf(schema, io), contract.path, '', 1) : undefined;
  const params = part(contract.params, 'output');
  return {
    entry,
    params: isRecord(params) ? { ...params, organization: orgA } : { organization: orgA },
    query: part(contract.querystring, 'output'),
    body: part(contract.body, 'input'),
    encoding: entry.mount === 'identity' ? 'form' : 'json',
    token: user.token,
    // The local mail catcher answers its own token, not a user's (mail/routes.ts).
    ...(contract === listCaughtMail ? { headers: { [MAIL_CATCHER_HEADER]: server.context.mail.catcherToken } } : {}),
  };
}

const mentions = (body: unknown, hidden: readonly string[]): string[] => {
  const text = typeof body === 'string' ? body : JSON.stringify(body ?? null);
  return hidden.filter((id) => text.includes(id));
};

const carriesHidden = (request: RouteRequest, hidden: readonly string[], part: 'params' | 'any') =>
  mentions(part === 'params' ? request.params : [request.params, request.query, request.body], hidden).length > 0;

const api = ROUTE_TABLE.filter((entry) => entry.mount === 'api');

describe('tenancy and role matrix', () => {
  for (const entry of api) {
    const route = `${entry.contract.method} ${routeUrl(entry)}`;
    it(`${route}: other tenants see nothing of the first organization or group`, async () => {
      for (const caller of callers) {
        const request = requestFor(entry, caller.user);
        const roles = entry.contract.roles;
        const before = await tableChecksums(server.testDatabase.database);
        const reply = await sendRoute(server.url, request);
        const context = `${caller.name}: ${reply.status} ${asText(reply.body).slice(0, 300)}`;
        expect(replyProblem(entry, reply), context).toBeUndefined();
        expect(mentions(reply.body, caller.hidden), context).toEqual([]);
        if (roles && !caller.user.roles.some((role) => roles.includes(role))) {
          expect(reply.status, context).toBe(403);
        } else if (carriesHidden(request, caller.hidden, 'params') || (entry.contract.method !== 'GET' && carriesHidden(request, caller.hidden, 'any'))) {
          expect([403, 404], context).toContain(reply.status);
        } else if (carriesHidden(request, caller.hidden, 'any')) {
          expect([200, 403, 404], context).toContain(reply.status);
        }
        if (reply.status >= 400) {
          expect(changedTables(before, await tableChecksums(server.testDatabase.database)), context).toEqual([]);
        }
      }
    });

    const roles = entry.contract.roles;
    if (roles) {
      it(`${route}: only ${roles.join(', ')} (a teleoperator of the group gets 403)`, async () => {
        const request = requestFor(entry, operatorA);
        const reply = await sendRoute(server.url, request);
        expect(reply.status, JSON.stringify(reply.body)).toBe(403);
        const roleOf: readonly Role[] = operatorA.roles;
        expect(roleOf.some((role) => roles.includes(role))).toBe(false);
      });
    }
  }

  it('the routes of the first organization answer its own admin (the ids above are real)', async () => {
    for (const entry of api.filter((candidate) => candidate.contract.method === 'GET' && !isStreamRoute(candidate.contract))) {
      const reply = await sendRoute(server.url, requestFor(entry, adminA));
      expect(reply.status, `${routeUrl(entry)}: ${asText(reply.body).slice(0, 200)}`).toBeLessThan(300);
    }
  });
});

describe('tenancy of the identity provider', () => {
  it("another organization's user cannot sign in to, read userinfo of, or log out of the first realm", async () => {
    const [other] = callers;
    if (!other) throw new Error('no caller');
    const realm = `/idp/realms/${orgA}/protocol/openid-connect`;
    const clientId = server.context.config.clientId;
    const grant = await server.request('POST', `${realm}/token`, {
      form: { grant_type: 'password', client_id: clientId, username: other.user.username, password: other.user.password },
    });
    expect([400, 401]).toContain(grant.status);
    expect(OAuthError.parse(grant.body).error).toBe('invalid_grant');
    expect((await server.request('GET', `${realm}/userinfo`, { token: other.user.token })).status).toBe(401);
    expect((await server.request('POST', `${realm}/logout`, { token: other.user.token, form: { client_id: clientId } })).status).toBe(401);
  });
});

describe('tenancy of the live streams', () => {
  const streams = ROUTE_TABLE.filter((entry) => isStreamRoute(entry.contract));

  /** Makes a change of `jobId`'s or `robotId`'s data appear on `stream` (the organization's own path for each). */
  async function trigger(stream: string, orgId: string, jobId: string, robotId: string, deliveryId: string): Promise<void> {
    if (stream === '/deliveries/stream') {
      await server.context.db.transaction(async (tx) => {
        const delivery = await lockDelivery(tx, orgId, deliveryId);
        if (!delivery) throw new Error('delivery missing');
        await publishDeliveryChange(server.context, tx, delivery);
      });
    } else if (stream === '/jobs/v2/jobs/stream') {
      const owner = orgId === orgA ? adminA : callers[0]?.user;
      const response = await server.request('PATCH', `/api/jobs/job/${jobId}/notes`, { token: owner?.token, body: { notes: `n${Date.now()}` } });
      expect(response.status).toBe(200);
    } else if (stream === '/action/action/stream') {
      const payload = { action_id: crypto.randomUUID(), job_id: jobId, robot_id: robotId, button: { text: 'continue', disabled: false }, resolved: false };
      await server.context.bus.publish({ orgId, stream: 'actions', key: jobId, type: 'action_change', payload });
    } else {
      server.context.bus.publishTransient({ orgId, stream: 'robots', key: robotId, type: 'robot_update', payload: { robot_id: robotId, field: 'battery', value: 50, charging_status: 0 } });
    }
  }

  for (const entry of streams) {
    const path = entry.contract.path;
    const listField = path.startsWith('/robot/') ? 'robot_list' : path.startsWith('/deliveries/') ? 'delivery_list' : 'job_list';
    const keyOf = (robot: string, job: string, delivery: string) => (listField === 'robot_list' ? robot : listField === 'delivery_list' ? delivery : job);
    it(`${path}: a change of hidden data never arrives, a later visible one does`, async () => {
      const opened: SseClient[] = [];
      try {
        const control = await openSse(server.url, `/api${path}`, { token: adminA.token });
        opened.push(control);
        const watchers: { caller: Caller; client: SseClient; marker: string }[] = [];
        for (const caller of callers) {
          const marker = keyOf(visibleRobot[caller.user.id] ?? '', visibleJob[caller.user.id] ?? '', visibleDelivery[caller.user.id] ?? '');
          const hiddenKey = keyOf(ids.robot, ids.job, ids.delivery);
          for (const query of [{}, { [listField]: [hiddenKey, marker] }]) {
            const client = await openSse(server.url, `/api${path}`, { token: caller.user.token, query });
            opened.push(client);
            if (client.status !== 200) {
              expect([403, 404], JSON.stringify(client.error)).toContain(client.status);
              continue;
            }
            watchers.push({ caller, client, marker });
          }
        }
        await trigger(path, orgA, ids.job, ids.robot, ids.delivery);
        await control.waitFor((frame) => frame.data.includes(keyOf(ids.robot, ids.job, ids.delivery)), 15_000);
        for (const { caller, client, marker } of watchers) {
          const id = caller.user.id;
          await trigger(path, orgOf[id] ?? orgA, visibleJob[id] ?? '', visibleRobot[id] ?? '', visibleDelivery[id] ?? '');
          // Frames arrive in order: once the visible change is there, the hidden one would have been before it.
          await client.waitFor((frame) => frame.data.includes(marker), 15_000);
          const leaked = client.frames.filter((frame) => mentions(frame.data, caller.hidden).length > 0);
          expect(leaked, caller.name).toEqual([]);
        }
      } finally {
        for (const client of opened) client.close();
      }
    });
  }
});
