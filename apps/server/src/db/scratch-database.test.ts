import { readdir } from 'node:fs/promises';
import { sql } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createScratchDatabase, type ScratchDatabase } from './scratch-database.ts';
import { MIGRATIONS_FOLDER } from './client.ts';
import { organizations } from './schema.ts';

describe('scratch databases on PGlite, made from one migrated image', () => {
  const opened: ScratchDatabase[] = [];
  afterAll(async () => {
    await Promise.all(opened.map((scratch) => scratch.drop()));
  });
  const scratch = async () => {
    const made = await createScratchDatabase(undefined);
    opened.push(made);
    return made;
  };

  it('starts with every migration applied and no rows, and what one holds the next does not', async () => {
    const migrations = (await readdir(MIGRATIONS_FOLDER)).filter((name) => name.endsWith('.sql'));
    const first = await scratch();
    const applied = await first.database.db.execute(sql`SELECT count(*)::int AS count FROM drizzle.__drizzle_migrations`);
    expect(z.object({ rows: z.tuple([z.object({ count: z.number() })]) }).parse(applied).rows[0].count).toBe(migrations.length);
    await first.database.db.insert(organizations).values({ id: 'only-here', name: 'Only here', uvcDoses: [10], defaultDose: 10 });

    const second = await scratch();
    expect(await second.database.db.select().from(organizations)).toEqual([]);
    expect(await first.database.db.select({ id: organizations.id }).from(organizations)).toEqual([{ id: 'only-here' }]);
  });
});
