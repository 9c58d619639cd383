/**
 * A fresh database for one test file: in-memory PGlite by default, or, when TEST_DATABASE_URL names a
 * PostgreSQL server, a new database on it (dropped afterwards), so the same suite runs on both engines.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { openDatabase, type Database } from '../db/client.ts';

export interface TestDatabase {
  database: Database;
  /** The connection string of the PostgreSQL database, when on PostgreSQL. */
  url: string | undefined;
  drop(): Promise<void>;
}

export const testEngine = (): 'postgres' | 'pglite' => (process.env.TEST_DATABASE_URL ? 'postgres' : 'pglite');

export async function createTestDatabase(): Promise<TestDatabase> {
  const serverUrl = process.env.TEST_DATABASE_URL;
  if (!serverUrl) {
    const database = await openDatabase({});
    return { database, url: undefined, drop: () => database.close() };
  }
  const name = `uvd_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const database = await openDatabase({ databaseUrl: url.toString() });
  return {
    database,
    url: url.toString(),
    drop: async () => {
      await database.close();
      const cleanup = new pg.Client({ connectionString: serverUrl });
      await cleanup.connect();
      await cleanup.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await cleanup.end();
    },
  };
}
