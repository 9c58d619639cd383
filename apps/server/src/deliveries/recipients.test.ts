/**
 * GET /api/deliveries/recipients over real HTTP on a fresh database: the users a sender of any role may address
 * a delivery to (so the recipient gets the PIN by push), of the caller's organization only, enabled only, by
 * name, with the name filter and paging; and a delivery addressed to one of them by a teleoperator.
 */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, CreatedDelivery, DeliveryRecipientList, type DeliveryRecipient } from '@uvd/contracts';
import { users } from '../db/schema.ts';
import { expectStatus } from '../testing/assertions.ts';
import { startRouteTestServer, type TestServer, type TestUser } from '../testing/harness.ts';
import { createSite } from '../testing/site-fixtures.ts';

let server: TestServer;
let orgId: string;
let nurse: TestUser;
let roomIds: string[];
/** The organization's users by name: id, and the name the list shows. */
const named: Record<string, { id: string; username: string }> = {};
let disabledId: string;
let foreignId: string;

async function user(first: string, last: string, username: string, groupIds: string[] = []): Promise<TestUser> {
  const created = await server.createUser(orgId, ['done-teleoperator'], { username, groupIds });
  await server.context.db.update(users).set({ firstName: first, lastName: last }).where(eq(users.id, created.id));
  return created;
}

beforeAll(async () => {
  server = await startRouteTestServer();
  orgId = await server.createOrg('recipients');
  const groupId = await server.createGroup(orgId);
  const site = await createSite(server.context.db, orgId, { roomsPerFloor: 2, robots: 0, groupIds: [groupId] });
  roomIds = site.floors[0]?.roomIds ?? [];
  nurse = await user('Nora', 'Nurse', 'nora.nurse@ward.test', [groupId]);
  for (const [first, last, username] of [
    ['Aino', 'Virtanen', 'aino@lab.test'],
    ['Björn', 'Öberg', 'bjorn@pharmacy.test'],
    ['', '', 'porter@hospital.test'],
    ['Ville', 'Koski', 'vk@pharmacy.test'],
  ] as const) {
    const created = await user(first, last, username);
    named[`${first} ${last}`.trim() || username] = { id: created.id, username };
  }
  const disabled = await user('Aapo', 'Disabled', 'aapo@lab.test');
  await server.context.db.update(users).set({ enabled: false }).where(eq(users.id, disabled.id));
  disabledId = disabled.id;
  const otherOrg = await server.createOrg('recipients-other');
  foreignId = (await server.createUser(otherOrg, ['done-teleoperator'], { username: 'aino@other.test' })).id;
});

afterAll(async () => {
  await server.close();
});

async function list(caller: TestUser, query: Record<string, string | number> = {}): Promise<DeliveryRecipientList> {
  const response = await server.request('GET', '/api/deliveries/recipients', { token: caller.token, query });
  expectStatus(response, 200);
  return DeliveryRecipientList.parse(response.body);
}

const names = (recipients: readonly DeliveryRecipient[]) => recipients.map((recipient) => recipient.name);

describe('GET /api/deliveries/recipients', () => {
  it("gives a teleoperator the organization's enabled users by name, not another organization's nor a disabled one", async () => {
    const reply = await list(nurse);
    expect(names(reply.payload)).toEqual(['Aino Virtanen', 'Björn Öberg', 'Nora Nurse', 'porter@hospital.test', 'Ville Koski']);
    expect(reply.count).toBe(5);
    expect(reply.payload[0]).toEqual({ user_id: named['Aino Virtanen']?.id, name: 'Aino Virtanen', username: 'aino@lab.test' });
    const ids = reply.payload.map((recipient) => recipient.user_id);
    expect(ids).not.toContain(disabledId);
    expect(ids).not.toContain(foreignId);
  });

  it('filters on the name or the username, case-insensitive, taking pattern characters literally', async () => {
    expect(names((await list(nurse, { q: 'aino' })).payload)).toEqual(['Aino Virtanen']);
    expect(names((await list(nurse, { q: 'ÖBERG' })).payload)).toEqual(['Björn Öberg']);
    expect(names((await list(nurse, { q: 'PHARMACY' })).payload)).toEqual(['Björn Öberg', 'Ville Koski']);
    expect(names((await list(nurse, { q: 'o k' })).payload)).toEqual([]);
    expect(names((await list(nurse, { q: 'e k' })).payload)).toEqual(['Ville Koski']);
    expect(await list(nurse, { q: '%' })).toEqual({ count: 0, payload: [] });
    expect(await list(nurse, { q: 'Disabled' })).toEqual({ count: 0, payload: [] });
    // A blank filter is no filter.
    expect((await list(nurse, { q: '   ' })).count).toBe(5);
  });

  it('pages with offset and limit, counting every match', async () => {
    const first = await list(nurse, { limit: 2 });
    const second = await list(nurse, { limit: 2, offset: 2 });
    const last = await list(nurse, { limit: 2, offset: 4 });
    expect([first.count, second.count, last.count]).toEqual([5, 5, 5]);
    expect([...names(first.payload), ...names(second.payload), ...names(last.payload)]).toEqual(names((await list(nurse)).payload));
    expect(last.payload).toHaveLength(1);
  });

  it('names a bad filter (400) and refuses a caller without a token (401)', async () => {
    const bad: Record<string, string | number>[] = [{ q: 'x'.repeat(101) }, { limit: 0 }, { offset: -1 }, { q: 'a\u0000b' }];
    for (const query of bad) {
      const response = await server.request('GET', '/api/deliveries/recipients', { token: nurse.token, query });
      expectStatus(response, 400);
      expect(ApiError.parse(response.body).message).toMatch(/q|limit|offset/);
    }
    const anonymous = await server.request('GET', '/api/deliveries/recipients');
    expect(anonymous.status).toBe(401);
  });

  it('a teleoperator addresses a delivery to a listed user: it carries the recipient id and name', async () => {
    const ville = (await list(nurse, { q: 'ville' })).payload[0];
    if (!ville) throw new Error('Ville not listed');
    const response = await server.request('POST', '/api/deliveries', {
      token: nurse.token,
      body: {
        pickup_room_id: roomIds[0],
        dropoff_room_id: roomIds[1],
        items: [{ description: 'Insulin', category: 'medication', quantity: 1 }],
        recipient_user_id: ville.user_id,
      },
    });
    expectStatus(response, 201);
    const created = CreatedDelivery.parse(response.body);
    expect(created.recipient_user_id).toBe(ville.user_id);
    expect(created.recipient_name).toBe('Ville Koski');
  });
});
