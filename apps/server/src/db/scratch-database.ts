/**
 * A throw-away database: in-memory PGlite, or a new database on a PostgreSQL server (dropped afterwards).
 * Tests get one per file; benchmarks one per run.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { openDatabase, type Database } from './client.ts';

export interface ScratchDatabase {
  database: Database;
  /** The connection string of the new database, when on PostgreSQL. */
  url: string | undefined;
  /** Where it lives, for printing. */
  where: string;
  /** Closes it and, on PostgreSQL, drops it (unless `keep`). */
  drop: (options?: { keep?: boolean }) => Promise<void>;
}

/** `serverUrl` names any database of the PostgreSQL server to create the new one on; undefined means PGlite. */
export async function createScratchDatabase(serverUrl: string | undefined, prefix = 'uvd_scratch'): Promise<ScratchDatabase> {
  if (!serverUrl) {
    const database = await openDatabase({});
    return { database, url: undefined, where: 'PGlite in memory', drop: () => database.close() };
  }
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  await runOnServer(serverUrl, `CREATE DATABASE ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const database = await openDatabase({ databaseUrl: url.toString() });
  return {
    database,
    url: url.toString(),
    where: `PostgreSQL database ${name} on ${url.host}`,
    drop: async ({ keep = false } = {}) => {
      await database.close();
      if (keep) return;
      // FORCE ends connections something still holds; the pool's error listener absorbs that.
      await runOnServer(serverUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    },
  };
}

async function runOnServer(serverUrl: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}
