/**
 * Execution test fixtures: an organization with a site, users and a job made through the API, the world's robot
 * played by a SimRobot over real MQTT, and VDA 5050 state messages about a job (as a robot reports them).
 */
import { randomBytes } from 'node:crypto';
import { asc, eq } from 'drizzle-orm';
import { SimRobot, type SimRobotOptions } from '@uvd/robot-sim';
import { Job, StateMessage, UVD_DOSE_INFO_TYPE, type ActionState, type VdaInformation } from '@uvd/contracts';
import { lampIntervals, robots } from '../db/schema.ts';
import { disinfectActionId, parseDisinfectActionId } from '../robot-link/order.ts';
import type { FleetRobot } from '../robot-link/fleet.ts';
import { hashPassword } from '../identity/passwords.ts';
import type { TestServer, TestUser } from './harness.ts';
import { baseState } from './fleet-fixtures.ts';
import { createSite, type Site } from './site-fixtures.ts';

export interface ExecutionWorld {
  orgId: string;
  admin: TestUser;
  operator: TestUser;
  site: Site;
  robotId: string;
  roomIds: string[];
  floorId: string;
  robot: FleetRobot;
  /** The robot's MQTT password for the embedded broker. */
  mqttPassword: string;
}

/** An organization with one floor of `rooms` rooms and a robot (home at the origin), an admin and a teleoperator of its group. */
export async function executionWorld(server: TestServer, rooms = 3): Promise<ExecutionWorld> {
  const orgId = await server.createOrg('exec');
  const groupId = await server.createGroup(orgId);
  const site = await createSite(server.context.db, orgId, { roomsPerFloor: rooms, robots: 1, groupIds: [groupId] });
  const admin = await server.createUser(orgId, ['done-admin']);
  const operator = await server.createUser(orgId, ['done-teleoperator'], { groupIds: [groupId] });
  const robotId = site.robotIds[0] ?? '';
  const mqttPassword = `mqtt-${randomBytes(8).toString('hex')}`;
  const [row] = await server.context.db
    .update(robots)
    .set({ home: { x: 0, y: -2, theta: 0 }, mqttPasswordHash: await hashPassword(mqttPassword) })
    .where(eq(robots.id, robotId))
    .returning({ manufacturer: robots.manufacturer, serialNumber: robots.serialNumber });
  if (!row) throw new Error('robot missing');
  return {
    orgId,
    admin,
    operator,
    site,
    robotId,
    roomIds: site.floors[0]?.roomIds ?? [],
    floorId: site.floors[0]?.id ?? '',
    robot: { robotId, orgId, manufacturer: row.manufacturer, serialNumber: row.serialNumber },
    mqttPassword,
  };
}

/** A Scheduled job of the world's robot over its rooms, made through the jobs API. */
export async function createJobFor(
  server: TestServer,
  world: ExecutionWorld,
  options: { startTime?: Date; roomIds?: string[]; dose?: number } = {},
): Promise<Job> {
  const roomIds = options.roomIds ?? world.roomIds;
  const response = await server.request('POST', `/api/jobs/jobs/${world.robotId}`, {
    token: world.admin.token,
    body: {
      name: 'Ward round',
      start_time: (options.startTime ?? new Date(Date.now() + 24 * 3600_000)).toISOString(),
      rooms: roomIds.map((room_id, order_no) => ({ room_id, order_no, dose: options.dose ?? 10 })),
    },
  });
  if (response.status !== 200) throw new Error(`job not created: ${response.status} ${JSON.stringify(response.body)}`);
  return Job.parse(response.body);
}

let headerId = 0;

/** A state message of the world's robot; `orderId` defaults to none. */
export function robotState(world: ExecutionWorld, overrides: Partial<StateMessage> = {}): StateMessage {
  headerId += 1;
  return StateMessage.parse({ ...baseState(world.robot.manufacturer, world.robot.serialNumber), headerId, ...overrides });
}

export const disinfectState = (
  jobId: string,
  orderNo: number,
  actionStatus: ActionState['actionStatus'],
  resultDescription?: string,
): ActionState => ({
  actionId: disinfectActionId(jobId, orderNo),
  actionType: 'uvd_disinfect',
  actionStatus,
  ...(resultDescription ? { resultDescription } : {}),
});

export const promptInfo = (promptId: string, button: string, roomId: string): VdaInformation => ({
  infoType: 'uvd_operator_prompt',
  infoLevel: 'INFO',
  infoDescription: button,
  infoReferences: [
    { referenceKey: 'prompt_id', referenceValue: promptId },
    { referenceKey: 'button', referenceValue: button },
    { referenceKey: 'room_id', referenceValue: roomId },
  ],
});

/** Whether an MQTT broker answers on host:port (Mosquitto runs on 127.0.0.1:1883 here and in CI). */
export async function brokerAnswers(host = '127.0.0.1', port = 1883, timeoutMs = 500): Promise<boolean> {
  const { connect } = await import('node:net');
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (answer: boolean) => {
      socket.destroy();
      resolve(answer);
    };
    socket.setTimeout(timeoutMs, () => {
      done(false);
    });
    socket.once('connect', () => {
      done(true);
    });
    socket.once('error', () => {
      done(false);
    });
  });
}

/** Polls `check` until it returns a value, for conditions seen only through the API or the database. */
export async function waitUntil<T>(check: () => Promise<T | undefined>, timeoutMs = 15_000, what = 'a condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}.`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Where the world's robot is docked when a SimRobot plays it. */
export const SIM_HOME = { x: 0, y: -2, theta: 0 };

/**
 * The world's robot played by a SimRobot over real MQTT (the test server's broker unless `brokerUrl` says
 * otherwise), started and seen Autonomous by the gateway. It joins `sims`, which the caller stops after its tests.
 */
export async function playWorldRobot(
  server: TestServer,
  world: ExecutionWorld,
  sims: SimRobot[],
  options: Partial<Omit<SimRobotOptions, 'manufacturer' | 'serialNumber' | 'mapId'>> = {},
): Promise<SimRobot> {
  const sim = new SimRobot({
    brokerUrl: server.context.fleet.brokerUrl,
    password: world.mqttPassword,
    home: SIM_HOME,
    timeFactor: 60,
    stateIntervalMs: 200,
    tickMs: 20,
    ...options,
    manufacturer: world.robot.manufacturer,
    serialNumber: world.robot.serialNumber,
    mapId: world.floorId,
  });
  sims.push(sim);
  await sim.start();
  await waitUntil(async () => (server.context.fleet.link(world.robotId)?.mode === 2 ? true : undefined), 5000, 'the robot online in Autonomous mode');
  return sim;
}

/** A lamp-on interval: the room's order number, from and to (ISO; to null while the lamp is on). */
export interface LampOn {
  order: number;
  from: string;
  to: string | null;
}

/**
 * The job's lamp-on intervals as the robot's published states show them: from the first state with a room's
 * uvd_disinfect RUNNING and the robot not paused, to the first state without (or the room's end, when that state
 * reports it ended earlier).
 */
export function lampIntervalsInStates(states: readonly StateMessage[], jobId: string): LampOn[] {
  const intervals: LampOn[] = [];
  const open = new Map<number, LampOn>();
  for (const state of states) {
    const lit = new Set(
      state.orderId === jobId && state.paused !== true
        ? state.actionStates.flatMap((action) => {
            const parsed = parseDisinfectActionId(action.actionId);
            return action.actionStatus === 'RUNNING' && parsed?.jobId === jobId ? [parsed.orderNo] : [];
          })
        : [],
    );
    for (const order of lit) {
      if (open.has(order)) continue;
      const interval = { order, from: state.timestamp, to: null };
      open.set(order, interval);
      intervals.push(interval);
    }
    for (const [order, interval] of open) {
      if (lit.has(order)) continue;
      // A room that ended says when its lamp went off for good (its dose entry's ended_at).
      const endedAt = (state.information ?? [])
        .find((info) => info.infoType === UVD_DOSE_INFO_TYPE && info.infoReferences?.some((ref) => ref.referenceKey === 'action_id' && ref.referenceValue === disinfectActionId(jobId, order)))
        ?.infoReferences?.find((ref) => ref.referenceKey === 'ended_at')?.referenceValue;
      interval.to = endedAt !== undefined && Date.parse(endedAt) < Date.parse(state.timestamp) ? endedAt : state.timestamp;
      open.delete(order);
    }
  }
  return intervals;
}

/** The job's lamp-on intervals as recorded (lamp_intervals), oldest first. */
export async function recordedLampIntervals(server: TestServer, jobId: string): Promise<LampOn[]> {
  const rows = await server.context.db.select().from(lampIntervals).where(eq(lampIntervals.jobId, jobId)).orderBy(asc(lampIntervals.id));
  return rows.map((row) => ({ order: row.orderNo, from: row.startedAt.toISOString(), to: row.endedAt?.toISOString() ?? null }));
}
