import { once } from 'node:events';
import { createServer, connect, type AddressInfo, type Server, type Socket } from 'node:net';
import { PGlite } from '@electric-sql/pglite';
import { sql, type SQL } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
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
    database = await openDatabase({ pgliteImage: await pgliteImage() });
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

describe.skipIf(onPostgresPass)('embedded database (PGlite): statements kept prepared', () => {
  let database: Database;
  let plainClient: PGlite;
  let plain: ReturnType<typeof drizzle>;

  beforeAll(async () => {
    const image = await pgliteImage();
    database = await openDatabase({ pgliteImage: image });
    plainClient = new PGlite({ loadDataDir: image });
    plain = drizzle({ client: plainClient });
  });
  afterAll(async () => {
    await plainClient.close();
    await database.close();
  });

  const rowsOf = async (db: { execute: (query: SQL) => PromiseLike<unknown> }, query: SQL): Promise<unknown[]> =>
    z.object({ rows: z.array(z.unknown()) }).parse(await db.execute(query)).rows;

  it('writes and reads values of every kind as drizzle over a plain PGlite does, the same texts again and in a transaction', async () => {
    const create = sql`CREATE TABLE kinds (id int PRIMARY KEY, j jsonb, tags text[], at timestamptz, flag boolean, amount numeric, who uuid, note text)`;
    const insert = (id: number, values: { j: unknown; tags: string[] | null; at: string | null; flag: boolean | null; amount: string | null; who: string | null; note: string | null }) =>
      sql`INSERT INTO kinds VALUES (${id}, ${sql.param(values.j)}, ${sql.param(values.tags)}, ${values.at}, ${values.flag}, ${values.amount}, ${values.who}, ${values.note})`;
    const rows = [
      { j: { room: 'A 101', dose: [1.5, 2] }, tags: ['ward', 'é ß'], at: '2026-11-30T10:00:00.000Z', flag: true, amount: '12.50', who: '0b8e4c5e-0a4f-4d7e-9d5b-5a2f0f3c7a10', note: 'first' },
      { j: null, tags: null, at: null, flag: null, amount: null, who: null, note: null },
      { j: [1, 'two'], tags: [], at: '2026-01-01T00:00:00.000Z', flag: false, amount: '-0.001', who: '5b1d8a8e-7c3e-4a9b-8f0e-2d6c4b3a1e22', note: "it's" },
    ];
    const select = sql`SELECT * FROM kinds WHERE id >= ${0} ORDER BY id`;
    const readBoth = async () => [await rowsOf(plain, select), await rowsOf(database.db, select)];

    for (const db of [plain, database.db]) {
      await db.execute(create);
      // The same insert text three times (its statement kept after the first), then in a transaction.
      for (const [index, values] of rows.entries()) await db.execute(insert(index, values));
      await db.transaction(async (tx) => {
        for (const [index, values] of rows.entries()) await tx.execute(insert(index + 10, values));
      });
    }
    const [expected, ours] = await readBoth();
    expect(expected).toHaveLength(6);
    expect(expected?.[0]).toMatchObject({ j: { room: 'A 101', dose: [1.5, 2] }, tags: ['ward', 'é ß'], flag: true, note: 'first' });
    expect(ours).toEqual(expected);
    // Read again through the kept statement.
    expect(await rowsOf(database.db, select)).toEqual(expected);
  });

  it('reads a table in its new shape once it changed, also when the change ran where the client could not see it', async () => {
    await database.db.execute(sql`CREATE TABLE shapes (a int)`);
    await database.db.execute(sql`INSERT INTO shapes VALUES (${1})`);
    const all = sql`SELECT * FROM shapes WHERE a = ${1}`;
    expect(await rowsOf(database.db, all)).toEqual([{ a: 1 }]);
    await database.db.execute(sql`ALTER TABLE shapes ADD COLUMN b int DEFAULT 2`);
    expect(await rowsOf(database.db, all)).toEqual([{ a: 1, b: 2 }]);

    // A function that changes the table, called by a query the client keeps like any other: PostgreSQL refuses the
    // kept statement (its rows changed shape), and the client prepares it again.
    await database.db.execute(sql`CREATE FUNCTION widen_shapes() RETURNS int LANGUAGE plpgsql AS $$
      BEGIN ALTER TABLE shapes ADD COLUMN c int DEFAULT 3; RETURN 1; END $$`);
    expect(await rowsOf(database.db, all)).toEqual([{ a: 1, b: 2 }]);
    await database.db.execute(sql`SELECT widen_shapes() AS done WHERE ${true}`);
    expect(await rowsOf(database.db, all)).toEqual([{ a: 1, b: 2, c: 3 }]);
  });

  it('answers the next query after a failed one: a unique violation, a syntax error, one in a transaction that rolls back', async () => {
    await database.db.execute(sql`CREATE TABLE once_only (id int PRIMARY KEY)`);
    const insert = (id: number) => sql`INSERT INTO once_only VALUES (${id})`;
    await database.db.execute(insert(1));
    await expect(database.db.execute(insert(1))).rejects.toMatchObject({ cause: { code: '23505' } });
    await expect(database.db.execute(sql`SELEC ${1}`)).rejects.toMatchObject({ cause: { code: '42601' } });
    await expect(
      database.db.transaction(async (tx) => {
        await tx.execute(insert(2));
        await tx.execute(insert(1));
      }),
    ).rejects.toMatchObject({ cause: { code: '23505' } });
    await database.db.execute(insert(3));
    expect(await rowsOf(database.db, sql`SELECT id FROM once_only WHERE id > ${0} ORDER BY id`)).toEqual([{ id: 1 }, { id: 3 }]);
  });

  it('keeps a bounded number of statements: more distinct queries than that each answer their own, the first ones again too', async () => {
    const distinct = 400;
    const numbered = (n: number) => sql.raw(`SELECT ${String(n)} AS n${String(n)} WHERE 1 = $1`.replace('$1', '1'));
    for (let n = 0; n < distinct; n += 1) expect(await rowsOf(database.db, numbered(n))).toEqual([{ [`n${String(n)}`]: n }]);
    for (let n = 0; n < 10; n += 1) expect(await rowsOf(database.db, numbered(n))).toEqual([{ [`n${String(n)}`]: n }]);
    const [held] = await rowsOf(database.db, sql`SELECT count(*)::int AS count FROM pg_prepared_statements WHERE ${true}`);
    const { count } = z.object({ count: z.number() }).parse(held);
    expect(count).toBeGreaterThan(10);
    expect(count).toBeLessThanOrEqual(300);
  });
});

describe.skipIf(onPostgresPass)('embedded database (PGlite): the migrated image test databases start from', () => {
  it('holds the migrated schema without the old log, and writes and keeps more log than it carried, across a dump and a load', async () => {
    const image = await pgliteImage();
    // The migrations' log (9.3 MB of one 16 MB segment) is not in it.
    expect(image.size).toBeLessThan(12 * 1024 * 1024);
    const first = new PGlite({ loadDataDir: image });
    try {
      const tables = await first.query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = 'public'`);
      expect(tables.rows[0]?.n).toBeGreaterThan(20);
      // About 40 MB of log (rows of 1.9 KB, under the size PostgreSQL compresses): past the cut page, and through
      // whole segments of 16 MB.
      await first.exec(`CREATE TABLE log_filler (id int PRIMARY KEY, body text)`);
      await first.exec(`INSERT INTO log_filler SELECT g, repeat(md5(g::text), 60) FROM generate_series(1, 10000) g`);
      await first.exec('CHECKPOINT');
      await first.exec(`UPDATE log_filler SET body = 'y' || body`);
      const written = await first.query<{ segment: string }>('SELECT pg_walfile_name(pg_current_wal_lsn()) AS segment');
      // The image ends in the second segment (the first removed): the log went on into new ones.
      expect(written.rows[0]?.segment).not.toMatch(/0[0-2]$/);
      const dumped = await first.dumpDataDir('none');
      const second = new PGlite({ loadDataDir: dumped });
      try {
        const rows = await second.query<{ n: number; updated: number }>(
          `SELECT count(*)::int AS n, (count(*) FILTER (WHERE body LIKE 'y%'))::int AS updated FROM log_filler`,
        );
        expect(rows.rows[0]).toEqual({ n: 10000, updated: 10000 });
      } finally {
        await second.close();
      }
    } finally {
      await first.close();
    }
  });
});
