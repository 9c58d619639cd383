/**
 * Delivery test fixtures: an organization with a site whose robots are delivery robots (each with an MQTT password,
 * played by a delivery SimRobot over real MQTT), and deliveries put in the queue as the API does (row, items,
 * custody `requested`, delivery_change) for tests of the robot side that do not go through the API.
 */
import { randomBytes } from 'node:crypto';
import { and, asc, eq } from 'drizzle-orm';
import { SimRobot, type SimRobotOptions } from '@uvd/robot-sim';
import { type DeliveryPriority } from '@uvd/contracts';
import { deliveries, deliveryCustody, deliveryItems, robotCommands, robots } from '../db/schema.ts';
import { hashPin } from '../deliveries/handoff.ts';
import { publishDeliveryChange, recordCustody, type CustodyRow, type DeliveryRow } from '../deliveries/lifecycle.ts';
import { hashPassword } from '../identity/passwords.ts';
import { connectTestRobot, type TestRobot } from './fleet-fixtures.ts';
import type { TestServer, TestUser } from './harness.ts';
import { waitUntil } from './execution-fixtures.ts';
import { createSite, type Site, type SiteOptions } from './site-fixtures.ts';

export interface DeliveryRobot {
  id: string;
  manufacturer: string;
  serialNumber: string;
  password: string;
}

export interface DeliveryWorld {
  orgId: string;
  admin: TestUser;
  site: Site;
  /** Room ids of every floor, first floor first. */
  roomIds: string[];
  robots: DeliveryRobot[];
}

/** An organization with a site (`robots` delivery robots on its first floor, homes along y = -2) and an admin. */
export async function deliveryWorld(server: TestServer, options: SiteOptions = {}): Promise<DeliveryWorld> {
  const orgId = await server.createOrg('dlv');
  const groupId = await server.createGroup(orgId);
  const site = await createSite(server.context.db, orgId, { roomsPerFloor: 3, robots: 2, ...options, groupIds: [groupId] });
  const admin = await server.createUser(orgId, ['done-admin']);
  const list: DeliveryRobot[] = [];
  for (const [index, robotId] of site.robotIds.entries()) {
    const password = `mqtt-${randomBytes(8).toString('hex')}`;
    const [row] = await server.context.db
      .update(robots)
      .set({ kind: 'delivery', home: { x: index * 10, y: -2, theta: 0 }, mqttPasswordHash: await hashPassword(password) })
      .where(eq(robots.id, robotId))
      .returning({ manufacturer: robots.manufacturer, serialNumber: robots.serialNumber });
    if (!row) throw new Error('robot missing');
    list.push({ id: robotId, ...row, password });
  }
  return { orgId, admin, site, roomIds: site.floors.flatMap((floor) => floor.roomIds), robots: list };
}

/**
 * The world's delivery robot `robot` played by a SimRobot of kind delivery (home where its row says, on the first
 * floor), started and seen Autonomous by the gateway. It joins `sims`, which the caller stops after its tests.
 */
export async function playDeliveryRobot(
  server: TestServer,
  world: DeliveryWorld,
  robot: DeliveryRobot,
  sims: SimRobot[],
  options: Partial<Omit<SimRobotOptions, 'manufacturer' | 'serialNumber'>> = {},
): Promise<SimRobot> {
  const index = world.robots.indexOf(robot);
  const sim = new SimRobot({
    brokerUrl: server.context.fleet.brokerUrl,
    password: robot.password,
    kind: 'delivery',
    home: { x: index * 10, y: -2, theta: 0 },
    mapId: world.site.floors[0]?.id ?? '',
    timeFactor: 20,
    stateIntervalMs: 200,
    tickMs: 20,
    drawerOpenSeconds: 2,
    ...options,
    manufacturer: robot.manufacturer,
    serialNumber: robot.serialNumber,
  });
  sims.push(sim);
  await sim.start();
  await waitUntil(async () => (server.context.fleet.link(robot.id)?.mode === 2 ? true : undefined), 5000, 'the robot online in Autonomous mode');
  return sim;
}

/**
 * The world's delivery robot `robot` as a raw MQTT client (the test decides what it reports and when it takes what
 * it is sent): online, Automatic, charged, idle, seen Autonomous by the gateway. It joins `clients`, which the
 * caller closes after its tests.
 */
export async function connectDeliveryRobot(server: TestServer, world: DeliveryWorld, clients: TestRobot[], robot: DeliveryRobot): Promise<TestRobot> {
  const client = await connectTestRobot({
    brokerUrl: server.context.fleet.brokerUrl,
    manufacturer: robot.manufacturer,
    serialNumber: robot.serialNumber,
    username: `${robot.manufacturer}/${robot.serialNumber}`,
    password: robot.password,
  });
  clients.push(client);
  const floorId = world.site.floors[0]?.id ?? '';
  await client.publishState({ agvPosition: { x: 0, y: -2, theta: 0, mapId: floorId, positionInitialized: true }, batteryState: { batteryCharge: 90, charging: false } });
  await waitUntil(async () => (server.context.fleet.link(robot.id)?.mode === 2 ? true : undefined), 5000, 'the robot online in Autonomous mode');
  return client;
}

export interface QueuedDeliveryOptions {
  pickupRoomId: string;
  dropoffRoomId: string;
  priority?: DeliveryPriority;
  pin?: string;
  createdAt?: Date;
  requestedBy?: TestUser;
}

/** A Queued delivery as POST /deliveries makes it: the row, its item, custody `requested` and its delivery_change. */
export async function queueDelivery(server: TestServer, orgId: string, options: QueuedDeliveryOptions): Promise<DeliveryRow> {
  const pinHash = await hashPin(options.pin ?? '1234');
  return server.context.db.transaction(async (tx) => {
    const [row] = await tx
      .insert(deliveries)
      .values({
        orgId,
        pickupRoomId: options.pickupRoomId,
        dropoffRoomId: options.dropoffRoomId,
        priority: options.priority ?? 'routine',
        requestedById: options.requestedBy?.id ?? null,
        requestedByName: options.requestedBy?.username ?? 'Ward 3 nurse',
        recipientName: 'Lab',
        pinHash,
        ...(options.createdAt ? { createdAt: options.createdAt, updatedAt: options.createdAt } : {}),
      })
      .returning();
    if (!row) throw new Error('delivery not created');
    await tx.insert(deliveryItems).values({ deliveryId: row.id, position: 0, description: 'Blood samples', category: 'specimen', quantity: 2 });
    await recordCustody(tx, row, 'requested', { at: row.createdAt, user: { userId: row.requestedById, name: row.requestedByName } });
    await publishDeliveryChange(server.context, tx, row);
    return row;
  });
}

export async function readDelivery(server: TestServer, deliveryId: string): Promise<DeliveryRow> {
  const [row] = await server.context.db.select().from(deliveries).where(eq(deliveries.id, deliveryId));
  if (!row) throw new Error(`delivery ${deliveryId} missing`);
  return row;
}

export async function custodyOf(server: TestServer, deliveryId: string): Promise<CustodyRow[]> {
  return server.context.db.select().from(deliveryCustody).where(eq(deliveryCustody.deliveryId, deliveryId)).orderBy(asc(deliveryCustody.id));
}

/** Waits until the delivery satisfies `predicate` (read from the database); returns it. */
export async function waitForDelivery(
  server: TestServer,
  deliveryId: string,
  predicate: (row: DeliveryRow) => boolean,
  what: string,
  timeoutMs = 15_000,
): Promise<DeliveryRow> {
  try {
    return await waitUntil(
      async () => {
        const row = await readDelivery(server, deliveryId);
        return predicate(row) ? row : undefined;
      },
      timeoutMs,
      what,
    );
  } catch (error) {
    throw new Error(`${error instanceof Error ? error.message : String(error)}\n${await deliveryReport(server, deliveryId)}`, { cause: error });
  }
}

/**
 * What a delivery test that timed out needs to tell why: the delivery's row, its chain of custody, its robot
 * commands, and what the gateway knows of the organization's robots.
 */
async function deliveryReport(server: TestServer, deliveryId: string): Promise<string> {
  const row = await readDelivery(server, deliveryId);
  const custody = await custodyOf(server, deliveryId);
  const commands = await server.context.db
    .select({ robotId: robotCommands.robotId, kind: robotCommands.kind, state: robotCommands.state, attempts: robotCommands.attempts, givenUpReason: robotCommands.givenUpReason })
    .from(robotCommands)
    .where(eq(robotCommands.deliveryId, deliveryId));
  const fleet = (await server.context.db.select({ id: robots.id, name: robots.name }).from(robots).where(eq(robots.orgId, row.orgId))).map((robot) => {
    const link = server.context.fleet.link(robot.id);
    return {
      ...robot,
      online: server.context.fleet.isOnline(robot.id),
      link: link && { mode: link.mode, battery: link.battery, errors: link.errors, order: link.work?.order, lastOrderId: link.lastNode?.orderId },
    };
  });
  const { status, robotId, dispatchAttempts, reason } = row;
  return [
    `delivery: ${JSON.stringify({ status, robotId, dispatchAttempts, reason })}`,
    `custody: ${JSON.stringify(custody.map((step) => [step.step, step.robotId, step.detail]))}`,
    `commands: ${JSON.stringify(commands)}`,
    `robots: ${JSON.stringify(fleet)}`,
  ].join('\n');
}

/** The deliveries the robot carries or holds now. */
export async function deliveriesOfRobot(server: TestServer, robotId: string): Promise<DeliveryRow[]> {
  return server.context.db.select().from(deliveries).where(and(eq(deliveries.robotId, robotId)));
}
