/**
 * The deliveries API over real HTTP on a fresh database: request, list, detail, cancel, pause and resume, the
 * sender's loading confirmation and the recipient's PIN, with every refusal; the live stream with its replay; and
 * the custody record the database keeps append-only. The states a robot drives (In transit, Waiting for loading
 * or for the recipient) are put in place with the lifecycle functions the robot link uses, and the tests say so;
 * the robot-driven path is the robot link's test.
 */
import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ApiError,
  CreatedDelivery,
  DeliveryDetail,
  DeliveryList,
  DeliveryStatus,
  type DeliveryInput,
  type DeliveryWaitingFor,
} from '@uvd/contracts';
import { deliveries, deliveryCustody, robotCommands, robots } from '../db/schema.ts';
import { expectStatus, until } from '../testing/assertions.ts';
import { connectRobotRow, createRobotRow, orderUnderWay, type TestRobot, type TestRobotRow } from '../testing/fleet-fixtures.ts';
import { startTestServer, type TestServer, type TestUser } from '../testing/harness.ts';
import { openSse } from '../testing/live-fixtures.ts';
import { createSite, type Site } from '../testing/site-fixtures.ts';
import { lockDelivery, recordCustody, updateDelivery } from './lifecycle.ts';

let server: TestServer;
const opened: { close(): unknown }[] = [];

interface World {
  orgId: string;
  site: Site;
  rooms: string[];
  admin: TestUser;
  /** A teleoperator of the group holding the site. */
  sender: TestUser;
  /** A teleoperator of no group: sees only what they receive. */
  recipient: TestUser;
  /** A teleoperator of another group. */
  outsider: TestUser;
}

async function world(): Promise<World> {
  const orgId = await server.createOrg('deliveries');
  const groupId = await server.createGroup(orgId);
  const otherGroup = await server.createGroup(orgId);
  const site = await createSite(server.context.db, orgId, { roomsPerFloor: 4, robots: 0, groupIds: [groupId] });
  return {
    orgId,
    site,
    rooms: site.floors[0]?.roomIds ?? [],
    admin: await server.createUser(orgId, ['done-admin']),
    sender: await server.createUser(orgId, ['done-teleoperator'], { groupIds: [groupId] }),
    recipient: await server.createUser(orgId, ['done-teleoperator']),
    outsider: await server.createUser(orgId, ['done-teleoperator'], { groupIds: [otherGroup] }),
  };
}

const input = (w: World, changes: Partial<DeliveryInput> = {}): DeliveryInput => ({
  pickup_room_id: w.rooms[0] ?? '',
  dropoff_room_id: w.rooms[1] ?? '',
  items: [{ description: 'Blood samples', category: 'specimen', quantity: 3 }],
  priority: 'routine',
  ...changes,
});

async function create(w: World, user: TestUser, changes: Partial<DeliveryInput> = {}): Promise<CreatedDelivery> {
  const response = await server.request('POST', '/api/deliveries', { token: user.token, body: input(w, changes) });
  expectStatus(response, 201);
  return CreatedDelivery.parse(response.body);
}

const get = async (user: TestUser, id: string) => server.request('GET', `/api/deliveries/${id}`, { token: user.token });
const detail = async (user: TestUser, id: string): Promise<DeliveryDetail> => {
  const response = await get(user, id);
  expectStatus(response, 200);
  return DeliveryDetail.parse(response.body);
};
const post = (user: TestUser, path: string, options: { body?: unknown; query?: Record<string, string>; headers?: Record<string, string> } = {}) =>
  server.request('POST', `/api/deliveries/${path}`, { token: user.token, ...options });
const errorOf = (body: unknown) => ApiError.parse(body);

const deliveryCount = async (orgId: string) =>
  (await server.context.db.select({ id: deliveries.id }).from(deliveries).where(eq(deliveries.orgId, orgId))).length;

/** A delivery robot of the world's organization, online on the embedded broker with an order under way. */
async function onlineRobot(w: World): Promise<{ row: TestRobotRow; robot: TestRobot }> {
  const row = await createRobotRow(server.context.db, w.orgId);
  await server.context.db.update(robots).set({ kind: 'delivery', mode: 2, floorId: w.site.floors[0]?.id ?? null }).where(eq(robots.id, row.id));
  const robot = await connectRobotRow(server.context.fleet.brokerUrl, row);
  opened.push({ close: () => robot.close() });
  await robot.publishState({ ...orderUnderWay, operatingMode: 'AUTOMATIC' });
  await until(
    async () => server.context.fleet.isOnline(row.id),
    (online) => online,
  );
  return { row, robot };
}

/**
 * Puts the delivery where the robot link would: carried by `robotId`, In transit or Waiting (for loading or the
 * recipient), through the lifecycle functions the link uses.
 */
async function asRobotWould(orgId: string, deliveryId: string, robotId: string | null, status: DeliveryStatus, waitingFor: DeliveryWaitingFor | null = null) {
  await server.context.db.transaction(async (tx) => {
    const row = await lockDelivery(tx, orgId, deliveryId);
    if (!row) throw new Error('delivery missing');
    if (status === DeliveryStatus.inTransit && row.robotId === null) await recordCustody(tx, row, 'dispatched', { robot: robotId ? { id: robotId, name: 'courier' } : null });
    if (waitingFor) await recordCustody(tx, row, 'arrived', { detail: waitingFor === 'loading' ? 'pickup' : 'dropoff' });
    await updateDelivery(server.context, tx, row, {
      robotId,
      // As the dispatcher does: an offline robot is handed back DELIVERY_HANDBACK_MS after it was last heard of or
      // given the delivery, so the hand-back sweep (every few seconds) leaves this one alone.
      dispatchedAt: row.dispatchedAt ?? new Date(),
      status,
      waitingFor,
      waitingSince: waitingFor ? new Date() : null,
      dispatchAttempts: Math.max(1, row.dispatchAttempts),
    });
  });
}

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  for (const item of opened) await item.close();
  await server.close();
});

describe('POST /api/deliveries', () => {
  it('queues the delivery with its items, the requested custody step and a PIN that is stored only hashed', async () => {
    const w = await world();
    const created = await create(w, w.sender, { recipient_user_id: w.recipient.id, priority: 'urgent', notes: 'Keep cold' });
    expect(created).toMatchObject({
      status: DeliveryStatus.queued,
      priority: 'urgent',
      pickup: { room_id: w.rooms[0] },
      dropoff: { room_id: w.rooms[1] },
      items: [{ description: 'Blood samples', category: 'specimen', quantity: 3 }],
      requested_by: { user_id: w.sender.id },
      recipient_user_id: w.recipient.id,
      robot_id: null,
      notes: 'Keep cold',
      handoff_attempts_left: 3,
      handoff_locked: false,
      late: false,
    });
    expect(created.pin).toMatch(/^\d{4}$/);
    expect(created.custody.map((step) => [step.step, step.user_id])).toEqual([['requested', w.sender.id]]);
    expect(created.route.map((place) => place.room_id)).toEqual([w.rooms[0], w.rooms[1]]);
    const [row] = await server.context.db.select().from(deliveries).where(eq(deliveries.id, created.delivery_id));
    expect(row?.pinHash).not.toContain(created.pin);
    expect(row?.pinHash.startsWith('$argon2')).toBe(true);
    // The PIN is shown once: the detail never carries it.
    expect(JSON.stringify(await detail(w.sender, created.delivery_id))).not.toContain('"pin"');
  });

  it('refuses bad requests with a 4xx naming the field, and stores nothing', async () => {
    const w = await world();
    const other = await world();
    const cases: { changes: Partial<DeliveryInput>; user?: TestUser; status: number; names: string }[] = [
      { changes: { dropoff_room_id: w.rooms[0] ?? '' }, status: 400, names: 'dropoff_room_id' },
      { changes: { pickup_room_id: other.rooms[0] ?? '' }, status: 404, names: 'pickup_room_id' },
      { changes: { dropoff_room_id: other.rooms[1] ?? '' }, status: 404, names: 'dropoff_room_id' },
      { changes: { dropoff_room_id: crypto.randomUUID() }, status: 404, names: 'dropoff_room_id' },
      // A teleoperator of another group does not see the site's rooms.
      { changes: {}, user: w.outsider, status: 404, names: 'pickup_room_id' },
      { changes: { items: [{ description: 'Nothing', category: 'other', quantity: 0 }] }, status: 400, names: 'items' },
      { changes: { items: [] }, status: 400, names: 'items' },
      { changes: { deliver_by: new Date(Date.now() - 3_600_000).toISOString() }, status: 400, names: 'deliver_by' },
      { changes: { recipient_user_id: other.admin.id }, status: 400, names: 'recipient_user_id' },
      { changes: { recipient_user_id: crypto.randomUUID() }, status: 400, names: 'recipient_user_id' },
    ];
    for (const { changes, user, status, names } of cases) {
      const response = await server.request('POST', '/api/deliveries', { token: (user ?? w.sender).token, body: input(w, changes) });
      expectStatus(response, status);
      expect(errorOf(response.body).message, JSON.stringify(changes)).toContain(names);
    }
    expect(await deliveryCount(w.orgId)).toBe(0);
  });

  it('answers a retry with the same Idempotency-Key with the first reply and one delivery', async () => {
    const w = await world();
    const headers = { 'idempotency-key': `create-${crypto.randomUUID()}` };
    const first = await server.request('POST', '/api/deliveries', { token: w.sender.token, body: input(w), headers });
    const second = await server.request('POST', '/api/deliveries', { token: w.sender.token, body: input(w), headers });
    expectStatus(first, 201);
    expectStatus(second, 201);
    expect(CreatedDelivery.parse(second.body)).toMatchObject({ delivery_id: CreatedDelivery.parse(first.body).delivery_id, pin: CreatedDelivery.parse(first.body).pin });
    expect(await deliveryCount(w.orgId)).toBe(1);
  });
});

describe('GET /api/deliveries and /api/deliveries/{id}', () => {
  it('lists open deliveries first (stat, urgent, routine, then oldest), then finished ones newest first, with paging and a count', async () => {
    const w = await world();
    const routineOld = await create(w, w.admin, { priority: 'routine' });
    const finishedOld = await create(w, w.admin);
    const stat = await create(w, w.admin, { priority: 'stat' });
    const routineNew = await create(w, w.admin, { priority: 'routine' });
    const urgent = await create(w, w.admin, { priority: 'urgent' });
    const finishedNew = await create(w, w.admin);
    for (const finished of [finishedOld, finishedNew]) expectStatus(await post(w.admin, `${finished.delivery_id}/cancel`), 200);

    const all = await server.request('GET', '/api/deliveries', { token: w.admin.token, query: { limit: 50 } });
    expectStatus(all, 200);
    const list = DeliveryList.parse(all.body);
    expect(list.count).toBe(6);
    expect(list.payload.map((delivery) => delivery.delivery_id)).toEqual(
      [stat, urgent, routineOld, routineNew, finishedNew, finishedOld].map((delivery) => delivery.delivery_id),
    );

    const page = DeliveryList.parse((await server.request('GET', '/api/deliveries', { token: w.admin.token, query: { offset: 2, limit: 2 } })).body);
    expect(page).toMatchObject({ count: 6 });
    expect(page.payload.map((delivery) => delivery.delivery_id)).toEqual([routineOld.delivery_id, routineNew.delivery_id]);

    const cancelled = DeliveryList.parse(
      (await server.request('GET', '/api/deliveries', { token: w.admin.token, query: { status: [String(DeliveryStatus.cancelled)] } })).body,
    );
    expect(cancelled.payload.map((delivery) => delivery.delivery_id)).toEqual([finishedNew.delivery_id, finishedOld.delivery_id]);
  });

  it('filters by robot and by day (a bare date in the caller timezone), and names a bad filter', async () => {
    const w = await world();
    const row = await createRobotRow(server.context.db, w.orgId);
    const carried = await create(w, w.admin);
    const waiting = await create(w, w.admin);
    await asRobotWould(w.orgId, carried.delivery_id, row.id, DeliveryStatus.inTransit);
    const byRobot = DeliveryList.parse((await server.request('GET', '/api/deliveries', { token: w.admin.token, query: { robot_id: [row.id] } })).body);
    expect(byRobot.payload.map((delivery) => delivery.delivery_id)).toEqual([carried.delivery_id]);
    expect(byRobot.payload[0]).toMatchObject({ robot_id: row.id, robot_name: row.name, status: DeliveryStatus.inTransit });

    await server.context.db.update(deliveries).set({ createdAt: new Date('2030-06-01T22:30:00Z') }).where(eq(deliveries.id, waiting.delivery_id));
    // 22:30 UTC is 1:30 on 2 June in Helsinki, the users' default timezone.
    const day = (date: string) =>
      server.request('GET', '/api/deliveries', { token: w.admin.token, query: { from_date: date, to_date: date } }).then((response) => DeliveryList.parse(response.body));
    expect((await day('2030-06-02')).payload.map((delivery) => delivery.delivery_id)).toEqual([waiting.delivery_id]);
    expect((await day('2030-06-01')).count).toBe(0);

    const bad = await server.request('GET', '/api/deliveries', { token: w.admin.token, query: { from_date: '2030-06-03', to_date: '2030-06-02' } });
    expectStatus(bad, 400);
    expect(errorOf(bad.body).message).toContain('from_date');
    const badStatus = await server.request('GET', '/api/deliveries', { token: w.admin.token, query: { status: ['9'] } });
    expectStatus(badStatus, 400);
    expect(errorOf(badStatus.body).message).toContain('status');
  });

  it("shows a teleoperator the deliveries of their group's rooms and robots and those they send or receive; others get 404", async () => {
    const w = await world();
    const other = await world();
    const created = await create(w, w.sender, { recipient_user_id: w.recipient.id });
    const unrelated = await create(w, w.admin);
    for (const user of [w.admin, w.sender, w.recipient]) expect((await detail(user, created.delivery_id)).delivery_id).toBe(created.delivery_id);
    // The recipient is in no group: of the two, they see only the one they receive.
    const theirs = DeliveryList.parse((await server.request('GET', '/api/deliveries', { token: w.recipient.token })).body);
    expect(theirs.payload.map((delivery) => delivery.delivery_id)).toEqual([created.delivery_id]);
    expect(theirs.count).toBe(1);
    // The sender's group holds the rooms: they see both.
    expect(DeliveryList.parse((await server.request('GET', '/api/deliveries', { token: w.sender.token })).body).count).toBe(2);
    for (const user of [w.outsider, other.admin]) {
      for (const id of [created.delivery_id, unrelated.delivery_id]) expectStatus(await get(user, id), 404);
      expect(DeliveryList.parse((await server.request('GET', '/api/deliveries', { token: user.token })).body).count).toBe(0);
      expectStatus(await post(user, `${created.delivery_id}/cancel`), 404);
      expectStatus(await post(user, `${created.delivery_id}/handoff`, { body: { pin: created.pin } }), 404);
    }
    expect((await detail(w.admin, created.delivery_id)).status).toBe(DeliveryStatus.queued);
  });

  it('answers 404 for a delivery that does not exist and 400 naming a malformed id', async () => {
    const w = await world();
    expectStatus(await get(w.admin, crypto.randomUUID()), 404);
    const bad = await get(w.admin, 'not-an-id');
    expectStatus(bad, 400);
    expect(errorOf(bad.body).message).toContain('delivery_id');
  });
});

describe('POST /api/deliveries/{id}/cancel', () => {
  it('cancels a Queued delivery with its custody step; a second cancel is 409 delivery_finished', async () => {
    const w = await world();
    const created = await create(w, w.sender);
    const response = await post(w.sender, `${created.delivery_id}/cancel`);
    expectStatus(response, 200);
    const cancelled = DeliveryDetail.parse(response.body);
    expect(cancelled.status).toBe(DeliveryStatus.cancelled);
    expect(cancelled.custody.map((step) => [step.step, step.user_id, step.detail])).toEqual([
      ['requested', w.sender.id, 'console'],
      ['cancelled', w.sender.id, 'console'],
    ]);
    const again = await post(w.sender, `${created.delivery_id}/cancel`);
    expectStatus(again, 409);
    expect(errorOf(again.body)).toMatchObject({ error: 'delivery_finished', details: { status: DeliveryStatus.cancelled } });
    expect((await detail(w.sender, created.delivery_id)).custody).toHaveLength(2);
  });

  it('answers a retried cancel with the same Idempotency-Key with the first reply, once; the key on another call is refused', async () => {
    const w = await world();
    const created = await create(w, w.sender);
    const headers = { 'idempotency-key': `cancel-${crypto.randomUUID()}` };
    const first = await post(w.sender, `${created.delivery_id}/cancel`, { headers });
    const retry = await post(w.sender, `${created.delivery_id}/cancel`, { headers });
    expectStatus(first, 200);
    expectStatus(retry, 200);
    expect(DeliveryDetail.parse(retry.body)).toEqual(DeliveryDetail.parse(first.body));
    expect((await detail(w.sender, created.delivery_id)).custody.filter((step) => step.step === 'cancelled')).toHaveLength(1);
    const reused = await post(w.sender, `${created.delivery_id}/command`, { query: { command: 'pause' }, headers });
    expectStatus(reused, 409);
    expect(errorOf(reused.body).error).toBe('idempotency_key_reused');
  });

  it('tells the robot carrying it to cancel its order (cancelOrder), recorded with the cancel', async () => {
    const w = await world();
    const { row, robot } = await onlineRobot(w);
    const created = await create(w, w.sender);
    await asRobotWould(w.orgId, created.delivery_id, row.id, DeliveryStatus.inTransit);
    const response = await post(w.sender, `${created.delivery_id}/cancel`);
    expectStatus(response, 200);
    expect(DeliveryDetail.parse(response.body)).toMatchObject({ status: DeliveryStatus.cancelled, robot_id: row.id });
    const cancel = await robot.waitForInstantAction('cancelOrder');
    expect(cancel.actionType).toBe('cancelOrder');
    const commands = await server.context.db
      .select({ kind: robotCommands.kind, robotId: robotCommands.robotId })
      .from(robotCommands)
      .where(eq(robotCommands.deliveryId, created.delivery_id));
    expect(commands).toEqual([{ kind: 'stop', robotId: row.id }]);
  });

  it('refuses to cancel a Delivered delivery (409 delivery_finished)', async () => {
    const w = await world();
    const created = await create(w, w.admin);
    await server.context.db.update(deliveries).set({ status: DeliveryStatus.delivered }).where(eq(deliveries.id, created.delivery_id));
    const response = await post(w.admin, `${created.delivery_id}/cancel`);
    expectStatus(response, 409);
    expect(errorOf(response.body).error).toBe('delivery_finished');
    expect((await detail(w.admin, created.delivery_id)).status).toBe(DeliveryStatus.delivered);
  });
});

describe('POST /api/deliveries/{id}/command', () => {
  it('refuses a pause of a Queued delivery and a resume of one not Paused (409 delivery_state naming the status)', async () => {
    const w = await world();
    const created = await create(w, w.admin);
    for (const command of ['pause', 'resume']) {
      const response = await post(w.admin, `${created.delivery_id}/command`, { query: { command } });
      expectStatus(response, 409);
      expect(errorOf(response.body)).toMatchObject({ error: 'delivery_state', details: { status: DeliveryStatus.queued } });
    }
    const bad = await post(w.admin, `${created.delivery_id}/command`, { query: { command: 'stop' } });
    expectStatus(bad, 400);
    expect(errorOf(bad.body).message).toContain('command');
  });

  it('In transit (put there as the robot link would): the pause reaches the robot and shows as pending_command; a resume may take it back', async () => {
    const w = await world();
    const { row, robot } = await onlineRobot(w);
    const created = await create(w, w.sender);
    await asRobotWould(w.orgId, created.delivery_id, row.id, DeliveryStatus.inTransit);
    const paused = await post(w.sender, `${created.delivery_id}/command`, { query: { command: 'pause' } });
    expectStatus(paused, 200);
    expect(DeliveryDetail.parse(paused.body)).toMatchObject({ status: DeliveryStatus.inTransit, pending_command: 'pause' });
    expect((await robot.waitForInstantAction('startPause')).actionType).toBe('startPause');
    // The robot has not reported it paused: the pause is still pending, and a resume takes it back.
    const resumed = await post(w.sender, `${created.delivery_id}/command`, { query: { command: 'resume' } });
    expectStatus(resumed, 200);
    expect(DeliveryDetail.parse(resumed.body).pending_command).toBe('resume');
    expect((await robot.waitForInstantAction('stopPause')).actionType).toBe('stopPause');
  });

  it('Paused (put there as the robot link would): resume is accepted; a pause of a Paused delivery is refused', async () => {
    const w = await world();
    const { row } = await onlineRobot(w);
    const created = await create(w, w.sender);
    await asRobotWould(w.orgId, created.delivery_id, row.id, DeliveryStatus.paused);
    const pause = await post(w.sender, `${created.delivery_id}/command`, { query: { command: 'pause' } });
    expectStatus(pause, 409);
    expect(errorOf(pause.body)).toMatchObject({ error: 'delivery_state', details: { status: DeliveryStatus.paused } });
    const resume = await post(w.sender, `${created.delivery_id}/command`, { query: { command: 'resume' } });
    expectStatus(resume, 200);
    expect(DeliveryDetail.parse(resume.body)).toMatchObject({ status: DeliveryStatus.paused, pending_command: 'resume' });
  });

  it('refuses a pause while the robot carrying it is offline (409 robot_offline), recording nothing', async () => {
    const w = await world();
    const row = await createRobotRow(server.context.db, w.orgId);
    const created = await create(w, w.sender);
    await asRobotWould(w.orgId, created.delivery_id, row.id, DeliveryStatus.inTransit);
    const response = await post(w.sender, `${created.delivery_id}/command`, { query: { command: 'pause' } });
    expectStatus(response, 409);
    expect(errorOf(response.body).error).toBe('robot_offline');
    expect(await server.context.db.select().from(robotCommands).where(eq(robotCommands.deliveryId, created.delivery_id))).toEqual([]);
  });
});

describe('POST /api/deliveries/{id}/loaded', () => {
  it('is refused unless the robot waits at the pickup (409 handoff_not_waiting)', async () => {
    const w = await world();
    const created = await create(w, w.sender);
    const response = await post(w.sender, `${created.delivery_id}/loaded`);
    expectStatus(response, 409);
    expect(errorOf(response.body).error).toBe('handoff_not_waiting');
  });

  it('Waiting for loading (put there as the robot link would): records who loaded it and tells the robot', async () => {
    const w = await world();
    const { row, robot } = await onlineRobot(w);
    const created = await create(w, w.sender);
    await asRobotWould(w.orgId, created.delivery_id, row.id, DeliveryStatus.waiting, 'loading');
    const response = await post(w.sender, `${created.delivery_id}/loaded`);
    expectStatus(response, 200);
    const loaded = DeliveryDetail.parse(response.body);
    expect(loaded.custody.at(-1)).toMatchObject({ step: 'loaded', user_id: w.sender.id, detail: 'console' });
    const action = await robot.waitForInstantAction('uvd_loading_confirmed');
    expect(action.actionParameters).toContainEqual({ key: 'delivery_id', value: created.delivery_id });
    // Once loaded, a second confirmation is refused.
    expectStatus(await post(w.sender, `${created.delivery_id}/loaded`), 409);
  });
});

describe('POST /api/deliveries/{id}/handoff', () => {
  it('is refused while the robot does not wait for the recipient (409 handoff_not_waiting), counting nothing', async () => {
    const w = await world();
    const created = await create(w, w.sender, { recipient_user_id: w.recipient.id });
    const response = await post(w.recipient, `${created.delivery_id}/handoff`, { body: { pin: created.pin } });
    expectStatus(response, 409);
    expect(errorOf(response.body).error).toBe('handoff_not_waiting');
    expect((await detail(w.recipient, created.delivery_id)).handoff_attempts_left).toBe(3);
  });

  it('Waiting for the recipient (put there as the robot link would): a wrong PIN is counted and kept, the right one verifies the hand-off', async () => {
    const w = await world();
    const { row, robot } = await onlineRobot(w);
    const created = await create(w, w.sender, { recipient_user_id: w.recipient.id });
    await asRobotWould(w.orgId, created.delivery_id, row.id, DeliveryStatus.waiting, 'recipient');
    const wrongPin = created.pin === '0000' ? '1111' : '0000';
    const wrong = await post(w.recipient, `${created.delivery_id}/handoff`, { body: { pin: wrongPin } });
    expectStatus(wrong, 409);
    expect(errorOf(wrong.body)).toMatchObject({ error: 'handoff_wrong_pin', details: { attempts_left: 2 } });
    const afterWrong = await detail(w.recipient, created.delivery_id);
    expect(afterWrong.handoff_attempts_left).toBe(2);
    expect(afterWrong.custody.at(-1)).toMatchObject({ step: 'handoff_failed', user_id: w.recipient.id, detail: 'console' });

    const right = await post(w.recipient, `${created.delivery_id}/handoff`, { body: { pin: created.pin } });
    expectStatus(right, 200);
    expect(DeliveryDetail.parse(right.body).custody.at(-1)).toMatchObject({ step: 'received', user_id: w.recipient.id, detail: 'console' });
    const confirmed = await robot.waitForInstantAction('uvd_handoff_confirmed');
    expect(confirmed.actionParameters).toContainEqual({ key: 'delivery_id', value: created.delivery_id });
    // Verified: a second entry is refused.
    const again = await post(w.recipient, `${created.delivery_id}/handoff`, { body: { pin: created.pin } });
    expectStatus(again, 409);
    expect(errorOf(again.body).error).toBe('handoff_not_waiting');
  });

  it('Waiting for the recipient (put there as the robot link would): the third wrong PIN locks the hand-off and alerts on the stream', async () => {
    const w = await world();
    const created = await create(w, w.sender, { recipient_user_id: w.recipient.id });
    const stream = await openSse(server.url, '/api/deliveries/stream', { token: w.sender.token, query: { delivery_list: [created.delivery_id] } });
    const outsiderStream = await openSse(server.url, '/api/deliveries/stream', { token: w.outsider.token });
    opened.push(stream, outsiderStream);
    expect(stream.status).toBe(200);
    await asRobotWould(w.orgId, created.delivery_id, null, DeliveryStatus.waiting, 'recipient');
    const wrongPin = created.pin === '9999' ? '8888' : '9999';
    const replies = [];
    for (let attempt = 0; attempt < 3; attempt++) replies.push(await post(w.recipient, `${created.delivery_id}/handoff`, { body: { pin: wrongPin } }));
    expect(replies.map((reply) => [reply.status, errorOf(reply.body).error])).toEqual([
      [409, 'handoff_wrong_pin'],
      [409, 'handoff_wrong_pin'],
      [409, 'handoff_locked'],
    ]);
    // Locked: even the right PIN is refused now.
    const right = await post(w.recipient, `${created.delivery_id}/handoff`, { body: { pin: created.pin } });
    expectStatus(right, 409);
    expect(errorOf(right.body).error).toBe('handoff_locked');
    const locked = await detail(w.admin, created.delivery_id);
    expect(locked).toMatchObject({ handoff_locked: true, handoff_attempts_left: 0 });
    expect(locked.custody.map((step) => step.step).slice(-4)).toEqual(['handoff_failed', 'handoff_failed', 'handoff_failed', 'handoff_locked']);
    const alert = await stream.waitFor((frame) => frame.event === 'delivery_handoff_locked');
    expect(JSON.parse(alert.data)).toMatchObject({ delivery_id: created.delivery_id, requested_by_id: w.sender.id });
    // A teleoperator of another group never hears of it; a delivery of their own, later, arrives.
    const elsewhere = await createSite(server.context.db, w.orgId, { roomsPerFloor: 2, robots: 0 });
    const own = await create({ ...w, rooms: elsewhere.floors[0]?.roomIds ?? [] }, w.admin, { recipient_user_id: w.outsider.id });
    await outsiderStream.waitFor((frame) => frame.data.includes(own.delivery_id));
    expect(outsiderStream.frames.filter((frame) => frame.data.includes(created.delivery_id))).toEqual([]);
  });
});

describe('GET /api/deliveries/stream', () => {
  it('sends delivery_change to those who may see the delivery, and replays what was missed after Last-Event-ID', async () => {
    const w = await world();
    const first = await openSse(server.url, '/api/deliveries/stream', { token: w.sender.token });
    const outsider = await openSse(server.url, '/api/deliveries/stream', { token: w.outsider.token });
    opened.push(first, outsider);
    const created = await create(w, w.sender);
    const seen = await first.nextEvent();
    expect(seen.event).toBe('delivery_change');
    expect(JSON.parse(seen.data)).toMatchObject({ delivery_id: created.delivery_id, status: DeliveryStatus.queued });
    first.close();

    expectStatus(await post(w.sender, `${created.delivery_id}/cancel`), 200);
    const later = await create(w, w.admin);
    const replay = await openSse(server.url, '/api/deliveries/stream', { token: w.sender.token, headers: { 'last-event-id': seen.id ?? '' } });
    opened.push(replay);
    const replayed = [await replay.nextEvent(), await replay.nextEvent()];
    expect(replayed.map((frame) => JSON.parse(frame.data) as unknown)).toMatchObject([
      { delivery_id: created.delivery_id, status: DeliveryStatus.cancelled },
      { delivery_id: later.delivery_id, status: DeliveryStatus.queued },
    ]);

    // The outsider's group holds none of it: a delivery of their own arrives, and nothing before it did.
    const otherRoom = await createSite(server.context.db, w.orgId, { roomsPerFloor: 2, robots: 0 });
    const own = await create({ ...w, rooms: otherRoom.floors[0]?.roomIds ?? [] }, w.admin, { recipient_user_id: w.outsider.id });
    const frame = await outsider.waitFor((candidate) => candidate.data.includes(own.delivery_id));
    expect(outsider.frames.filter((candidate) => candidate.data.includes(created.delivery_id) || candidate.data.includes(later.delivery_id))).toEqual([]);
    expect(frame.event).toBe('delivery_change');
  });

  it('answers 401 without a token and 400 naming a bad delivery_list', async () => {
    const w = await world();
    const noToken = await openSse(server.url, '/api/deliveries/stream');
    expect(noToken.status).toBe(401);
    const bad = await openSse(server.url, '/api/deliveries/stream', { token: w.admin.token, query: { delivery_list: 'not-an-id' } });
    expect(bad.status).toBe(400);
    expect(errorOf(bad.error).message).toContain('delivery_list');
  });
});

describe('the chain of custody', () => {
  it('is append-only: the database refuses to change a step, and to add one once the delivery is Delivered', async () => {
    const w = await world();
    const created = await create(w, w.sender);
    await expect(
      server.context.db.update(deliveryCustody).set({ detail: 'forged' }).where(eq(deliveryCustody.deliveryId, created.delivery_id)),
    ).rejects.toThrow();
    await server.context.db.update(deliveries).set({ status: DeliveryStatus.delivered }).where(eq(deliveries.id, created.delivery_id));
    await expect(
      server.context.db.transaction(async (tx) => recordCustody(tx, { id: created.delivery_id, orgId: w.orgId }, 'escalated', { detail: 'too late' })),
    ).rejects.toThrow();
    const steps = await server.context.db
      .select({ step: deliveryCustody.step, detail: deliveryCustody.detail })
      .from(deliveryCustody)
      .where(and(eq(deliveryCustody.deliveryId, created.delivery_id), sql`true`));
    expect(steps).toEqual([{ step: 'requested', detail: 'console' }]);
  });
});
