/**
 * The fuzzers' proof that a refused request wrote nothing (`tableChecksums`, http.ts) sees every kind of committed
 * write, even one that leaves a row as it was, and nothing of a write rolled back. It takes them again only after a
 * write (its write mark), so these tests also prove that the mark moves with each kind of write.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, testEngine, type TestDatabase } from '../testing/test-database.ts';
import { changedTables, tableChecksums } from './http.ts';

let testDatabase: TestDatabase;
beforeAll(async () => {
  testDatabase = await createTestDatabase();
  await testDatabase.database.db.execute(sql`INSERT INTO organizations (id, name) VALUES ('checksum-a', 'A'), ('checksum-b', 'B')`);
});
afterAll(async () => {
  await testDatabase.drop();
});

/** The tables whose checksum `write` changed, but the audit trail (which the database's triggers write). */
async function changedBy(...statements: string[]): Promise<string[]> {
  const before = await tableChecksums(testDatabase.database);
  await testDatabase.database.db.transaction(async (tx) => {
    for (const statement of statements) await tx.execute(sql.raw(statement));
  });
  return changedTables(before, await tableChecksums(testDatabase.database), ['audit_entries']);
}

describe('table checksums of the fuzzers', () => {
  it('change with an insert, an update (even to the same value) and a delete', async () => {
    expect(await changedBy(`INSERT INTO organizations (id, name) VALUES ('checksum-c', 'C')`)).toEqual(['organizations']);
    expect(await changedBy(`UPDATE organizations SET name = 'B2' WHERE id = 'checksum-b'`)).toEqual(['organizations']);
    expect(await changedBy(`UPDATE organizations SET name = name WHERE id = 'checksum-a'`)).toEqual(['organizations']);
    expect(await changedBy(`DELETE FROM organizations WHERE id = 'checksum-c'`)).toEqual(['organizations']);
    // A delete and an insert together keep the count, not the newest row version.
    expect(await changedBy(`DELETE FROM organizations WHERE id = 'checksum-b'`, `INSERT INTO organizations (id, name) VALUES ('checksum-d', 'D')`)).toEqual([
      'organizations',
    ]);
  });

  it('stay the same after a read, and after a write that was rolled back', async () => {
    expect(await changedBy(`SELECT * FROM organizations`)).toEqual([]);
    const before = await tableChecksums(testDatabase.database);
    await expect(
      testDatabase.database.db.transaction(async (tx) => {
        await tx.execute(sql`INSERT INTO organizations (id, name) VALUES ('checksum-e', 'E')`);
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    expect(changedTables(before, await tableChecksums(testDatabase.database))).toEqual([]);
  });

  it('see a statement that wrote on its own, outside a transaction block, and are not taken again while nothing was written', async () => {
    const db = testDatabase.database.db;
    const first = await tableChecksums(testDatabase.database);
    await db.execute(sql`SELECT count(*) FROM organizations`);
    // Nothing written: the same checksums, not a new query over every table. (On PostgreSQL the write mark moves with
    // the other databases of the server too, the other test files', so there they may be taken again.)
    if (testEngine() === 'pglite') expect(await tableChecksums(testDatabase.database)).toBe(first);
    await db.execute(sql`INSERT INTO organizations (id, name) VALUES ('checksum-f', 'F')`);
    expect(changedTables(first, await tableChecksums(testDatabase.database), ['audit_entries'])).toEqual(['organizations']);
  });
});
