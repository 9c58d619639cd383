/**
 * The gateway's robot row writes: what the writes of one batch leave in the rows is what one UPDATE per robot left
 * (a battery never reported left as it is, a pose cleared, the latest of two writes of one robot), and a row the
 * batch cannot take (a floor that is gone) fails alone.
 */
import { randomUUID } from 'node:crypto';
import { inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RobotMode } from '@uvd/contracts';
import { organizations, robots } from '../db/schema.ts';
import { createTestDatabase, testEngine, type TestDatabase } from '../testing/test-database.ts';
import { createRobotRowWriter, ROW_BATCH_MS, type RobotRowValues } from './robot-rows.ts';

describe('robot rows written by the gateway', () => {
  let scratch: TestDatabase;
  const orgId = `rows-${randomUUID().slice(0, 8)}`;
  const ids = [randomUUID(), randomUUID(), randomUUID()] as const;

  beforeAll(async () => {
    scratch = await createTestDatabase();
    const { db } = scratch.database;
    await db.insert(organizations).values({ id: orgId, name: orgId, uvcDoses: [10], defaultDose: 10 });
    await db.insert(robots).values(
      ids.map((id, n) => ({ id, orgId, name: `robot ${n}`, serialNumber: id, battery: 55, pose: { x: 9, y: 9, theta: 0 } })),
    );
  });
  afterAll(async () => {
    await scratch.drop();
  });

  const values = (overrides: Partial<RobotRowValues>): RobotRowValues => ({
    battery: 80,
    chargingStatus: 0,
    mode: RobotMode.autonomous,
    status: 'driving',
    pose: { x: 1, y: 2, theta: 0.5 },
    floorId: null,
    errors: [],
    signal: 12,
    connectionState: 'ONLINE',
    lastStateHeaderId: 7,
    lastSeenAt: new Date('2026-11-28T12:00:00.000Z'),
    ...overrides,
  });

  const rowsOf = async () => {
    const rows = await scratch.database.db.select().from(robots).where(inArray(robots.id, [...ids]));
    return new Map(rows.map((row) => [row.id, row]));
  };

  it('writes the rows of one batch as single writes would', async () => {
    const writer = createRobotRowWriter(scratch.database);
    const errors = [{ errorType: 'bumper', errorLevel: 'WARNING' as const, errorDescription: 'pressed' }];
    // The robot's second write once its first is written, as the gateway writes a robot (never two at once): on
    // PGlite both are in one batch all the same, on PostgreSQL (no batches) two at once would race each other.
    const twice = async () => {
      const first = writer.write(ids[2], values({ battery: 10, lastStateHeaderId: 1 }));
      if (testEngine() === 'postgres') await first;
      await Promise.all([first, writer.write(ids[2], values({ battery: 20, lastStateHeaderId: 2, lastSeenAt: null }))]);
    };
    await Promise.all([
      writer.write(ids[0], values({ battery: undefined, errors })),
      writer.write(ids[1], values({ pose: null, signal: -1, connectionState: 'CONNECTIONBROKEN', mode: RobotMode.offline, status: 'offline' })),
      twice(),
    ]);
    const rows = await rowsOf();
    expect(rows.get(ids[0])).toMatchObject({
      battery: 55,
      chargingStatus: 0,
      mode: RobotMode.autonomous,
      status: 'driving',
      pose: { x: 1, y: 2, theta: 0.5 },
      errors,
      signal: 12,
      connectionState: 'ONLINE',
      lastStateHeaderId: 7,
      lastSeenAt: new Date('2026-11-28T12:00:00.000Z'),
    });
    expect(rows.get(ids[1])).toMatchObject({ battery: 80, pose: null, signal: -1, connectionState: 'CONNECTIONBROKEN', mode: RobotMode.offline, status: 'offline' });
    expect(rows.get(ids[2])).toMatchObject({ battery: 20, lastStateHeaderId: 2, lastSeenAt: null });
  });

  it('fails only the row that cannot be written', async () => {
    const writer = createRobotRowWriter(scratch.database);
    const results = await Promise.allSettled([
      writer.write(ids[0], values({ battery: 31 })),
      writer.write(ids[1], values({ battery: 32, floorId: randomUUID() })),
    ]);
    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected']);
    const rows = await rowsOf();
    expect(rows.get(ids[0])?.battery).toBe(31);
    expect(rows.get(ids[1])?.battery).toBe(80);
  });

  // Batches are PGlite's (one connection, statements in order); on PostgreSQL every write is its own statement.
  it.skipIf(Boolean(process.env.TEST_DATABASE_URL))('writes a change of state at once, ahead of the batch that held the robot, and what is queued after it finds it', async () => {
    const writer = createRobotRowWriter(scratch.database);
    const batched = writer.write(ids[0], values({ battery: 41, status: 'driving' }));
    // What the same state sets off next (the job runner) queues its own reads and writes after this call.
    const now = writer.writeNow(ids[0], values({ battery: 42, status: 'disinfecting' }));
    const [row] = await scratch.database.db.select().from(robots).where(inArray(robots.id, [ids[0]]));
    expect(row).toMatchObject({ status: 'disinfecting', battery: 42 });
    await Promise.all([now, batched]);
    // The batch no longer holds the robot: nothing writes the older fields over the newer ones.
    await new Promise((resolve) => setTimeout(resolve, ROW_BATCH_MS * 2));
    expect((await rowsOf()).get(ids[0])).toMatchObject({ status: 'disinfecting', battery: 42 });

    // The gateway's way: a telemetry write waits for its batch when the robot's state changes.
    const waitingWrite = writer.write(ids[1], values({ status: 'driving' }));
    writer.hurry(ids[1], values({ status: 'disinfecting' }));
    const [hurried] = await scratch.database.db.select().from(robots).where(inArray(robots.id, [ids[1]]));
    expect(hurried?.status).toBe('disinfecting');
    await waitingWrite;
  });
});
