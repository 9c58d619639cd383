/**
 * A dispatch round that finds a free robot's row held by another transaction (on PostgreSQL, the gateway's write of
 * the robot's state holds it for as long as the UPDATE runs). The robot is passed over for the rest of the round:
 * tried again for the next delivery of the queue, a lock let go in between gave it a routine delivery while a stat
 * one waited, and kept the stat one waiting for as long as the robot was busy with it. That happened in the full
 * suite on PostgreSQL (dispatch.test.ts's first delivery, undispatched for 15 s). PostgreSQL only: PGlite is one
 * session, so no other transaction can hold a row while a round runs.
 */
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DeliveryStatus } from '@uvd/contracts';
import { connectDeliveryRobot, deliveryWorld, queueDelivery, readDelivery } from '../../testing/delivery-fixtures.ts';
import type { TestRobot } from '../../testing/fleet-fixtures.ts';
import { startTestServer, type TestServer } from '../../testing/harness.ts';
import { testEngine } from '../../testing/test-database.ts';
import { dispatchOrganization } from './dispatcher.ts';

const HOUR_MS = 3_600_000;
const clients: TestRobot[] = [];

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
});

describe.skipIf(testEngine() !== 'postgres')('a dispatch round and a robot row another transaction holds (PostgreSQL)', () => {
  let server: TestServer;
  beforeAll(async () => {
    // The server's own dispatcher never finds a robot charged enough (100 %) and never polls: only this test's
    // rounds dispatch, each with the robot's row held or let go exactly when the test says.
    server = await startTestServer({ deliveryMinBattery: 100, deliveryDispatchPollMs: HOUR_MS });
  });
  afterAll(async () => {
    await server.close();
  });

  it('passes the robot over for the rest of the round, so a lock let go mid-round never gives it a routine delivery before a stat one', async () => {
    const world = await deliveryWorld(server, { robots: 1 });
    const [robot] = world.robots;
    const [a, b] = world.roomIds;
    const url = server.testDatabase.url;
    if (!robot || !a || !b || !url) throw new Error('world incomplete');
    await connectDeliveryRobot(server, world, clients, robot);
    const routine = await queueDelivery(server, world.orgId, { pickupRoomId: a, dropoffRoomId: b, createdAt: new Date(Date.now() - 600_000) });
    const stat = await queueDelivery(server, world.orgId, { pickupRoomId: a, dropoffRoomId: b, priority: 'stat' });
    // The rounds the queueing woke find no robot fit and let go of the queue.
    await new Promise((resolve) => setTimeout(resolve, 300));

    // Another session holds the robot's row, as a write of its state does, and lets go once the round passed it over.
    const holder = new pg.Client({ connectionString: url });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT 1 FROM robots WHERE id = $1 FOR UPDATE', [robot.id]);
      const context = { ...server.context, config: { ...server.context.config, deliveryMinBattery: 20 } };
      const errors: string[] = [];
      const onError = (_error: unknown, message: string) => {
        errors.push(message);
      };
      let passedOver = 0;
      const first = await dispatchOrganization(context, world.orgId, onError, async () => {
        passedOver++;
        await holder.query('COMMIT');
      });
      expect(passedOver).toBe(1);
      expect(first).toEqual([]);
      expect(await readDelivery(server, routine.id)).toMatchObject({ status: DeliveryStatus.queued, robotId: null });

      // The next round (the one the pass-over asked for) gives the robot the stat delivery.
      const second = await dispatchOrganization(context, world.orgId, onError, () => {
        passedOver++;
      });
      expect(second).toEqual([stat.id]);
      expect(passedOver).toBe(1);
      expect(errors).toEqual([]);
      expect(await readDelivery(server, routine.id)).toMatchObject({ status: DeliveryStatus.queued, robotId: null });
    } finally {
      await holder.end();
    }
  });
});
