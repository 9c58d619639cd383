/**
 * A delivery's pushes, end to end with real parts: real encrypted Web Push messages to a local stand-in of a
 * browser vendor's push service (testing/push-service.ts), which decrypts them with each subscription's keys. The
 * recipient gets the PIN; a locked hand-off and a Blocked delivery reach the sender and the admins; Delivered the
 * sender; a delivery waiting too long (or late) escalates to the recipient, then the sender, then the admins, once
 * with two server processes. Time runs on a one-second escalation interval (DELIVERY_ESCALATION_SECONDS).
 */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CreatedDelivery, DeliveryDetail, DeliveryStatus, type DeliveryInput, type DeliveryWaitingFor, type PushEventKind } from '@uvd/contracts';
import { deliveries } from '../db/schema.ts';
import { expectStatus, until } from '../testing/assertions.ts';
import { startRouteTestServer, type TestServer, type TestUser } from '../testing/harness.ts';
import { openSse } from '../testing/live-fixtures.ts';
import { startLocalPushService, testPushConfig, type LocalPushService, type ReceivedPush, type TestSubscription } from '../testing/push-service.ts';
import { createSite } from '../testing/site-fixtures.ts';
import { lockDelivery, recordCustody, updateDelivery } from './lifecycle.ts';

const ESCALATION_MS = 1000;
let pushService: LocalPushService;
let server: TestServer;
const closing: { close(): unknown }[] = [];

beforeAll(async () => {
  pushService = await startLocalPushService();
  server = await startRouteTestServer({ push: testPushConfig({ deliveryEscalationMs: ESCALATION_MS }) });
});
afterAll(async () => {
  for (const item of closing) await item.close();
  await server.close();
  await pushService.close();
});

interface World {
  orgId: string;
  rooms: string[];
  admin: TestUser;
  sender: TestUser;
  recipient: TestUser;
  bystander: TestUser;
}

async function world(): Promise<World> {
  const orgId = await server.createOrg('delivery-push');
  const groupId = await server.createGroup(orgId);
  const site = await createSite(server.context.db, orgId, { roomsPerFloor: 2, robots: 0, groupIds: [groupId] });
  return {
    orgId,
    rooms: site.floors[0]?.roomIds ?? [],
    admin: await server.createUser(orgId, ['done-admin']),
    sender: await server.createUser(orgId, ['done-teleoperator'], { groupIds: [groupId] }),
    recipient: await server.createUser(orgId, ['done-teleoperator']),
    // Sees the rooms (the group's) but is neither sender, recipient nor admin: told nothing.
    bystander: await server.createUser(orgId, ['done-teleoperator'], { groupIds: [groupId] }),
  };
}

const subscribe = async (w: World, user: TestUser): Promise<TestSubscription> => {
  const subscription = pushService.subscribe();
  for (const topic of [user.id, w.orgId]) {
    expectStatus(await server.request('POST', '/api/subscribe', { token: user.token, body: { token: subscription.token, topic } }), 200);
  }
  return subscription;
};

const pushesOf = (subscription: TestSubscription, deliveryId: string): ReceivedPush[] =>
  pushService.received.filter((push) => push.subscriptionId === subscription.id && push.message.related_id === deliveryId);
const kindsOf = (subscription: TestSubscription, deliveryId: string): PushEventKind[] => pushesOf(subscription, deliveryId).map((push) => push.message.kind);

async function create(w: World, changes: Partial<DeliveryInput> = {}): Promise<CreatedDelivery> {
  const response = await server.request('POST', '/api/deliveries', {
    token: w.sender.token,
    body: {
      pickup_room_id: w.rooms[0],
      dropoff_room_id: w.rooms[1],
      items: [{ description: 'Insulin', category: 'medication', quantity: 2 }],
      recipient_user_id: w.recipient.id,
      ...changes,
    },
  });
  expectStatus(response, 201);
  return CreatedDelivery.parse(response.body);
}

/** Changes the delivery as the robot link does (its lifecycle functions), for the states a robot drives. */
async function asRobotWould(w: World, deliveryId: string, status: DeliveryStatus, waitingFor: DeliveryWaitingFor | null = null, reason: string | null = null) {
  await server.context.db.transaction(async (tx) => {
    const row = await lockDelivery(tx, w.orgId, deliveryId);
    if (!row) throw new Error('delivery missing');
    if (status === DeliveryStatus.blocked) await recordCustody(tx, row, 'blocked', { detail: reason });
    if (status === DeliveryStatus.delivered) await recordCustody(tx, row, 'delivered');
    await updateDelivery(server.context, tx, row, {
      status,
      waitingFor,
      waitingSince: waitingFor ? new Date() : row.waitingSince,
      reason,
      ...(status === DeliveryStatus.delivered ? { deliveredAt: new Date() } : {}),
    });
  });
}

const settle = async () => {
  server.context.notifications.wake();
  await server.context.notifications.idle();
};

describe('delivery pushes', () => {
  it('sends the recipient the PIN in their language with a link to the delivery, and nobody else', async () => {
    const w = await world();
    expectStatus(await server.request('POST', '/api/settings/settings', { token: w.recipient.token, body: { language: 'fi', timezone: 'Europe/Helsinki' } }), 200);
    const [recipientPhone, senderPhone, bystanderPhone, adminPhone] = [await subscribe(w, w.recipient), await subscribe(w, w.sender), await subscribe(w, w.bystander), await subscribe(w, w.admin)];
    const created = await create(w);
    await until(async () => pushesOf(recipientPhone, created.delivery_id), (pushes) => pushes.length > 0);
    const [push] = pushesOf(recipientPhone, created.delivery_id);
    expect(push?.message).toMatchObject({
      kind: 'delivery_requested',
      type: 'delivery',
      related_id: created.delivery_id,
      url: `/deliveries/${created.delivery_id}`,
      title: 'Sinulle on lähetys',
    });
    expect(push?.message.body).toContain(created.pin);
    expect(push?.message.body).toContain('2 × Insulin');
    await settle();
    for (const phone of [senderPhone, bystanderPhone, adminPhone]) expect(kindsOf(phone, created.delivery_id)).toEqual([]);
  });

  it('Waiting for the recipient (put there as the robot link would): the third wrong PIN alerts the sender and the admins', async () => {
    const w = await world();
    const [recipientPhone, senderPhone, bystanderPhone, adminPhone] = [await subscribe(w, w.recipient), await subscribe(w, w.sender), await subscribe(w, w.bystander), await subscribe(w, w.admin)];
    const created = await create(w);
    await asRobotWould(w, created.delivery_id, DeliveryStatus.waiting, 'recipient');
    const wrong = created.pin === '1234' ? '4321' : '1234';
    for (let attempt = 0; attempt < 3; attempt++) await server.request('POST', `/api/deliveries/${created.delivery_id}/handoff`, { token: w.recipient.token, body: { pin: wrong } });
    for (const phone of [senderPhone, adminPhone]) {
      await until(async () => kindsOf(phone, created.delivery_id), (kinds) => kinds.includes('delivery_handoff_locked'));
    }
    const [locked] = pushesOf(adminPhone, created.delivery_id);
    expect(locked?.message).toMatchObject({ title: 'Hand-off locked', url: `/deliveries/${created.delivery_id}` });
    await settle();
    // Not the lock to the recipient. The delivery waits for them on this file's one-second escalation interval, so on
    // a busy machine the three attempts can outlast it and an escalation reach them as well (as it should).
    expect(kindsOf(recipientPhone, created.delivery_id).filter((kind) => kind !== 'delivery_escalation')).toEqual(['delivery_requested']);
    expect(kindsOf(bystanderPhone, created.delivery_id)).toEqual([]);
  });

  it('Blocked and then Delivered (put there as the robot link would): Blocked to the sender and the admins once, Delivered to the sender', async () => {
    const w = await world();
    const [senderPhone, adminPhone, bystanderPhone] = [await subscribe(w, w.sender), await subscribe(w, w.admin), await subscribe(w, w.bystander)];
    const created = await create(w, { recipient_user_id: undefined });
    await asRobotWould(w, created.delivery_id, DeliveryStatus.blocked, null, 'uvd_path_blocked');
    // Another change while it stays Blocked for the same reason is no second alert.
    await asRobotWould(w, created.delivery_id, DeliveryStatus.blocked, null, 'uvd_path_blocked');
    for (const phone of [senderPhone, adminPhone]) await until(async () => kindsOf(phone, created.delivery_id), (kinds) => kinds.includes('delivery_blocked'));
    await asRobotWould(w, created.delivery_id, DeliveryStatus.delivered);
    await until(async () => kindsOf(senderPhone, created.delivery_id), (kinds) => kinds.includes('delivery_delivered'));
    await settle();
    expect(kindsOf(senderPhone, created.delivery_id)).toEqual(['delivery_blocked', 'delivery_delivered']);
    expect(kindsOf(adminPhone, created.delivery_id)).toEqual(['delivery_blocked']);
    expect(kindsOf(bystanderPhone, created.delivery_id)).toEqual([]);
    expect(pushesOf(senderPhone, created.delivery_id)[1]?.message.title).toBe('Delivered');
  });

  it('Waiting for the recipient (put there as the robot link would): escalates to the recipient, then the sender, then the admins, once with two servers', async () => {
    const w = await world();
    const second = await startRouteTestServer({ push: testPushConfig({ deliveryEscalationMs: ESCALATION_MS }) }, server.testDatabase);
    closing.push(second);
    const [recipientPhone, senderPhone, adminPhone] = [await subscribe(w, w.recipient), await subscribe(w, w.sender), await subscribe(w, w.admin)];
    const created = await create(w);
    const stream = await openSse(server.url, '/api/deliveries/stream', { token: w.sender.token, query: { delivery_list: [created.delivery_id] } });
    closing.push(stream);
    await asRobotWould(w, created.delivery_id, DeliveryStatus.waiting, 'recipient');

    const escalations = (phone: TestSubscription) => kindsOf(phone, created.delivery_id).filter((kind) => kind === 'delivery_escalation');
    await until(async () => escalations(adminPhone), (kinds) => kinds.length > 0, 15_000);
    const first = (phone: TestSubscription) => pushesOf(phone, created.delivery_id).find((push) => push.message.kind === 'delivery_escalation')?.receivedAt ?? 0;
    // Rung by rung, an interval apart.
    expect(first(recipientPhone)).toBeLessThan(first(senderPhone));
    expect(first(senderPhone)).toBeLessThan(first(adminPhone));
    expect(pushesOf(recipientPhone, created.delivery_id).find((push) => push.message.kind === 'delivery_escalation')?.message.title).toBe('Delivery waiting');

    // Two servers, and a wait long past the last rung: each rung was climbed once.
    await new Promise((resolve) => setTimeout(resolve, 2 * ESCALATION_MS));
    await settle();
    for (const phone of [recipientPhone, senderPhone, adminPhone]) expect(escalations(phone)).toHaveLength(1);
    const detail = DeliveryDetail.parse((await server.request('GET', `/api/deliveries/${created.delivery_id}`, { token: w.admin.token })).body);
    expect(detail.custody.filter((step) => step.step === 'escalated').map((step) => step.detail)).toEqual(['recipient', 'sender', 'admins']);
    const events = await stream.waitFor((frame) => frame.event === 'delivery_escalated' && frame.data.includes('"admins"'));
    expect(JSON.parse(events.data)).toEqual({ delivery_id: created.delivery_id, level: 3, told: 'admins' });
  });

  it('escalates a delivery past its deliver_by as late, whatever its status', async () => {
    const w = await world();
    const recipientPhone = await subscribe(w, w.recipient);
    const created = await create(w, { deliver_by: new Date(Date.now() + 1500).toISOString() });
    await until(async () => kindsOf(recipientPhone, created.delivery_id), (kinds) => kinds.includes('delivery_escalation'), 15_000);
    const late = pushesOf(recipientPhone, created.delivery_id).find((push) => push.message.kind === 'delivery_escalation');
    expect(late?.message.title).toBe('Delivery late');
    const [row] = await server.context.db.select({ level: deliveries.escalationLevel }).from(deliveries).where(eq(deliveries.id, created.delivery_id));
    expect(row?.level).toBeGreaterThanOrEqual(1);
    const detail = DeliveryDetail.parse((await server.request('GET', `/api/deliveries/${created.delivery_id}`, { token: w.sender.token })).body);
    expect(detail).toMatchObject({ late: true, status: DeliveryStatus.queued });
    expect(detail.custody.find((step) => step.step === 'escalated')?.detail).toBe('recipient (late)');
  });
});
