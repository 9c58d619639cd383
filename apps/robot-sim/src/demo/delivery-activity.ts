/**
 * The logistics demo's day at the hospital (`VARIANT=logistics`), as clients of the server's public API: ward
 * nurses, the laboratory and the pharmacy request deliveries between rooms of the floors the delivery robots
 * serve, at a steady pace, with priorities, items and recipients. The server dispatches them to the robots, which
 * the demo fleet plays. While a robot waits at the pickup, the sender confirms loading after a while (in the
 * console, or now and then with the button at the robot); while it waits at the drop-off, the recipient enters the
 * PIN from the create reply after a while (in the console, or at the robot), now and then a wrong one first. Now and
 * then a corridor is blocked for a while in front of a robot under way. Everything is chosen with the demo's seeded
 * PRNG, so a run can be repeated.
 *
 * The demo acts only on deliveries it made (their notes say so): a delivery someone requests in the console is
 * theirs to load and take.
 */
import {
  cancelDelivery,
  confirmLoading,
  createDelivery,
  createPrng,
  CreatedDelivery,
  DeliveryDetail,
  DeliveryList,
  DeliveryRefusal,
  DeliveryStatus,
  FloorMapMetadata,
  getFloorMapMetadata,
  getMyProfile,
  getRooms,
  handoffDelivery,
  listDeliveries,
  RoomList,
  SessionUser,
  type Delivery,
  type DeliveryInput,
  type DeliveryPriority,
  type ItemCategory,
  type Prng,
} from '@uvd/contracts';
import { ApiCallError, type ApiClient } from './api-client.ts';
import { consoleLogger, type DemoLogger } from './demo-activity.ts';
import { listOrganizationRobots } from './demo-fleet.ts';
import { runRounds } from './rounds.ts';

/** What can be done at a simulated delivery robot itself (SimRobot of kind 'delivery'). */
export interface DeliveryPanel {
  /** The button at the pickup: loaded. False when the robot is not waiting to be loaded. */
  confirmLoading(): boolean;
  /** A PIN typed on the robot's screen at the drop-off; null when no hand-off waits for one. */
  enterPin(pin: string): string | null;
  /** The way ahead is blocked for this long (real time). */
  blockPath(durationMs: number): void;
}

export interface DeliveryRobot {
  robotId: string;
  /** Missing for a robot played elsewhere: then everything is done in the console. */
  panel?: DeliveryPanel;
}

export interface DeliveryActivityOptions {
  /** The organization's admin (rooms, robots, and cancelling a demo delivery whose PIN it lost). */
  admin: ApiClient;
  /** The people who send and receive deliveries, each signed in as themselves. */
  people: readonly ApiClient[];
  /** The delivery robots the demo fleet plays: requests go between rooms of their floors. */
  robots: readonly DeliveryRobot[];
  /** Time between rounds (default 15 s). */
  intervalMs?: number;
  /** Before the first round (default 5 s). */
  firstRoundMs?: number;
  /** Demo deliveries open at once, at most (default 1.5 per robot); one new request per round below it. */
  maxOpen?: number;
  /** A robot waiting at the pickup this long is loaded (default 20 s). */
  loadAfterMs?: number;
  /** A robot waiting at the drop-off this long gets its PIN (default 30 s). */
  handoffAfterMs?: number;
  /** Every n-th loading and hand-off is done at the robot when it has a panel (default 3; 0 never). */
  atRobotEvery?: number;
  /** Every n-th hand-off starts with a wrong PIN (default 4; 0 never). */
  wrongPinEvery?: number;
  /** Every n-th round blocks the corridor of one robot under way (default 12; 0 never)… */
  blockEvery?: number;
  /** …for this long (default 20 s). */
  blockMs?: number;
  seed?: number;
  logger?: DemoLogger;
}

export interface DeliveryRound {
  created: string[];
  /** Loading confirmed: `console` or `robot`. */
  loaded: { deliveryId: string; at: 'console' | 'robot' }[];
  /** PINs entered (the right one): `console` or `robot`. */
  handedOff: { deliveryId: string; at: 'console' | 'robot' }[];
  /** Deliveries given a wrong PIN first. */
  wrongPins: string[];
  /** Robots whose corridor was blocked. */
  blocked: string[];
  /** Demo deliveries cancelled because their PIN was lost (made before a restart). */
  cancelled: string[];
}

export interface DeliveryActivity {
  round(): Promise<DeliveryRound>;
  stop(): Promise<void>;
}

export const DELIVERY_DEMO_NOTES = 'Requested by the demo activity.';

const OPEN_STATUSES = [DeliveryStatus.queued, DeliveryStatus.inTransit, DeliveryStatus.paused, DeliveryStatus.waiting, DeliveryStatus.blocked];
const PAGE = 200;

/** What each category's items are called, and how many of them go at once. */
const CATALOGUE: Record<ItemCategory, readonly { description: string; most: number }[]> = {
  specimen: [
    { description: 'Blood samples (EDTA tubes)', most: 6 },
    { description: 'Urine sample', most: 2 },
    { description: 'Tissue sample in formalin', most: 1 },
  ],
  medication: [
    { description: 'Patient medication, daily dose box', most: 4 },
    { description: 'Antibiotics (IV)', most: 3 },
    { description: 'Analgesics', most: 2 },
  ],
  blood: [{ description: 'Red cell concentrate', most: 2 }],
  supplies: [
    { description: 'Sterile dressing sets', most: 10 },
    { description: 'Infusion sets', most: 8 },
    { description: 'Gloves, size M (box)', most: 4 },
  ],
  linen: [{ description: 'Clean bed linen', most: 6 }],
  meal: [{ description: 'Special diet meal', most: 2 }],
  document: [{ description: 'Patient records', most: 3 }],
  other: [{ description: 'Personal belongings', most: 1 }],
};

interface MapRoomChoice {
  roomId: string;
  name: string;
  floorId: string;
}

interface Person {
  api: ApiClient;
  userId: string;
  name: string;
  /** Rooms the person sees (their groups'; every room for a person without groups). */
  rooms: Set<string>;
}

/** The category a request between these rooms carries: by what the rooms are. */
export function categoryFor(pickup: string, dropoff: string, prng: Prng): ItemCategory {
  if (/laboratory/i.test(dropoff)) return 'specimen';
  if (/medication/i.test(pickup)) return 'medication';
  if (/sterile|clean utility/i.test(pickup)) return 'supplies';
  const others: ItemCategory[] = ['supplies', 'linen', 'document', 'meal', 'medication'];
  return others[prng.int(0, others.length - 1)] ?? 'supplies';
}

/** 70 % routine, 20 % urgent, 10 % stat, as a hospital's requests are. */
export function priorityFor(prng: Prng): DeliveryPriority {
  const draw = prng.next();
  return draw < 0.7 ? 'routine' : draw < 0.9 ? 'urgent' : 'stat';
}

/** A wrong PIN of the same length: each digit one up. */
export const wrongPinFor = (pin: string): string => pin.replace(/\d/g, (digit) => String((Number(digit) + 1) % 10));

const describeError = (error: unknown) => (error instanceof Error ? error.message : String(error));

export function startDeliveryActivity(options: DeliveryActivityOptions): DeliveryActivity {
  const { admin } = options;
  const intervalMs = options.intervalMs ?? 15_000;
  const loadAfterMs = options.loadAfterMs ?? 20_000;
  const handoffAfterMs = options.handoffAfterMs ?? 30_000;
  const atRobotEvery = options.atRobotEvery ?? 3;
  const wrongPinEvery = options.wrongPinEvery ?? 4;
  const blockEvery = options.blockEvery ?? 12;
  const blockMs = options.blockMs ?? 20_000;
  const maxOpen = options.maxOpen ?? Math.max(1, Math.ceil(options.robots.length * 1.5));
  const log = options.logger ?? consoleLogger;
  const prng = createPrng(options.seed ?? 2305);
  const panels = new Map(options.robots.flatMap((robot) => (robot.panel ? [[robot.robotId, robot.panel] as const] : [])));

  /** PINs of the deliveries this run requested (shown once, in the create reply). */
  const pins = new Map<string, string>();
  /** When the demo first saw a delivery waiting, per delivery and what it waits for. */
  const waitingSeen = new Map<string, number>();
  /** Deliveries loaded or given their PIN by the demo: nothing more to do until the robot reports. */
  const done = new Set<string>();
  /** Hand-offs that began with a wrong PIN at the robot: the right one follows in the next round. */
  const wrongAtRobot = new Set<string>();
  let people: Person[] | undefined;
  let rooms: MapRoomChoice[] | undefined;
  let loadings = 0;
  let handoffs = 0;
  let rounds = 0;

  /** Who each person is and which rooms they see, once each; one who cannot sign in yet is tried again next round. */
  const knowPeople = async (): Promise<Person[]> => {
    const known = people ?? [];
    people = known;
    for (const api of options.people) {
      if (known.some((person) => person.api === api)) continue;
      try {
        const profile = await api.call(getMyProfile, SessionUser);
        const visible = new Set<string>();
        for (let offset = 0; ; offset += PAGE) {
          const page = await api.call(getRooms, RoomList, { query: { offset, limit: PAGE } });
          for (const room of page.data) visible.add(room.room_id);
          if (page.data.length < PAGE) break;
        }
        known.push({ api, userId: profile.sub, name: profile.name, rooms: visible });
      } catch (error) {
        log.warn({ err: describeError(error), username: api.login.username }, 'a demo sender could not sign in');
      }
    }
    return known;
  };

  /** Rooms with an entry point on the floors of the demo's delivery robots, once found (the site does not change under a demo). */
  const knowRooms = async (): Promise<MapRoomChoice[]> => {
    if (rooms && rooms.length > 0) return rooms;
    const mine = new Set(options.robots.map((robot) => robot.robotId));
    const floorIds = new Set((await listOrganizationRobots(admin)).filter((robot) => mine.has(robot.robot_id)).flatMap((robot) => (robot.floor_id ? [robot.floor_id] : [])));
    const found: MapRoomChoice[] = [];
    for (const floorId of [...floorIds].sort()) {
      try {
        const map = await admin.call(getFloorMapMetadata, FloorMapMetadata, { query: { floor_id: floorId } });
        for (const room of map.rooms) if (room.entry_point) found.push({ roomId: room.room_id, name: room.room_name, floorId });
      } catch (error) {
        if (!(error instanceof ApiCallError && error.status === 404)) throw error;
        // A floor without a plan: every room of it.
        const list = await admin.call(getRooms, RoomList, { query: { floor_id_list: [floorId], limit: PAGE } });
        for (const room of list.data) found.push({ roomId: room.room_id, name: room.room_name, floorId });
      }
    }
    rooms = found.sort((a, b) => a.floorId.localeCompare(b.floorId) || a.name.localeCompare(b.name));
    return rooms;
  };

  const openDemoDeliveries = async (): Promise<Delivery[]> => {
    const list = await admin.call(listDeliveries, DeliveryList, { query: { status: OPEN_STATUSES.map(String), limit: PAGE } });
    return list.payload.filter((delivery) => delivery.notes === DELIVERY_DEMO_NOTES);
  };

  const personOf = (all: Person[], userId: string | null) => all.find((person) => person.userId === userId);

  /** One new request: two rooms of one floor, a sender who sees the pickup, a recipient who sees the drop-off. */
  const request = async (): Promise<string | undefined> => {
    const all = await knowPeople();
    const choices = await knowRooms();
    const floors = [...new Set(choices.map((room) => room.floorId))];
    if (floors.length === 0 || all.length === 0) return undefined;
    const floorId = floors[prng.int(0, floors.length - 1)] ?? '';
    const [pickup, dropoff] = prng.shuffle(choices.filter((room) => room.floorId === floorId));
    if (!pickup || !dropoff) return undefined;
    const senders = all.filter((person) => person.rooms.has(pickup.roomId));
    const sender = senders[prng.int(0, senders.length - 1)];
    if (!sender) return undefined;
    const recipients = all.filter((person) => person !== sender && person.rooms.has(dropoff.roomId));
    const recipient = recipients.length > 0 ? recipients[prng.int(0, recipients.length - 1)] : undefined;
    const category = categoryFor(pickup.name, dropoff.name, prng);
    const kinds = CATALOGUE[category];
    const itemCount = Math.min(kinds.length, prng.int(1, 2));
    const items = prng.shuffle(kinds).slice(0, itemCount).map((item) => ({ description: item.description, category, quantity: prng.int(1, item.most) }));
    const priority = priorityFor(prng);
    const input: DeliveryInput = {
      pickup_room_id: pickup.roomId,
      dropoff_room_id: dropoff.roomId,
      items,
      priority,
      notes: DELIVERY_DEMO_NOTES,
      // A stat request is wanted within 20 minutes; the others whenever a robot is free.
      ...(priority === 'stat' ? { deliver_by: new Date(Date.now() + 20 * 60_000).toISOString() } : {}),
      // Without a recipient who may see the drop-off room, the ward takes it: a name, no user.
      ...(recipient ? { recipient_user_id: recipient.userId } : { recipient_name: `${dropoff.name} staff` }),
    };
    const created = await sender.api.call(createDelivery, CreatedDelivery, { body: input });
    pins.set(created.delivery_id, created.pin);
    return created.delivery_id;
  };

  const waitedLongEnough = (delivery: Delivery, limitMs: number): boolean => {
    const key = `${delivery.delivery_id}:${delivery.waiting_for ?? ''}`;
    const seen = waitingSeen.get(key) ?? Date.now();
    waitingSeen.set(key, seen);
    return Date.now() - seen >= limitMs;
  };

  const load = async (delivery: Delivery, all: Person[], round: DeliveryRound) => {
    const panel = delivery.robot_id ? panels.get(delivery.robot_id) : undefined;
    const atRobot = panel !== undefined && atRobotEvery > 0 && loadings % atRobotEvery === atRobotEvery - 1;
    if (atRobot) {
      // False while the robot is not (yet) waiting in its pick: tried again next round.
      if (!panel.confirmLoading()) return;
    } else {
      const sender = personOf(all, delivery.requested_by.user_id)?.api ?? admin;
      await sender.call(confirmLoading, DeliveryDetail, { params: { delivery_id: delivery.delivery_id } });
    }
    loadings += 1;
    done.add(`${delivery.delivery_id}:loading`);
    round.loaded.push({ deliveryId: delivery.delivery_id, at: atRobot ? 'robot' : 'console' });
  };

  const handOff = async (delivery: Delivery, all: Person[], round: DeliveryRound) => {
    const id = delivery.delivery_id;
    const pin = pins.get(id);
    if (pin === undefined) {
      // Requested before the demo restarted: nobody knows its PIN any more, so the admin takes it back.
      await admin.call(cancelDelivery, DeliveryDetail, { params: { delivery_id: id } });
      done.add(`${id}:recipient`);
      round.cancelled.push(id);
      return;
    }
    const panel = delivery.robot_id ? panels.get(delivery.robot_id) : undefined;
    const continuing = wrongAtRobot.has(id);
    const atRobot = continuing || (panel !== undefined && atRobotEvery > 0 && handoffs % atRobotEvery === atRobotEvery - 1);
    const wrongFirst = !continuing && wrongPinEvery > 0 && handoffs % wrongPinEvery === wrongPinEvery - 1;
    if (atRobot && panel) {
      if (wrongFirst) {
        if (panel.enterPin(wrongPinFor(pin)) === null) return;
        // The right PIN next round, once the robot has the server's answer to this one.
        wrongAtRobot.add(id);
        handoffs += 1;
        round.wrongPins.push(id);
        return;
      }
      if (panel.enterPin(pin) === null) return;
      wrongAtRobot.delete(id);
      if (!continuing) handoffs += 1;
      done.add(`${id}:recipient`);
      round.handedOff.push({ deliveryId: id, at: 'robot' });
      return;
    }
    const recipient = personOf(all, delivery.recipient_user_id)?.api ?? admin;
    if (wrongFirst) {
      try {
        await recipient.call(handoffDelivery, DeliveryDetail, { params: { delivery_id: id }, body: { pin: wrongPinFor(pin) } });
      } catch (error) {
        if (!(error instanceof ApiCallError && error.status === 409 && error.body.includes(DeliveryRefusal.wrongPin))) throw error;
      }
      round.wrongPins.push(id);
    }
    await recipient.call(handoffDelivery, DeliveryDetail, { params: { delivery_id: id }, body: { pin } });
    handoffs += 1;
    done.add(`${id}:recipient`);
    round.handedOff.push({ deliveryId: id, at: 'console' });
  };

  const roundNow = async (): Promise<DeliveryRound> => {
    const round: DeliveryRound = { created: [], loaded: [], handedOff: [], wrongPins: [], blocked: [], cancelled: [] };
    if (options.robots.length === 0) return round;
    rounds += 1;
    const all = await knowPeople();
    const open = await openDemoDeliveries();
    const openIds = new Set(open.map((delivery) => delivery.delivery_id));
    for (const key of [...waitingSeen.keys()]) if (!openIds.has(key.split(':')[0] ?? '')) waitingSeen.delete(key);

    for (const delivery of open) {
      if (schedule.stopped) break;
      if (delivery.status !== DeliveryStatus.waiting || !delivery.waiting_for) continue;
      if (done.has(`${delivery.delivery_id}:${delivery.waiting_for}`)) continue;
      try {
        if (delivery.waiting_for === 'loading' && waitedLongEnough(delivery, loadAfterMs)) await load(delivery, all, round);
        else if (delivery.waiting_for === 'recipient' && !delivery.handoff_locked && waitedLongEnough(delivery, handoffAfterMs)) await handOff(delivery, all, round);
      } catch (error) {
        log.warn({ err: describeError(error), deliveryId: delivery.delivery_id }, 'could not answer a waiting delivery robot');
      }
    }

    if (blockEvery > 0 && rounds % blockEvery === 0) {
      const moving = open.filter((delivery) => delivery.status === DeliveryStatus.inTransit && delivery.robot_id && panels.has(delivery.robot_id));
      const chosen = moving.length > 0 ? moving[prng.int(0, moving.length - 1)] : undefined;
      const panel = chosen?.robot_id ? panels.get(chosen.robot_id) : undefined;
      if (chosen?.robot_id && panel) {
        panel.blockPath(blockMs);
        round.blocked.push(chosen.robot_id);
        log.info({ robotId: chosen.robot_id, seconds: blockMs / 1000 }, 'a corridor is blocked in front of a delivery robot');
      }
    }

    if (!schedule.stopped && open.length < maxOpen) {
      try {
        const id = await request();
        if (id) round.created.push(id);
      } catch (error) {
        log.warn({ err: describeError(error), organization: admin.organization }, 'could not request a demo delivery');
      }
    }
    for (const id of [...done]) if (!openIds.has(id.split(':')[0] ?? '')) done.delete(id);
    for (const id of [...pins.keys()]) if (!openIds.has(id) && !round.created.includes(id)) pins.delete(id);
    return round;
  };

  /** Rounds never overlap: two at once could load or hand off one delivery twice. */
  const schedule = runRounds(roundNow, {
    intervalMs,
    firstRoundMs: options.firstRoundMs ?? 5000,
    onRound: (result) => {
      const changes = result.created.length + result.loaded.length + result.handedOff.length + result.cancelled.length;
      if (changes > 0) {
        const { created, loaded, handedOff, wrongPins, blocked, cancelled } = result;
        const counts = { created: created.length, loaded: loaded.length, handedOff: handedOff.length, wrongPins: wrongPins.length, blocked: blocked.length, cancelled: cancelled.length };
        log.info({ organization: admin.organization, ...counts }, 'demo deliveries');
      }
    },
    onError: (error) => {
      log.warn({ err: describeError(error), organization: admin.organization }, 'a demo delivery round failed');
    },
  });

  return { round: schedule.round, stop: schedule.stop };

}
