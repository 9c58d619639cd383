/**
 * A lamp-off command (a stop) overtakes the other robots' traffic in the outbox: with many robots whose commands
 * are never acknowledged (resent round after round, each robot with a batch of them, so a round is long), a stop
 * recorded while a round is under way reaches its robot before the round goes on to the remaining robots. Real
 * HTTP, a real database (PGlite, or PostgreSQL with TEST_DATABASE_URL), the embedded MQTT broker and raw MQTT
 * test robots. The ordering is asserted (which robots were sent something between the stop's commit and its
 * arrival), not a time.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InstantActionsMessage } from '@uvd/contracts';
import { executionWorld, waitUntil, type ExecutionWorld } from '../testing/execution-fixtures.ts';
import { connectRobotRow, connectTestRobot, createRobotRow, orderUnderWay, type TestRobot } from '../testing/fleet-fixtures.ts';
import { startTestServer, type TestServer } from '../testing/harness.ts';
import { recordCommand } from './outbox.ts';

/** Robots whose commands keep being resent, and how many open commands each has (a round sends all of them). */
const BUSY_ROBOTS = 24;
const OPEN_PER_ROBOT = 8;
const STOPS = 3;

interface Received {
  robot: number;
  actionTypes: string[];
}

describe('a stop overtakes the other robots in the outbox', () => {
  let server: TestServer;
  let w: ExecutionWorld;
  const robots: TestRobot[] = [];
  const robotIds: string[] = [];
  /** Every instant actions message any robot received, in the order they reached the test. */
  const received: Received[] = [];

  beforeAll(async () => {
    // Resends due again before a round of all robots is over: the rounds follow one another.
    server = await startTestServer({ commandResendMs: 200, commandGiveUpMs: 600_000, commandStopAlertMs: 600_000 });
    w = await executionWorld(server);
    const brokerUrl = server.context.fleet.brokerUrl;
    const rows = await Promise.all(Array.from({ length: BUSY_ROBOTS + STOPS - 1 }, () => createRobotRow(server.context.db, w.orgId)));
    const world = await connectTestRobot({
      brokerUrl,
      manufacturer: w.robot.manufacturer,
      serialNumber: w.robot.serialNumber,
      username: `${w.robot.manufacturer}/${w.robot.serialNumber}`,
      password: w.mqttPassword,
    });
    robots.push(world);
    robotIds.push(w.robotId);
    for (const row of rows) {
      robots.push(await connectRobotRow(brokerUrl, row));
      robotIds.push(row.id);
    }
    robots.forEach((robot, index) => {
      robot.client.on('message', (topic, payload) => {
        if (!topic.endsWith('/instantActions')) return;
        const message = InstantActionsMessage.safeParse(JSON.parse(payload.toString()));
        if (message.success) received.push({ robot: index, actionTypes: message.data.actions.map((action) => action.actionType) });
      });
    });
    for (const robot of robots) await robot.publishState({ ...orderUnderWay, operatingMode: 'AUTOMATIC' });
    await waitUntil(async () => (robotIds.every((id) => server.context.fleet.link(id)?.mode === 2) ? true : undefined), 15_000, 'the robots online and Autonomous');
  }, 120_000);
  afterAll(async () => {
    for (const robot of robots) await robot.close().catch(() => undefined);
    await server.close();
  });

  it('a stop recorded during a round reaches its robot before the round serves the remaining robots', async () => {
    // The first STOPS robots are stopped one after the other; the others have open pauses the robots never acknowledge.
    const busy = robotIds.slice(STOPS);
    for (const robotId of busy) {
      await server.context.db.transaction(async (tx) => {
        for (let n = 0; n < OPEN_PER_ROBOT; n += 1) {
          await recordCommand(tx, {
            orgId: w.orgId,
            robotId,
            jobId: null,
            kind: 'pause',
            body: { actions: [{ actionId: randomUUID(), actionType: 'startPause', blockingType: 'HARD' }] },
          });
        }
      });
    }
    server.context.commands.wake();
    // Every busy robot has been sent its pauses, and a resend is under way: a round is long.
    await waitUntil(async () => {
      const counts = new Map<number, number>();
      for (const message of received) counts.set(message.robot, (counts.get(message.robot) ?? 0) + 1);
      return Array.from({ length: BUSY_ROBOTS }, (_, n) => n + STOPS).every((robot) => (counts.get(robot) ?? 0) > OPEN_PER_ROBOT) ? true : undefined;
    }, 60_000, 'the pauses resent to every busy robot');

    const overtaken: number[] = [];
    for (let target = 0; target < STOPS; target += 1) {
      // In the middle of a round: a busy robot has just been sent something.
      const before = received.length;
      await waitUntil(async () => (received.length > before ? true : undefined), 10_000, 'a round under way');
      const reply = await server.request('POST', `/api/command/${robotIds[target] ?? ''}`, { token: w.admin.token, query: { command: 'stop' } });
      expect(reply.status).toBe(200);
      // Recorded and committed: what other robots are sent from here until the stop arrives overtook it.
      const committedAt = received.length;
      const arrived = await waitUntil(
        async () => {
          const index = received.findIndex((message, at) => at >= committedAt && message.robot === target && message.actionTypes.includes('cancelOrder'));
          return index === -1 ? undefined : index;
        },
        30_000,
        'the stop at its robot',
      );
      const servedMeanwhile = new Set(received.slice(committedAt, arrived).map((message) => message.robot));
      overtaken.push(servedMeanwhile.size);
    }
    // At most a few: the robot served before (its messages still on their way to the test when the reply came),
    // the one being served when the stop committed, and one whose turn had begun as the stop's NOTIFY came in.
    // Without the fast lane the stop waits for the rest of the round (21 to 24 of the 24 busy robots when this
    // test was written), or all of it when its robot's turn had passed.
    expect(overtaken.every((count) => count <= 4), `other robots served before each stop: ${overtaken.join(', ')}`).toBe(true);
  }, 180_000);
});
