/**
 * One database interface over two drivers: PGlite (PostgreSQL in WebAssembly, the embedded default) and
 * node-postgres when DATABASE_URL is set. Migrations run on open.
 */
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import type { ExtractTablesWithRelations } from 'drizzle-orm';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import type { PgDatabase, PgQueryResultHKT, PgTransaction } from 'drizzle-orm/pg-core';
import pg from 'pg';
import * as schema from './schema.ts';

export type Schema = typeof schema;
export type Db = PgDatabase<PgQueryResultHKT, Schema>;
export type Tx = PgTransaction<PgQueryResultHKT, Schema, ExtractTablesWithRelations<Schema>>;
/** Either the database or an open transaction: repositories accept both. */
export type Executor = Db | Tx;

/** Raw LISTEN/NOTIFY access, used by the live event bus to cross server processes. */
export interface Notifier {
  listen(channel: string, onPayload: (payload: string) => void): Promise<() => Promise<void>>;
  notify(channel: string, payload: string): Promise<void>;
}

export interface Database {
  kind: 'pglite' | 'postgres';
  db: Db;
  notifier: Notifier;
  close(): Promise<void>;
}

export const MIGRATIONS_FOLDER = fileURLToPath(new URL('../../drizzle', import.meta.url));

/** Serialises migrations when several server processes start on one PostgreSQL at once. */
const MIGRATION_LOCK_KEY = 726_351_001;

export interface OpenOptions {
  /** PostgreSQL connection string; without it PGlite is used. */
  databaseUrl?: string | undefined;
  /** PGlite data folder; undefined means in memory. */
  dataDir?: string | undefined;
}

export async function openDatabase(options: OpenOptions): Promise<Database> {
  if (options.databaseUrl) return openPostgres(options.databaseUrl);
  return openPglite(options.dataDir);
}

async function openPglite(dataDir: string | undefined): Promise<Database> {
  if (dataDir) mkdirSync(dataDir, { recursive: true });
  const client = dataDir ? new PGlite(dataDir) : new PGlite();
  await client.waitReady;
  const db = drizzlePglite({ client, schema });
  await migratePglite(db, { migrationsFolder: MIGRATIONS_FOLDER });
  return {
    kind: 'pglite',
    db: db as unknown as Db, // PgliteDatabase is a PgDatabase over the same schema; only the HKT differs.
    notifier: {
      listen: async (channel, onPayload) => {
        const unsubscribe = await client.listen(channel, onPayload);
        return unsubscribe;
      },
      notify: async (channel, payload) => {
        await client.query('SELECT pg_notify($1, $2)', [channel, payload]);
      },
    },
    close: () => client.close(),
  };
}

async function openPostgres(databaseUrl: string): Promise<Database> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 10 });
  // An idle connection ended by the server (a restart, a failover, DROP DATABASE … WITH (FORCE)) is dropped
  // from the pool and replaced on next use; without a listener it would crash the process.
  pool.on('error', (error) => {
    console.warn(`PostgreSQL pool: idle connection lost (${error.message})`);
  });
  const db = drizzlePg({ client: pool, schema });
  const lockClient = await pool.connect();
  try {
    await lockClient.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    await migratePg(db, { migrationsFolder: MIGRATIONS_FOLDER });
  } finally {
    await lockClient.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]).catch(() => undefined);
    lockClient.release();
  }
  const listeners = new Set<pg.Client>();
  return {
    kind: 'postgres',
    db: db as unknown as Db,
    notifier: {
      listen: async (channel, onPayload) => {
        const client = new pg.Client({ connectionString: databaseUrl });
        client.on('error', (error) => {
          console.warn(`PostgreSQL LISTEN connection lost (${error.message})`);
        });
        await client.connect();
        listeners.add(client);
        client.on('notification', (message) => {
          if (message.channel === channel && message.payload !== undefined) onPayload(message.payload);
        });
        await client.query(`LISTEN "${channel.replaceAll('"', '')}"`);
        return async () => {
          listeners.delete(client);
          await client.end();
        };
      },
      notify: async (channel, payload) => {
        await pool.query('SELECT pg_notify($1, $2)', [channel, payload]);
      },
    },
    close: async () => {
      await Promise.all([...listeners].map((client) => client.end()));
      await pool.end();
    },
  };
}
