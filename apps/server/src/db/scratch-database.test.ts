import { readdir } from 'node:fs/promises';
import { sql } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createScratchDatabase, type ScratchDatabase } from './scratch-database.ts';
import { MIGRATIONS_FOLDER } from './client.ts';
import { organizations } from './schema.ts';

const engines = [
  { name: 'PGlite, made from one migrated image', serverUrl: undefined },
  // On the PostgreSQL server of the suite's PostgreSQL pass: copies of one migrated template database.
  { name: 'PostgreSQL, copies of one migrated template', serverUrl: process.env.TEST_DATABASE_URL || undefined, skip: !process.env.TEST_DATABASE_URL },
];

for (const engine of engines) {
  describe.skipIf(engine.skip)(`scratch databases on ${engine.name}`, () => {
    const opened: ScratchDatabase[] = [];
    afterAll(async () => {
      await Promise.all(opened.map((scratch) => scratch.drop()));
    });
    const scratch = async () => {
      const made = await createScratchDatabase(engine.serverUrl);
      opened.push(made);
      return made;
    };

    it('starts with every migration applied and no rows, and what one holds the next does not', async () => {
      const migrations = (await readdir(MIGRATIONS_FOLDER)).filter((name) => name.endsWith('.sql'));
      // Two at once: on PostgreSQL both wait for the one template the first makes.
      const [first, second] = await Promise.all([scratch(), scratch()]);
      for (const made of [first, second]) {
        const applied = await made.database.db.execute(sql`SELECT count(*)::int AS count FROM drizzle.__drizzle_migrations`);
        expect(z.object({ rows: z.tuple([z.object({ count: z.number() })]) }).parse(applied).rows[0].count).toBe(migrations.length);
      }
      await first.database.db.insert(organizations).values({ id: 'only-here', name: 'Only here', uvcDoses: [10], defaultDose: 10 });

      const third = await scratch();
      expect(await third.database.db.select().from(organizations)).toEqual([]);
      expect(await second.database.db.select().from(organizations)).toEqual([]);
      expect(await first.database.db.select({ id: organizations.id }).from(organizations)).toEqual([{ id: 'only-here' }]);
    });
  });
}
