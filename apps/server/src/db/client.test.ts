import { once } from 'node:events';
import { createServer, connect, type AddressInfo, type Server, type Socket } from 'node:net';
import { PGlite } from '@electric-sql/pglite';
import { sql } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from './client.ts';
import { pgliteImage } from './scratch-database.ts';

/**
 * PGlite's own, whatever the engine of the run: the second pass on PostgreSQL (TEST_DATABASE_URL, vitest.config.ts)
 * would run them again unchanged.
 */
const onPostgresPass = Boolean(process.env.TEST_DATABASE_URL);

describe.skipIf(onPostgresPass)('embedded database (PGlite) under a queue of queries', () => {
  let database: Database;
  let server: Server;
  let robot: Socket;
  let gateway: Socket;

  beforeAll(async () => {
    database = await openDatabase({});
    // A loopback TCP pair stands for a robot's MQTT connection to the server.
    server = createServer();
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const accepted = once(server, 'connection');
    robot = connect((server.address() as AddressInfo).port, '127.0.0.1');
    await once(robot, 'connect');
    [gateway] = (await accepted) as [Socket];
  });

  afterAll(async () => {
    robot.destroy();
    gateway.destroy();
    server.close();
    await database.close();
  });

  it('reads a socket between two queries instead of after the whole queue', async () => {
    const queued = 1000;
    let finished = 0;
    const received = once(gateway, 'data').then(() => finished);
    const queries = Array.from({ length: queued }, () =>
      database.db.execute(sql`SELECT 1`).then(() => {
        finished += 1;
      }),
    );
    // The robot's message reaches the server while the queue waits, as a state arriving while twenty jobs write.
    robot.write('state');
    const finishedWhenRead = await received;
    await Promise.all(queries);
    // Before, the queue ran as one chain of promises and the message was read only after all of it.
    expect(finishedWhenRead).toBeLessThan(queued / 2);
  });
});

describe.skipIf(onPostgresPass)('embedded database (PGlite): the values drizzle reads as text', () => {
  it('reads dates, times, intervals, numerics and their arrays as drizzle over a plain PGlite does, in and out of a transaction', async () => {
    const image = await pgliteImage();
    const database = await openDatabase({ pgliteImage: image });
    const plainClient = new PGlite({ loadDataDir: image });
    try {
      const plain = drizzle({ client: plainClient });
      const query = sql`SELECT timestamp '2026-11-30 12:34:56.789' AS ts, timestamptz '2026-11-30 12:34:56.789+02' AS tstz,
        interval '1 day 02:03:04' AS iv, date '2026-11-30' AS d, ARRAY[1.5, 2.25]::numeric[] AS nums,
        ARRAY[timestamp '2026-01-01 00:00:00'] AS tss, ARRAY[timestamptz '2026-01-01 00:00:00+00'] AS tstzs,
        ARRAY[interval '5 minutes'] AS ivs, ARRAY[date '2026-01-01'] AS ds, 42::int4 AS n, 7::int8 AS big, 1.5::numeric AS num,
        true AS b, '{"a":1}'::jsonb AS j, ARRAY[1, 2]::int4[] AS ints, ARRAY['x']::text[] AS texts`;
      const expected = (await plain.execute(query)).rows;
      // drizzle's own reading: the text PostgreSQL sent for dates and times, parsed values for the rest.
      expect(expected[0]).toMatchObject({ ts: '2026-11-30 12:34:56.789', d: '2026-11-30', n: 42, b: true, j: { a: 1 }, ints: [1, 2] });
      expect(await database.db.execute(query)).toHaveProperty('rows', expected);
      expect(await database.db.transaction((tx) => tx.execute(query))).toHaveProperty('rows', expected);
    } finally {
      await plainClient.close();
      await database.close();
    }
  });
});
