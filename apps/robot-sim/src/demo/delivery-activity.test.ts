/**
 * The delivery activity against a real server (the server's in-process test harness, imported by path from this
 * test only) for everything but the deliveries: sign-in, profiles, robots and rooms are the server's. The deliveries
 * backend is a stand-in in front of it (`/api/deliveries…`, with the contracts' shapes): it keeps deliveries in
 * memory, knows who calls from the server's own profile reply, and lets the test play the dispatcher and the robot
 * (a delivery In transit, Waiting for loading, Waiting for the recipient). The robot's panel is a recorder.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomInt, randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CreatedDelivery,
  DeliveryInput,
  DeliveryRefusal,
  DeliveryStatus,
  getMyProfile,
  HandoffInput,
  ROUTE_MOUNTS,
  SessionUser,
  type Delivery,
  type DeliveryWaitingFor,
} from '@uvd/contracts';
import { roomGroups, rooms as roomsTable } from '../../../server/src/db/schema.ts';
import { createSite } from '../../../server/src/testing/site-fixtures.ts';
import { startTestServer, type TestServer, type TestUser } from '../../../server/src/testing/harness.ts';
import { ApiClient } from './api-client.ts';
import { DELIVERY_DEMO_NOTES, startDeliveryActivity, wrongPinFor, type DeliveryActivityOptions, type DeliveryPanel } from './delivery-activity.ts';

let server: TestServer;
const quiet = { warn: () => undefined, info: () => undefined };

interface FakeDelivery {
  delivery: Delivery;
  pin: string;
  /** Who did what, by username, as the backend saw it. */
  calls: { call: 'loaded' | 'handoff' | 'cancel'; username: string; pin?: string }[];
}

/** The deliveries backend's stand-in, in front of the real server. */
class FakeDeliveries {
  readonly deliveries = new Map<string, FakeDelivery>();
  readonly requests: { username: string; body: unknown }[] = [];
  private http: Server | undefined;
  url = '';

  constructor(private readonly upstream: TestServer) {}

  async start(): Promise<void> {
    this.http = createServer((request, response) => {
      void this.handle(request)
        .then((reply) => {
          if (!reply) {
            this.forward(request, response);
            return;
          }
          response.writeHead(reply.status, { 'content-type': 'application/json' });
          response.end(JSON.stringify(reply.body));
        })
        .catch((error: unknown) => {
          response.writeHead(500, { 'content-type': 'application/json' });
          response.end(JSON.stringify({ error: 'internal', message: String(error) }));
        });
    });
    await new Promise<void>((resolve) => this.http?.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.http.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    await new Promise((resolve) => this.http?.close(resolve));
  }

  /** The test as the dispatcher and the robot: a delivery's status as the robot reports it. */
  set(deliveryId: string, status: Delivery['status'], robotId: string | null, waitingFor: DeliveryWaitingFor | null = null): void {
    const entry = this.deliveries.get(deliveryId);
    if (!entry) throw new Error(`no delivery ${deliveryId}`);
    entry.delivery = { ...entry.delivery, status, robot_id: robotId, waiting_for: waitingFor, waiting_since: waitingFor ? new Date().toISOString() : null };
  }

  private forward(request: IncomingMessage, response: ServerResponse): void {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const headers = new Headers();
      for (const [key, value] of Object.entries(request.headers)) if (typeof value === 'string' && key !== 'host' && key !== 'content-length') headers.set(key, value);
      const body = chunks.length > 0 ? Buffer.concat(chunks) : undefined;
      void fetch(`${this.upstream.url}${request.url ?? '/'}`, { method: request.method ?? 'GET', headers, ...(body ? { body } : {}) }).then(async (reply) => {
        response.writeHead(reply.status, { 'content-type': reply.headers.get('content-type') ?? 'application/json' });
        response.end(Buffer.from(await reply.arrayBuffer()));
      });
    });
  }

  private async body(request: IncomingMessage): Promise<unknown> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    return chunks.length > 0 ? (JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown) : undefined;
  }

  /** Who calls: the server's own answer to the caller's token. */
  private async caller(request: IncomingMessage): Promise<SessionUser> {
    const reply = await fetch(`${this.upstream.url}${ROUTE_MOUNTS.api}${getMyProfile.path}`, { headers: { authorization: request.headers.authorization ?? '' } });
    if (reply.status !== 200) throw new Error(`profile ${reply.status}`);
    return SessionUser.parse(await reply.json());
  }

  private async handle(request: IncomingMessage): Promise<{ status: number; body: unknown } | undefined> {
    const url = new URL(request.url ?? '/', 'http://fake');
    if (!url.pathname.startsWith('/api/deliveries')) return undefined;
    const user = await this.caller(request);
    const [, , , id, action] = url.pathname.split('/');
    if (request.method === 'GET' && id === undefined) {
      const wanted = url.searchParams.getAll('status').map(Number);
      const payload = [...this.deliveries.values()].map((entry) => entry.delivery).filter((delivery) => wanted.length === 0 || wanted.includes(delivery.status));
      return { status: 200, body: { count: payload.length, payload } };
    }
    if (request.method === 'POST' && id === undefined) {
      const input = DeliveryInput.parse(await this.body(request));
      this.requests.push({ username: user.username, body: input });
      const room = async (roomId: string) => {
        const [row] = await this.upstream.context.db.select().from(roomsTable).where(eq(roomsTable.id, roomId));
        if (!row) throw new Error(`no room ${roomId}`);
        return { room_id: row.id, name: row.name, floor_id: row.floorId, building_id: row.buildingId };
      };
      const now = new Date().toISOString();
      const pin = String(randomInt(0, 10_000)).padStart(4, '0');
      const delivery: Delivery = {
        delivery_id: randomUUID(),
        status: DeliveryStatus.queued,
        priority: input.priority,
        pickup: await room(input.pickup_room_id),
        dropoff: await room(input.dropoff_room_id),
        items: input.items,
        robot_id: null,
        robot_name: null,
        requested_by: { user_id: user.sub, name: user.name },
        recipient_user_id: input.recipient_user_id ?? null,
        recipient_name: input.recipient_name ?? null,
        deliver_by: input.deliver_by ?? null,
        notes: input.notes ?? '',
        created_at: now,
        updated_at: now,
        waiting_for: null,
        waiting_since: null,
        reason: null,
        dispatch_attempts: 0,
        handoff_attempts_left: 3,
        handoff_locked: false,
        drawer: null,
        pending_command: null,
        delivered_at: null,
        late: false,
      };
      this.deliveries.set(delivery.delivery_id, { delivery, pin, calls: [] });
      return { status: 201, body: CreatedDelivery.parse({ ...delivery, custody: [], route: [], pin }) };
    }
    const entry = id ? this.deliveries.get(id) : undefined;
    if (!entry) return { status: 404, body: { error: 'not_found', message: 'no such delivery' } };
    const detail = () => ({ status: 200, body: { ...entry.delivery, custody: [], route: [] } });
    const waitingFor = (what: DeliveryWaitingFor) => entry.delivery.status === DeliveryStatus.waiting && entry.delivery.waiting_for === what;
    if (action === 'loaded') {
      entry.calls.push({ call: 'loaded', username: user.username });
      return waitingFor('loading') ? detail() : { status: 409, body: { error: DeliveryRefusal.notWaiting, message: 'not waiting' } };
    }
    if (action === 'handoff') {
      const { pin } = HandoffInput.parse(await this.body(request));
      entry.calls.push({ call: 'handoff', username: user.username, pin });
      if (!waitingFor('recipient')) return { status: 409, body: { error: DeliveryRefusal.notWaiting, message: 'not waiting' } };
      if (pin !== entry.pin) {
        entry.delivery = { ...entry.delivery, handoff_attempts_left: entry.delivery.handoff_attempts_left - 1 };
        return { status: 409, body: { error: DeliveryRefusal.wrongPin, message: 'Wrong PIN', details: { attempts_left: entry.delivery.handoff_attempts_left } } };
      }
      return detail();
    }
    if (action === 'cancel') {
      entry.calls.push({ call: 'cancel', username: user.username });
      entry.delivery = { ...entry.delivery, status: DeliveryStatus.cancelled };
      return detail();
    }
    return { status: 404, body: { error: 'not_found', message: url.pathname } };
  }
}

/** A robot's buttons and screen, recorded. */
class RecordingPanel implements DeliveryPanel {
  readonly loadings: number[] = [];
  readonly pins: string[] = [];
  readonly blocks: number[] = [];
  confirmLoading(): boolean {
    this.loadings.push(Date.now());
    return true;
  }
  enterPin(pin: string): string | null {
    this.pins.push(pin);
    return `attempt-${this.pins.length}`;
  }
  blockPath(durationMs: number): void {
    this.blocks.push(durationMs);
  }
}

interface World {
  fake: FakeDeliveries;
  admin: TestUser;
  /** Ward A's nurse sees the first floor's rooms, the lab (an admin) every room. */
  nurse: TestUser;
  lab: TestUser;
  robotId: string;
  floorRoomIds: string[];
  options: DeliveryActivityOptions;
}

const fakes: FakeDeliveries[] = [];
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  for (const fake of fakes) await fake.close();
  await server.close();
});

async function world(overrides: Partial<DeliveryActivityOptions> = {}, panel?: DeliveryPanel): Promise<World> {
  const orgId = await server.createOrg('logistics');
  const wardA = await server.createGroup(orgId);
  const site = await createSite(server.context.db, orgId, { floors: 2, roomsPerFloor: 4, robots: 1 });
  const [first] = site.floors;
  if (!first) throw new Error('a floor');
  // Ward A holds the first floor's rooms (where the robot stands); the second floor's are in no group.
  await server.context.db.insert(roomGroups).values(first.roomIds.map((roomId) => ({ roomId, groupId: wardA })));
  const admin = await server.createUser(orgId, ['done-admin']);
  const nurse = await server.createUser(orgId, ['done-teleoperator'], { groupIds: [wardA] });
  const lab = await server.createUser(orgId, ['done-admin']);
  const fake = new FakeDeliveries(server);
  await fake.start();
  fakes.push(fake);
  const client = (user: TestUser) => new ApiClient(fake.url, { organization: orgId, username: user.username, password: user.password });
  const robotId = site.robotIds[0] ?? '';
  return {
    fake,
    admin,
    nurse,
    lab,
    robotId,
    floorRoomIds: first.roomIds,
    options: {
      admin: client(admin),
      people: [client(nurse), client(lab)],
      robots: [{ robotId, ...(panel ? { panel } : {}) }],
      firstRoundMs: 60_000,
      intervalMs: 60_000,
      loadAfterMs: 0,
      handoffAfterMs: 0,
      logger: quiet,
      ...overrides,
    },
  };
}

describe('delivery activity', () => {
  it("requests deliveries between rooms of its robots' floor at a steady pace, as people who see the rooms, with items, priorities and recipients", async () => {
    const w = await world({ maxOpen: 3, atRobotEvery: 0, wrongPinEvery: 0, blockEvery: 0 });
    const activity = startDeliveryActivity(w.options);
    try {
      // One request per round, up to maxOpen open ones.
      for (let round = 1; round <= 5; round += 1) await activity.round();
      expect(w.fake.requests).toHaveLength(3);
      const profile = `${ROUTE_MOUNTS.api}${getMyProfile.path}`;
      const nurseUser = await server.request<{ sub: string }>('GET', profile, { token: w.nurse.token });
      const labUser = await server.request<{ sub: string }>('GET', profile, { token: w.lab.token });
      for (const { username, body } of w.fake.requests) {
        const input = DeliveryInput.parse(body);
        // The robot's floor only (it stands on the first floor; the site has a second one), two different rooms.
        expect(w.floorRoomIds).toContain(input.pickup_room_id);
        expect(w.floorRoomIds).toContain(input.dropoff_room_id);
        expect(input.pickup_room_id).not.toBe(input.dropoff_room_id);
        expect(input.items.length).toBeGreaterThanOrEqual(1);
        for (const item of input.items) expect(item.quantity).toBeGreaterThanOrEqual(1);
        expect(input.notes).toBe(DELIVERY_DEMO_NOTES);
        expect([w.nurse.username, w.lab.username]).toContain(username);
        // The recipient is the other person (both see the first floor).
        const other = username === w.nurse.username ? labUser.body.sub : nurseUser.body.sub;
        expect(input.recipient_user_id).toBe(other);
        if (input.priority === 'stat') expect(Date.parse(input.deliver_by ?? '')).toBeGreaterThan(Date.now());
      }
      // The same seed makes the same requests.
      const again = await world({ maxOpen: 3, atRobotEvery: 0, wrongPinEvery: 0, blockEvery: 0 });
      const repeat = startDeliveryActivity(again.options);
      for (let round = 1; round <= 3; round += 1) await repeat.round();
      await repeat.stop();
      const shape = (requests: { body: unknown }[], roomIds: string[]) =>
        requests.map(({ body }) => {
          const input = DeliveryInput.parse(body);
          return [roomIds.indexOf(input.pickup_room_id), roomIds.indexOf(input.dropoff_room_id), input.priority, input.items];
        });
      expect(shape(again.fake.requests, again.floorRoomIds)).toEqual(shape(w.fake.requests, w.floorRoomIds));
    } finally {
      await activity.stop();
    }
  });

  it('confirms loading as the sender and enters the PIN as the recipient, a wrong one first now and then; only once each', async () => {
    const w = await world({ maxOpen: 2, atRobotEvery: 0, wrongPinEvery: 1, blockEvery: 0 });
    const activity = startDeliveryActivity(w.options);
    try {
      const { created } = await activity.round();
      const [id] = created;
      if (!id) throw new Error('a request');
      const entry = w.fake.deliveries.get(id);
      if (!entry) throw new Error('the delivery');
      const sender = w.fake.requests[0]?.username;

      // Dispatched and driving: nothing to do.
      w.fake.set(id, DeliveryStatus.inTransit, w.robotId);
      await activity.round();
      expect(entry.calls).toEqual([]);

      // At the pickup: the sender confirms loading, once.
      w.fake.set(id, DeliveryStatus.waiting, w.robotId, 'loading');
      expect((await activity.round()).loaded).toEqual([{ deliveryId: id, at: 'console' }]);
      expect((await activity.round()).loaded).toEqual([]);
      expect(entry.calls).toEqual([{ call: 'loaded', username: sender }]);

      // At the drop-off: the recipient, a wrong PIN first, then the right one.
      w.fake.set(id, DeliveryStatus.waiting, w.robotId, 'recipient');
      const round = await activity.round();
      expect(round.wrongPins).toEqual([id]);
      expect(round.handedOff).toEqual([{ deliveryId: id, at: 'console' }]);
      const recipient = sender === w.nurse.username ? w.lab.username : w.nurse.username;
      expect(entry.calls.slice(1)).toEqual([
        { call: 'handoff', username: recipient, pin: wrongPinFor(entry.pin) },
        { call: 'handoff', username: recipient, pin: entry.pin },
      ]);
      expect(wrongPinFor(entry.pin)).not.toBe(entry.pin);
      expect(wrongPinFor(entry.pin)).toHaveLength(entry.pin.length);
      // Still Waiting until the robot reports the drop finished: not entered again.
      expect((await activity.round()).handedOff).toEqual([]);
      expect(entry.calls).toHaveLength(3);
    } finally {
      await activity.stop();
    }
  });

  it('waits before it answers a waiting robot, and leaves deliveries it did not request alone', async () => {
    const w = await world({ maxOpen: 1, atRobotEvery: 0, wrongPinEvery: 0, blockEvery: 0, loadAfterMs: 400 });
    const activity = startDeliveryActivity(w.options);
    try {
      const [id] = (await activity.round()).created;
      if (!id) throw new Error('a request');
      w.fake.set(id, DeliveryStatus.waiting, w.robotId, 'loading');
      expect((await activity.round()).loaded).toEqual([]);
      await new Promise((resolve) => setTimeout(resolve, 450));
      expect((await activity.round()).loaded).toHaveLength(1);

      // Someone's own delivery from the console: the demo neither loads it nor counts it.
      const own = w.fake.deliveries.get(id);
      if (!own) throw new Error('the delivery');
      const foreignId = randomUUID();
      w.fake.deliveries.set(foreignId, { delivery: { ...own.delivery, delivery_id: foreignId, notes: 'for ward 3' }, pin: '0000', calls: [] });
      w.fake.set(foreignId, DeliveryStatus.waiting, w.robotId, 'loading');
      await activity.round();
      await new Promise((resolve) => setTimeout(resolve, 450));
      await activity.round();
      expect(w.fake.deliveries.get(foreignId)?.calls).toEqual([]);
    } finally {
      await activity.stop();
    }
  });

  it('does it at the robot now and then: the loading button, the PIN on its screen (a wrong one first, the right one next round), a blocked corridor', async () => {
    const panel = new RecordingPanel();
    const w = await world({ maxOpen: 1, atRobotEvery: 1, wrongPinEvery: 1, blockEvery: 2, blockMs: 15_000 }, panel);
    const activity = startDeliveryActivity(w.options);
    try {
      const [id] = (await activity.round()).created;
      if (!id) throw new Error('a request');
      const entry = w.fake.deliveries.get(id);
      if (!entry) throw new Error('the delivery');
      w.fake.set(id, DeliveryStatus.inTransit, w.robotId);
      // The second round blocks the corridor of the robot under way.
      expect((await activity.round()).blocked).toEqual([w.robotId]);
      expect(panel.blocks).toEqual([15_000]);

      w.fake.set(id, DeliveryStatus.waiting, w.robotId, 'loading');
      expect((await activity.round()).loaded).toEqual([{ deliveryId: id, at: 'robot' }]);
      expect(panel.loadings).toHaveLength(1);

      w.fake.set(id, DeliveryStatus.waiting, w.robotId, 'recipient');
      expect((await activity.round()).wrongPins).toEqual([id]);
      expect((await activity.round()).handedOff).toEqual([{ deliveryId: id, at: 'robot' }]);
      expect(panel.pins).toEqual([wrongPinFor(entry.pin), entry.pin]);
      // Nothing went through the console.
      expect(entry.calls).toEqual([]);
    } finally {
      await activity.stop();
    }
  });

  it('cancels, as the admin, a demo delivery waiting for a PIN it no longer knows (requested before a restart)', async () => {
    const w = await world({ maxOpen: 1, atRobotEvery: 0, wrongPinEvery: 0, blockEvery: 0 });
    const before = startDeliveryActivity(w.options);
    const [id] = (await before.round()).created;
    await before.stop();
    if (!id) throw new Error('a request');
    w.fake.set(id, DeliveryStatus.waiting, w.robotId, 'recipient');
    const after = startDeliveryActivity(w.options);
    try {
      expect((await after.round()).cancelled).toEqual([id]);
      expect(w.fake.deliveries.get(id)?.calls).toEqual([{ call: 'cancel', username: w.admin.username }]);
    } finally {
      await after.stop();
    }
  });

});
