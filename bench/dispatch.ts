/**
 * Dispatch of deliveries: from a delivery's request (`POST /api/deliveries`) to its VDA 5050 order arriving at a
 * delivery robot over MQTT, p50/p99, at 50 delivery robots and 500 deliveries, beside the same server's jobs-list
 * p50 measured in the same run (idle, and while it dispatches).
 *
 *   npm run bench:dispatch -- [--robots 50] [--deliveries 500] [--concurrency 10] [--list-every-ms 100]
 *   TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npm run bench:dispatch      # on PostgreSQL
 *
 * One process: the real server (test harness: Fastify, the embedded broker, the gateway, the dispatcher; PGlite in
 * memory, or a fresh database on TEST_DATABASE_URL) on loopback, one floor of 20 rooms, and --robots delivery
 * robots played by lightweight MQTT clients (`connectTestRobot` of apps/server/src/testing/fleet-fixtures.ts): each
 * is ONLINE, AUTOMATIC, charged to 90 %, on the floor, reports its state every second, accepts an order by reporting
 * its orderId and nodes, and answers instant actions FINISHED (cancelOrder ends its order). Order arrival is timed
 * on the robot's own client, the request before it is sent, on one clock.
 *
 * The deliveries are requested --concurrency at a time, so up to 500 are Queued while 50 robots are busy. A robot
 * that received an order frees itself as fast as the API allows: the bench cancels that delivery (the robot is told
 * cancelOrder, ends its order and reports it), and the dispatcher gives it the next Queued one. So:
 * - "request → order" is what a sender waits for, queueing behind busy robots included;
 * - "requested and a robot free → order" is the dispatcher's own part: from the later of the delivery's request
 *   and its robot becoming free (the bench sending the cancel of the robot's last delivery) to the order at the
 *   robot: the cancel's request, the cancelOrder through the outbox, the robot reporting it taken and its order
 *   over (only then is the robot free to the dispatcher), the dispatch and the new order through the outbox;
 * - "POST /api/deliveries" is the request's own reply time.
 *
 * Needs the deliveries API and the dispatcher (apps/server/src/deliveries, robot-link/deliveries): without them it
 * stops with a message saying what is missing. Prints figures; never fails on them.
 */
import { parseArgs } from 'node:util';
import { eq } from 'drizzle-orm';
import { CreatedDelivery, InstantActionsMessage, OrderMessage, VdaInstantAction, vdaTopic, type ActionState, type DeliveryInput } from '@uvd/contracts';
import { deliveries, robotCommands, robots } from '../apps/server/src/db/schema.ts';
import { hashPassword } from '../apps/server/src/identity/passwords.ts';
import { waitUntil } from '../apps/server/src/testing/execution-fixtures.ts';
import { connectTestRobot, type TestRobot } from '../apps/server/src/testing/fleet-fixtures.ts';
import { startTestServer } from '../apps/server/src/testing/harness.ts';
import { createSite } from '../apps/server/src/testing/site-fixtures.ts';

const { values: args } = parseArgs({
  options: {
    robots: { type: 'string', default: '50' },
    deliveries: { type: 'string', default: '500' },
    concurrency: { type: 'string', default: '10' },
    'list-every-ms': { type: 'string', default: '100' },
  },
});
const ROBOTS = Number(args.robots);
const DELIVERIES = Number(args.deliveries);
const CONCURRENCY = Number(args.concurrency);
const LIST_EVERY_MS = Number(args['list-every-ms']);
const ROOMS = 20;
/** No order at all this long after the first request: this build does not dispatch. */
const FIRST_ORDER_LIMIT_MS = 20_000;
/** No new order this long: dispatch stalled; the figures so far are printed. */
const STALL_LIMIT_MS = 30_000;
const MANUFACTURER = 'uvd-bench';

class BenchStop extends Error {}

interface Summary {
  n: number;
  p50: number;
  p99: number;
  max: number;
}

function summary(values: number[]): Summary {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? Number.NaN;
  return { n: sorted.length, p50: at(0.5), p99: at(0.99), max: sorted.at(-1) ?? Number.NaN };
}

interface BenchRobot {
  id: string;
  serial: string;
  sim: TestRobot;
  /** When the bench sent the cancel of its last delivery, while it waits for the next order. */
  freeSince: number | undefined;
  orders: number;
}

async function main(): Promise<void> {
  console.log(`bench/dispatch: ${ROBOTS} delivery robots, ${DELIVERIES} deliveries (${CONCURRENCY} requests at a time), ${process.env.TEST_DATABASE_URL ? 'PostgreSQL' : 'PGlite'}`);
  const server = await startTestServer();
  const heartbeats: NodeJS.Timeout[] = [];
  const fleet: BenchRobot[] = [];
  try {
    const { db } = server.context;
    const orgId = await server.createOrg('dispatch');
    const site = await createSite(db, orgId, { floors: 1, roomsPerFloor: ROOMS, robots: 0 });
    const floor = site.floors[0];
    if (!floor) throw new Error('no floor');
    const admin = await server.createUser(orgId, ['done-admin']);

    // Is there a deliveries API at all? A request with no rooms is refused 400 by it, 404 without it.
    const probe = await server.request('POST', '/api/deliveries', { token: admin.token, body: {} });
    if (probe.status === 404) throw new BenchStop('this build has no deliveries API (POST /api/deliveries answers 404): merge apps/server/src/deliveries first.');

    // The robots: delivery robots along the corridor of the floor, one password for all (argon2id once).
    const password = 'bench-dispatch-robot';
    const passwordHash = await hashPassword(password);
    const rows = await db
      .insert(robots)
      .values(
        Array.from({ length: ROBOTS }, (_, index) => {
          const home = { x: (index % ROOMS) * 5 + 2, y: 0, theta: 0 };
          return { orgId, name: `DLV-${index + 1}`, manufacturer: MANUFACTURER, serialNumber: `dlv-${orgId}-${index + 1}`, kind: 'delivery' as const, floorId: floor.id, home, pose: home, mqttPasswordHash: passwordHash };
        }),
      )
      .returning({ id: robots.id, serialNumber: robots.serialNumber, pose: robots.pose });

    /** Order arrival per delivery (orderId = delivery id), on the robot's client. */
    const orderAt = new Map<string, number>();
    /** Each order with when its robot was last made free (the cancel sent; undefined for its first order). */
    const orders: { deliveryId: string; at: number; robotFreeSince: number | undefined }[] = [];
    const cancels: Promise<{ status: number }>[] = [];
    let lastOrderAt = 0;
    for (const row of rows) {
      const sim = await connectTestRobot({
        brokerUrl: server.context.fleet.brokerUrl,
        manufacturer: MANUFACTURER,
        serialNumber: row.serialNumber,
        username: `${MANUFACTURER}/${row.serialNumber}`,
        password,
      });
      const robot: BenchRobot = { id: row.id, serial: row.serialNumber, sim, freeSince: undefined, orders: 0 };
      fleet.push(robot);
      const position = { x: row.pose?.x ?? 0, y: row.pose?.y ?? 0, theta: 0, mapId: floor.id, positionInitialized: true };
      sim.state = { ...sim.state, agvPosition: position, batteryState: { batteryCharge: 90, charging: false } };
      sim.client.on('message', (topic, payload) => {
        const now = performance.now();
        if (topic === vdaTopic(MANUFACTURER, row.serialNumber, 'order')) {
          const order = OrderMessage.parse(JSON.parse(payload.toString('utf8')));
          if (orderAt.has(order.orderId)) return; // an order update of a delivery it has
          orderAt.set(order.orderId, now);
          robot.orders += 1;
          lastOrderAt = now;
          orders.push({ deliveryId: order.orderId, at: now, robotFreeSince: robot.freeSince });
          robot.freeSince = undefined;
          // Accepted: the robot reports the order and its nodes, as a robot starting it does.
          void sim.publishState({
            orderId: order.orderId,
            orderUpdateId: order.orderUpdateId,
            nodeStates: order.nodes.map((node) => ({ nodeId: node.nodeId, sequenceId: node.sequenceId, released: node.released })),
            actionStates: order.nodes.flatMap((node) => node.actions.map((action): ActionState => ({ actionId: action.actionId, actionType: action.actionType, actionStatus: 'WAITING' }))),
          });
          // The sender takes it back at once, which frees the robot for the next delivery.
          robot.freeSince = performance.now();
          cancels.push(server.request('POST', `/api/deliveries/${order.orderId}/cancel`, { token: admin.token }));
          if (orderAt.size % 100 === 0) console.log(`  ${orderAt.size} deliveries dispatched`);
        } else if (topic === vdaTopic(MANUFACTURER, row.serialNumber, 'instantActions')) {
          const { actions } = InstantActionsMessage.parse(JSON.parse(payload.toString('utf8')));
          const ending = actions.some((action) => action.actionType === VdaInstantAction.cancel);
          const finished = actions.map((action): ActionState => ({ actionId: action.actionId, actionType: action.actionType, actionStatus: 'FINISHED' }));
          const failed = ending ? sim.state.actionStates.filter((state) => state.actionStatus === 'WAITING').map((state): ActionState => ({ ...state, actionStatus: 'FAILED' })) : [];
          void sim.publishState({ ...(ending ? { nodeStates: [], edgeStates: [] } : {}), actionStates: [...failed, ...finished] });
        }
      });
      await sim.publishState();
      heartbeats.push(setInterval(() => void sim.publishState().catch(() => undefined), 1000));
    }
    await waitUntil(
      async () => (fleet.every((robot) => server.context.fleet.link(robot.id)?.mode === 2) ? true : undefined),
      30_000,
      'every bench robot online in Autonomous mode',
    );
    console.log(`  ${fleet.length} robots online`);
    const robotsOnlineAt = performance.now();

    // Baseline: the jobs list of the same server, idle.
    const listOnce = async () => {
      const started = performance.now();
      const response = await server.request('GET', '/api/jobs/v2/jobs', { token: admin.token, query: { limit: 10 } });
      if (response.status !== 200) throw new Error(`jobs list answered ${response.status}`);
      return performance.now() - started;
    };
    const listIdle: number[] = [];
    for (let round = 0; round < 200; round++) listIdle.push(await listOnce());

    // The deliveries, CONCURRENCY at a time; the jobs list keeps being read while they are dispatched.
    const requestedAt = new Map<string, number>();
    const createMs: number[] = [];
    const listBusy: number[] = [];
    let listing = true;
    const lister = (async () => {
      while (listing) {
        listBusy.push(await listOnce());
        await new Promise((resolve) => setTimeout(resolve, LIST_EVERY_MS));
      }
    })();
    let next = 0;
    const requester = async () => {
      while (next < DELIVERIES) {
        const n = next++;
        const pickup = site.floors[0]?.roomIds[n % ROOMS] ?? '';
        const dropoff = site.floors[0]?.roomIds[(n * 7 + 3) % ROOMS === n % ROOMS ? (n + 1) % ROOMS : (n * 7 + 3) % ROOMS] ?? '';
        const body: DeliveryInput = {
          pickup_room_id: pickup,
          dropoff_room_id: dropoff,
          items: [{ description: 'Blood samples', category: 'specimen', quantity: 1 + (n % 4) }],
          priority: n % 10 === 0 ? 'stat' : n % 4 === 0 ? 'urgent' : 'routine',
        };
        const started = performance.now();
        const response = await server.request('POST', '/api/deliveries', { token: admin.token, body });
        if (response.status !== 201) throw new Error(`POST /api/deliveries answered ${response.status}: ${JSON.stringify(response.body)}`);
        createMs.push(performance.now() - started);
        requestedAt.set(CreatedDelivery.parse(response.body).delivery_id, started);
      }
    };
    const firstRequestAt = performance.now();
    const requesting = Promise.all(Array.from({ length: CONCURRENCY }, requester));
    requesting.catch(() => undefined);
    try {
      while (orderAt.size < DELIVERIES) {
        const now = performance.now();
        if (orderAt.size === 0 && now - firstRequestAt > FIRST_ORDER_LIMIT_MS)
          throw new BenchStop(
            `no delivery reached a robot within ${FIRST_ORDER_LIMIT_MS / 1000} s of the first request, with ${fleet.length} free delivery robots online: ` +
              'this build does not dispatch (merge the dispatcher, apps/server/src/robot-link/deliveries, first).',
          );
        if (orderAt.size > 0 && now - lastOrderAt > STALL_LIMIT_MS)
          throw new BenchStop(`dispatch stalled: no order for ${STALL_LIMIT_MS / 1000} s after ${orderAt.size} of ${DELIVERIES}.`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    } catch (error) {
      if (!(error instanceof BenchStop) || orderAt.size === 0) throw error;
      // What the server holds of the deliveries not at a robot: their status, robot and that robot's open commands.
      const missing = await db
        .select({ id: deliveries.id, status: deliveries.status, robotId: deliveries.robotId, attempts: deliveries.dispatchAttempts })
        .from(deliveries)
        .where(eq(deliveries.orgId, orgId));
      const commands = await db.select({ robotId: robotCommands.robotId, deliveryId: robotCommands.deliveryId, kind: robotCommands.kind, state: robotCommands.state, reason: robotCommands.givenUpReason }).from(robotCommands);
      for (const row of missing.filter((delivery) => !orderAt.has(delivery.id))) {
        const robot = fleet.find((candidate) => candidate.id === row.robotId);
        const of = commands.filter((command) => command.deliveryId === row.id).map((command) => `${command.kind}:${command.state}${command.reason ? `(${command.reason})` : ''}`);
        console.warn(`  not at a robot: ${row.id} status ${row.status}, dispatches ${row.attempts}, robot ${robot?.serial ?? '-'}, commands [${of.join(' ')}]`);
      }
      const online = fleet.filter((robot) => server.context.fleet.isOnline(robot.id));
      const autonomous = online.filter((robot) => server.context.fleet.link(robot.id)?.mode === 2);
      console.warn(
        `  ${error.message} The server sees ${online.length} of ${fleet.length} robots online, ${autonomous.length} of them Autonomous; ` +
          `${fleet.filter((robot) => robot.orders === 0).length} robots never got an order. The figures below are of what was dispatched.`,
      );
    }
    await requesting;
    listing = false;
    await lister;
    const cancelled = await Promise.allSettled(cancels);
    const refused = cancelled.flatMap((result) => (result.status === 'fulfilled' ? (result.value.status === 200 ? [] : [String(result.value.status)]) : ['error']));

    const waits = [...orderAt.entries()].flatMap(([id, at]) => {
      const requested = requestedAt.get(id);
      return requested === undefined ? [] : [at - requested];
    });
    // The dispatcher's own part: from the moment both the delivery was requested and its robot was free (its last
    // delivery's cancel sent; online for its first) to the order, so neither queueing nor a lack of requests counts.
    const dispatchLatency = orders.flatMap((order) => {
      const requested = requestedAt.get(order.deliveryId);
      return requested === undefined ? [] : [order.at - Math.max(requested, order.robotFreeSince ?? robotsOnlineAt)];
    });
    const rowsOut: [string, Summary][] = [
      ['request → order at the robot (queueing included)', summary(waits)],
      ['requested and a robot free → order (dispatch)', summary(dispatchLatency)],
      ['POST /api/deliveries (reply)', summary(createMs)],
      ['jobs list, idle (baseline)', summary(listIdle)],
      ['jobs list, while dispatching', summary(listBusy)],
    ];
    const fmt = (value: number) => (Number.isNaN(value) ? '–' : value.toFixed(1));
    console.log(`\n| ${ROBOTS} robots, ${DELIVERIES} deliveries | n | p50 ms | p99 ms | max ms |`);
    console.log('|---|---|---|---|---|');
    for (const [name, figures] of rowsOut) console.log(`| ${name} | ${figures.n} | ${fmt(figures.p50)} | ${fmt(figures.p99)} | ${fmt(figures.max)} |`);
    console.log(`\n${orderAt.size} of ${DELIVERIES} deliveries reached a robot; ${fleet.filter((robot) => robot.orders > 0).length} robots took some.`);
    console.log(`${cancelled.length - refused.length} of ${cancelled.length} cancels answered 200${refused.length > 0 ? `; the others: ${refused.join(', ')}` : ''}.`);
  } finally {
    for (const timer of heartbeats) clearInterval(timer);
    await Promise.allSettled(fleet.map((robot) => robot.sim.close()));
    await server.close();
  }
}

main().catch((error: unknown) => {
  if (error instanceof BenchStop) {
    console.error(`bench:dispatch cannot run on this build: ${error.message}`);
  } else console.error(error);
  process.exitCode = 1;
});
