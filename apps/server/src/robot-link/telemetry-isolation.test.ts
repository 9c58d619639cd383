/**
 * Job execution must not hold up a robot's telemetry: the gateway hands each state to the job runner's own queue
 * and goes on, so pose and battery updates reach the console while a job write of the same robot waits.
 */
import { and, eq } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RobotUpdate, type SseFrame } from '@uvd/contracts';
import { jobRooms, jobs } from '../db/schema.ts';
import { createJobFor, disinfectState, executionWorld, waitUntil, type ExecutionWorld } from '../testing/execution-fixtures.ts';
import { connectTestRobot, type TestRobot } from '../testing/fleet-fixtures.ts';
import { startTestServer, type TestServer } from '../testing/harness.ts';
import { openSse, type SseClient } from '../testing/live-fixtures.ts';
import { testEngine } from '../testing/test-database.ts';

let server: TestServer;
const robots: TestRobot[] = [];
const streams: SseClient[] = [];

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  for (const robot of robots) await robot.close().catch(() => undefined);
  for (const stream of streams) stream.close();
  await server.close();
});

const isUpdate = (check: (update: RobotUpdate) => boolean) => (frame: SseFrame) =>
  frame.event === 'robot_update' && check(RobotUpdate.parse(JSON.parse(frame.data)));

/** The world's robot connected over MQTT, on a Running job, and an admin's robot stream. */
async function runningJob(): Promise<{ w: ExecutionWorld; jobId: string; robot: TestRobot; stream: SseClient }> {
  const w = await executionWorld(server);
  const job = await createJobFor(server, w);
  await server.context.db
    .update(jobs)
    .set({ status: 'Running', activeState: 'disinfecting', startedAt: new Date() })
    .where(eq(jobs.id, job.job_id));
  const stream = await openSse(server.url, '/api/robot/stream', { token: w.admin.token, query: { robot_list: w.robotId } });
  streams.push(stream);
  const robot = await connectTestRobot({
    brokerUrl: server.context.fleet.brokerUrl,
    manufacturer: w.robot.manufacturer,
    serialNumber: w.robot.serialNumber,
    username: `${w.robot.manufacturer}/${w.robot.serialNumber}`,
    password: w.mqttPassword,
  });
  robots.push(robot);
  return { w, jobId: job.job_id, robot, stream };
}

const at = (floorId: string, x: number) => ({ x, y: -2, theta: 0, mapId: floorId, positionInitialized: true });

/** Publishes `count` states that move the robot and drain its battery; each must reach the stream in time. */
async function telemetryFlows(robot: TestRobot, stream: SseClient, floorId: string, count: number): Promise<void> {
  for (let step = 1; step <= count; step++) {
    const x = step;
    const battery = 90 - 2 * step;
    await robot.publishState({ agvPosition: at(floorId, x), batteryState: { batteryCharge: battery, charging: false } });
    await stream.waitFor(isUpdate((u) => u.field === 'pose' && u.value.x === x), 1500);
    await stream.waitFor(isUpdate((u) => u.field === 'battery' && u.value === battery), 1500);
  }
}

describe('telemetry beside job execution', () => {
  it('streams pose and battery while a state listener has not settled', async () => {
    const { w, robot, stream } = await runningJob();
    // A listener that never settles: the gateway must not wait for it.
    const stop = server.context.fleet.onState(() => new Promise<void>(() => undefined));
    try {
      await telemetryFlows(robot, stream, w.floorId, 3);
    } finally {
      stop();
    }
  });
});

describe.skipIf(testEngine() !== 'postgres')('telemetry beside a blocked job write (needs TEST_DATABASE_URL)', () => {
  it("streams pose and battery while the robot's job row is locked, and applies the room result after", async () => {
    const { w, jobId, robot, stream } = await runningJob();
    const url = server.testDatabase.url;
    if (!url) throw new Error('not on PostgreSQL');
    const holder = new pg.Client({ connectionString: url });
    await holder.connect();
    try {
      // Another transaction holds the job's row: the job runner's write of the room result must wait for it.
      await holder.query('BEGIN');
      await holder.query('SELECT id FROM jobs WHERE id = $1 FOR UPDATE', [jobId]);
      await robot.publishState({ orderId: jobId, agvPosition: at(w.floorId, 0), actionStates: [disinfectState(jobId, 0, 'RUNNING')] });
      await telemetryFlows(robot, stream, w.floorId, 3);
      const roomState = async () =>
        (await server.context.db.select({ state: jobRooms.state }).from(jobRooms).where(and(eq(jobRooms.jobId, jobId), eq(jobRooms.orderNo, 0))))[0]
          ?.state;
      expect(await roomState()).toBe('pending');
      await holder.query('ROLLBACK');
      await waitUntil(async () => ((await roomState()) === 'active' ? true : undefined), 5000, 'room 0 active');
    } finally {
      await holder.end();
    }
  });
});
