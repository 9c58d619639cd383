/**
 * One database interface over two drivers: PGlite (PostgreSQL in WebAssembly, the embedded default) and
 * node-postgres when DATABASE_URL is set. Migrations run on open.
 */
import { mkdirSync } from 'node:fs';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { messages, parse, PGlite, protocol, types, type ParserOptions, type QueryOptions, type Results, type Transaction } from '@electric-sql/pglite';
import type { ExtractTablesWithRelations } from 'drizzle-orm';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import type { PgDatabase, PgQueryResultHKT, PgTransaction } from 'drizzle-orm/pg-core';
import pg from 'pg';
import { auditSetting, mayWrite, SET_AUDIT_SQL } from '../audit/context.ts';
import { ADVISORY_LOCKS } from './advisory-locks.ts';
import * as schema from './schema.ts';

export type Schema = typeof schema;
export type Db = PgDatabase<PgQueryResultHKT, Schema>;
export type Tx = PgTransaction<PgQueryResultHKT, Schema, ExtractTablesWithRelations<Schema>>;
/** Either the database or an open transaction: repositories accept both. */
export type Executor = Db | Tx;

/** What a listener learns about its connection besides the notifications. */
export interface ListenHooks {
  /** Listening again after the connection was lost: notifications sent in between were missed. */
  onRestored?: () => void;
}

/** Raw LISTEN/NOTIFY access, used by the live event bus to cross server processes. */
export interface Notifier {
  /**
   * Listens on `channel` until the returned function is called. On PostgreSQL a lost connection (terminated
   * backend, restart, failover) is noticed and replaced, and `hooks.onRestored` tells what was missed.
   */
  listen(channel: string, onPayload: (payload: string) => void, hooks?: ListenHooks): Promise<() => Promise<void>>;
  notify(channel: string, payload: string): Promise<void>;
}

/**
 * The application_name of a server process's LISTEN connection (one for all its channels), so operators (and tests)
 * can find it in pg_stat_activity.
 */
export const LISTEN_APPLICATION_NAME = 'uvd-listen';

/** How a LISTEN connection is watched and replaced. */
export interface ListenTiming {
  /** A `SELECT 1` on the connection this often notices a peer gone silently (failover, half-open TCP). */
  checkIntervalMs: number;
  /** How long that check may take before the connection is given up. */
  checkTimeoutMs: number;
  /** First and largest delay between reconnection attempts (doubling, with jitter). */
  minBackoffMs: number;
  maxBackoffMs: number;
}

export const DEFAULT_LISTEN_TIMING: ListenTiming = {
  checkIntervalMs: 10_000,
  checkTimeoutMs: 5_000,
  minBackoffMs: 100,
  maxBackoffMs: 5_000,
};

export interface Database {
  kind: 'pglite' | 'postgres';
  db: Db;
  notifier: Notifier;
  close(): Promise<void>;
}

export const MIGRATIONS_FOLDER = fileURLToPath(new URL('../../drizzle', import.meta.url));


export interface OpenOptions {
  /** PostgreSQL connection string; without it PGlite is used. */
  databaseUrl?: string | undefined;
  /** PGlite data folder; undefined means in memory. */
  dataDir?: string | undefined;
  /** PostgreSQL only: how LISTEN connections are checked and replaced. */
  listenTiming?: Partial<ListenTiming>;
  /**
   * PGlite, in memory or in a new (empty) data folder: start from this data folder (a tarball from
   * `migratedPgliteImage`) instead of an empty cluster, which PGlite makes by running initdb in WebAssembly (about
   * 2.5 s of CPU). Migrations still run; those in the image have nothing left to do. PGlite refuses it on a folder
   * that already holds a database.
   */
  pgliteImage?: Blob | undefined;
  /**
   * PostgreSQL only: how long a connection of the pool (up to ten) stays open unused; node-postgres's 10 s by
   * default. Test databases close theirs after a second (testing/test-database.ts).
   */
  poolIdleTimeoutMs?: number | undefined;
}

export async function openDatabase(options: OpenOptions): Promise<Database> {
  if (options.databaseUrl) {
    return openPostgres(options.databaseUrl, { ...DEFAULT_LISTEN_TIMING, ...options.listenTiming }, options.poolIdleTimeoutMs);
  }
  return openPglite(options.dataDir, options.pgliteImage);
}

/** The databases a PGlite image leaves out (`migratedPgliteImage`). */
const IMAGE_DROPS = ['template0', 'template1'] as const;
/** What `migratedPgliteImage` leaves out, part of the image's name (scratch-database.ts): a new way makes a new image. */
export const IMAGE_FORM = `without ${IMAGE_DROPS.join(', ')}; write-ahead log from the last checkpoint only`;
/** Where PGlite keeps its data folder in its own file system, and the size of a page of the write-ahead log. */
const PGLITE_WAL = '/pglite/data/pg_wal';
const WAL_PAGE_BYTES = 8192;
const WAL_SEGMENT_NAME = /^[0-9A-F]{24}$/;

/** What of PGlite's Emscripten file system the image needs (its declared type needs @types/emscripten). */
interface PgliteFiles {
  readdir(path: string): string[];
  readFile(path: string): Uint8Array;
  truncate(path: string, length: number): void;
  unlink(path: string): void;
}
const isPgliteFiles = (fs: unknown): fs is PgliteFiles =>
  typeof fs === 'object' && fs !== null && ['readdir', 'readFile', 'truncate', 'unlink'].every((name) => typeof Reflect.get(fs, name) === 'function');

/**
 * An empty, migrated PGlite data folder as a tarball, for `openDatabase({ pgliteImage })`. It holds only the database
 * PGlite opens (`postgres`): template0 and template1, which only CREATE DATABASE reads, are dropped. PGlite writes an
 * image into its file system file by file, and they were half of its 1 197 files (595 left): a load took 0.55-0.74 s of
 * CPU with them and 0.42-0.55 s without (four loads each, alternating, in one process).
 *
 * Nor does it carry the write-ahead log of the migrations: after a checkpoint the log moves to a new segment, the
 * others are removed, and that one is cut after the page that follows its last record. Its 16 MB (9.3 MB of records)
 * were 62 % of the image's bytes, which PGlite reads, unpacks and copies on every load: 27.2 -> 10.5 MB, and a load
 * took 468 ms of CPU on average against 547 (ten each, alternating, in one process). PostgreSQL recovers from the
 * checkpoint, finds the end of the log at the zeroed page, and writes on past it as it would in a whole segment.
 */
export async function migratedPgliteImage(): Promise<Blob> {
  const client = new PGlite();
  await client.waitReady;
  try {
    await migratePglite(drizzlePglite({ client, schema }), { migrationsFolder: MIGRATIONS_FOLDER });
    // One statement each: DROP DATABASE cannot run in the transaction that several statements of one query share.
    for (const template of IMAGE_DROPS) {
      await client.exec(`ALTER DATABASE ${template} IS_TEMPLATE false`);
      await client.exec(`DROP DATABASE ${template}`);
    }
    await leaveOnlyTheLastCheckpointsLog(client);
    return await client.dumpDataDir('none');
  } finally {
    await client.close();
  }
}

/** Moves the log to a new segment past a checkpoint, removes the other segments and cuts that one short. */
async function leaveOnlyTheLastCheckpointsLog(client: PGlite): Promise<void> {
  await client.exec('CHECKPOINT');
  await client.query('SELECT pg_switch_wal()');
  await client.exec('CHECKPOINT');
  const current = await client.query<{ segment: string }>('SELECT pg_walfile_name(pg_current_wal_lsn()) AS segment');
  const kept = current.rows[0]?.segment;
  const FS: unknown = client.Module.FS;
  if (!isPgliteFiles(FS)) throw new Error("PGlite's file system is not the one this image is made with");
  for (const name of FS.readdir(PGLITE_WAL).filter((entry) => WAL_SEGMENT_NAME.test(entry))) {
    const file = `${PGLITE_WAL}/${name}`;
    if (name !== kept) {
      FS.unlink(file);
      continue;
    }
    // Cut after the zeroed page that follows the page of the last record: there PostgreSQL finds the log's end.
    const last = FS.readFile(file).findLastIndex((byte) => byte !== 0);
    FS.truncate(file, (Math.floor(last / WAL_PAGE_BYTES) + 2) * WAL_PAGE_BYTES);
  }
}

/**
 * PGlite runs each query synchronously on this thread, and its queue of waiting queries is a chain of promises:
 * when many are queued (twenty running jobs each writing room results, trajectory points and job changes), one
 * query's end starts the next as a microtask, so the whole queue ran before the event loop read a socket again,
 * and robots' telemetry waited behind it for hundreds of milliseconds. Queries now run in slices of
 * `QUERY_SLICE_MS`: a query that would start a slice later waits for the event loop's next turn first, so I/O
 * that arrived meanwhile (MQTT states, HTTP requests) is handled between two queries. Waiting before every query
 * would do the same but cap the database at one query per turn of a busy loop.
 */
const QUERY_SLICE_MS = 5;

/**
 * drizzle-orm's PGlite driver hands PGlite these parsers with every query: it reads dates, times, intervals and
 * numeric arrays as the text PostgreSQL sends, and converts them itself. PGlite merges a query's parsers into a copy
 * of all its own (about 320 types) for each query: 0.15 ms, as much as a short query itself, and the function with
 * the most time of its own in a test worker on PGlite (npm run bench:pglite-queries). The client has them among its
 * own instead (`TEXT_TYPE_PARSERS`), and a query whose parsers are only these runs without them
 * (`withoutTextParsers`): the same rows, without the copy.
 */
const TEXT_TYPES = [
  types.TIMESTAMP,
  types.TIMESTAMPTZ,
  types.INTERVAL,
  types.DATE,
  1231, // numeric[]
  1115, // timestamp[]
  1185, // timestamptz[]
  1187, // interval[]
  1182, // date[]
];
const asText = (value: string): string => value;
const TEXT_TYPE_PARSERS: ParserOptions = Object.fromEntries(TEXT_TYPES.map((type) => [type, asText]));
/** The same types as the parsers' keys: a parsers object's keys are strings. */
const TEXT_TYPE_KEYS = new Set(Object.keys(TEXT_TYPE_PARSERS));

function withoutTextParsers(options: QueryOptions | undefined): QueryOptions | undefined {
  if (!options?.parsers) return options;
  for (const type of Object.keys(options.parsers)) if (!TEXT_TYPE_KEYS.has(type)) return options;
  const { parsers: _parsers, ...rest } = options;
  return rest;
}

/**
 * PGlite parses and plans every query anew: a parse, a describe, a bind, a describe, an execute and a sync, each a
 * call into the WebAssembly. Most of a short query's time there is PostgreSQL parsing and planning text it has seen
 * before (the server's queries are the same few hundred texts, their values apart). The client keeps a query's
 * statement prepared by name instead, as node-postgres and JDBC do for statements they name, and runs it again with
 * a bind, a describe, an execute and a sync in one call: a user by id through drizzle took 1.13 ms of CPU and
 * takes 0.62 (npm run bench:pglite-queries, on a machine where drizzle over a plain PGlite takes 1.49).
 *
 * Only statements that read and write rows are kept (`KEEPS`); others (a savepoint, DDL) run as PGlite runs them.
 * One that may change what a kept statement reads (`CHANGES_SHAPES`: a table's columns, a function) drops what is
 * kept, and a kept statement PostgreSQL refuses as stale (a change the client did not see) is prepared again. Kept
 * statements outlive a rolled-back transaction (PostgreSQL's prepared statements are not transactional), and the
 * least recently used is closed beyond `MAX_KEPT_STATEMENTS`.
 */
const KEEPS = /^\s*(select|insert|update|delete|with)\b/i;
const CHANGES_SHAPES = /^\s*(create|alter|drop|discard|deallocate)\b/i;
const MAX_KEPT_STATEMENTS = 256;
/** What PostgreSQL answers for a kept statement that no longer holds: its rows changed shape, or it is gone. */
const STALE_STATEMENT = new Set(['0A000', '26000']);

interface KeptStatement {
  name: string;
  /** Its parameters' types, as PostgreSQL described them: each value is serialized for its type. */
  paramTypes: number[];
}

/** A statement that failed only because the kept one no longer holds: run anew, it may succeed. */
class StaleStatement extends Error {
  constructor(readonly failure: unknown) {
    super('kept statement no longer holds');
  }
}

/** A value of a type PGlite has no serializer for (a uuid), as text. */
const textOf = (value: unknown): string => {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
};


class TakingTurnsPGlite extends PGlite {
  /** When the current slice of queries began; undefined once the event loop has turned since. */
  #sliceStartedAt: number | undefined;
  /** Statements kept prepared, by query text, the least recently used first. */
  readonly #kept = new Map<string, KeptStatement>();
  /** Statements no longer kept and not closed yet: closed with the next statement prepared. */
  #toClose: string[] = [];
  #statementsNamed = 0;

  override _runExclusiveQuery<T>(query: () => Promise<T>): Promise<T> {
    return super._runExclusiveQuery(async () => {
      await this.#takeTurn();
      return query();
    });
  }

  /**
   * PGlite's parsers, with drizzle's text parsers in place of its own for those types. PGlite sets a parser for each
   * array type here, once it has started (over one given to its constructor).
   */
  override async _initArrayTypes(options?: { force?: boolean }): Promise<void> {
    await super._initArrayTypes(options);
    Object.assign(this.parsers, TEXT_TYPE_PARSERS);
  }

  /** Hands the author of the changes, if any, to the audit triggers (audit/context.ts). */
  override async transaction<T>(callback: (tx: Transaction) => Promise<T>): Promise<T> {
    const actor = auditSetting();
    return super.transaction(async (tx) => {
      const keeping = this.#keepingTransaction(tx);
      if (actor !== undefined) await keeping.query(SET_AUDIT_SQL, [actor]);
      return callback(keeping);
    });
  }

  /** A lone write with an author runs in a transaction of its own that carries the author. */
  override async query<T>(query: string, params?: unknown[], options?: QueryOptions): Promise<Results<T>> {
    const lean = withoutTextParsers(options);
    const actor = auditSetting();
    if (actor === undefined || !mayWrite(query)) return this.#query<T>(query, params ?? [], lean);
    return super.transaction(async (tx) => {
      const keeping = this.#keepingTransaction(tx);
      await keeping.query(SET_AUDIT_SQL, [actor]);
      return keeping.query<T>(query, params, lean);
    });
  }

  override async exec(query: string, options?: QueryOptions): Promise<Results[]> {
    this.#dropKept();
    return super.exec(query, withoutTextParsers(options));
  }

  /** An open transaction whose queries keep their statements and leave the text parsers out, as the client's do. */
  #keepingTransaction(tx: Transaction): Transaction {
    return {
      query: (query, params, options) => this.#query(query, params ?? [], withoutTextParsers(options), tx),
      sql: (strings, ...params: unknown[]) => tx.sql(strings, ...params),
      exec: (query, options) => {
        this.#dropKept();
        return tx.exec(query, withoutTextParsers(options));
      },
      rollback: () => tx.rollback(),
      listen: (channel, callback) => tx.listen(channel, callback),
      get closed() {
        return tx.closed;
      },
    };
  }

  /** A query on its own, or in the open transaction `tx`: its statement kept if it reads or writes rows. */
  async #query<T>(query: string, params: unknown[], options: QueryOptions | undefined, tx?: Transaction): Promise<Results<T>> {
    if (CHANGES_SHAPES.test(query)) this.#dropKept();
    if (!KEEPS.test(query) || options?.paramTypes !== undefined || options?.blob !== undefined) {
      return tx ? tx.query<T>(query, params, options) : super.query<T>(query, params, options);
    }
    if (tx) {
      if (tx.closed) throw new Error('Transaction is closed');
      // In a transaction a failed statement has aborted it: a stale one cannot be run again there.
      return this._runExclusiveQuery(() => this.#runKept<T>(query, params, options, false)).catch((error: unknown) => {
        throw error instanceof StaleStatement ? error.failure : error;
      });
    }
    await this._checkReady();
    return this._runExclusiveTransaction(() =>
      this._runExclusiveQuery(async () => {
        try {
          return await this.#runKept<T>(query, params, options, true);
        } catch (error) {
          // On its own, a statement that failed because the kept one went stale did nothing: prepared anew, it runs.
          if (!(error instanceof StaleStatement)) throw error;
          return this.#runKept<T>(query, params, options, true);
        }
      }),
    );
  }

  /** PGlite's own steps for a query (parse, describe, bind, describe, execute, sync), the first two once per text. */
  async #runKept<T>(query: string, params: unknown[], options: QueryOptions | undefined, alone: boolean): Promise<Results<T>> {
    const { serialize } = protocol;
    const run = (message: Uint8Array) => this.execProtocolStream(message, { ...options, syncToFs: false });
    let kept = this.#kept.get(query);
    const fresh = kept === undefined;
    let syncSent = false;
    try {
      if (kept === undefined) {
        const name = `uvd_${String((this.#statementsNamed += 1))}`;
        if (this.#kept.size >= MAX_KEPT_STATEMENTS) {
          const [leastRecent] = this.#kept.keys();
          if (leastRecent !== undefined) this.#forget(leastRecent);
        }
        const closing = this.#toClose.splice(0).map((closed) => serialize.close({ type: 'S', name: closed }));
        const described = await run(Buffer.concat([...closing, serialize.parse({ name, text: query }), serialize.describe({ type: 'S', name })]));
        kept = { name, paramTypes: parse.parseDescribeStatementResults(described) };
        this.#kept.set(query, kept);
      } else {
        // The most recently used last.
        this.#kept.delete(query);
        this.#kept.set(query, kept);
      }
      const { paramTypes } = kept;
      const values = params.map((value, index) => {
        if (value === null || value === undefined) return null;
        const type = paramTypes[index] ?? 0;
        const serializer = options?.serializers?.[type] ?? this.serializers[type];
        return serializer ? serializer(value) : textOf(value);
      });
      syncSent = true;
      const replies = await run(Buffer.concat([serialize.bind({ statement: kept.name, values }), serialize.describe({ type: 'P' }), serialize.execute({}), serialize.sync()]));
      if (alone) await this.syncToFs();
      const [result] = parse.parseResults(replies, this.parsers, options);
      if (result === undefined) throw new Error('PGlite answered a query without a result');
      return result as Results<T>;
    } catch (error) {
      if (!(error instanceof messages.DatabaseError)) throw error;
      Object.assign(error, { query, params, queryOptions: options });
      if (fresh || !STALE_STATEMENT.has(error.code ?? '')) throw error;
      this.#forget(query);
      throw new StaleStatement(error);
    } finally {
      if (!syncSent) await run(serialize.sync());
    }
  }

  #forget(query: string): void {
    const kept = this.#kept.get(query);
    if (kept === undefined) return;
    this.#kept.delete(query);
    this.#toClose.push(kept.name);
  }

  /** What is kept is closed with the next statement prepared (exec's statements, unread, may change tables). */
  #dropKept(): void {
    for (const query of [...this.#kept.keys()]) this.#forget(query);
  }

  async #takeTurn(): Promise<void> {
    if (this.#sliceStartedAt !== undefined) {
      if (performance.now() - this.#sliceStartedAt < QUERY_SLICE_MS) return;
      // The slice's own immediate (below) runs before this one and ends the slice.
      await nextTurn();
    }
    this.#sliceStartedAt = performance.now();
    setImmediate(() => {
      this.#sliceStartedAt = undefined;
    });
  }
}

/**
 * PostgreSQL's default 128 MB of shared buffers, which PGlite keeps, is memory of the WebAssembly heap that the
 * server holds for good once touched: a bare PGlite on the demo's database held 362 MB RSS with it and 221 MB with
 * 16 MB (bench/memory.ts). The embedded database is small (the demo's is about 40 MB on disk), its files are read
 * through the operating system's cache, and a production site runs on PostgreSQL, whose own settings rule there.
 */
const PGLITE_SHARED_BUFFERS = '16MB';
const pgliteStartParams = [...PGlite.defaultStartParams, '-c', `shared_buffers=${PGLITE_SHARED_BUFFERS}`];

async function openPglite(dataDir: string | undefined, image: Blob | undefined): Promise<Database> {
  if (dataDir) mkdirSync(dataDir, { recursive: true });
  const client = new TakingTurnsPGlite({ ...(dataDir ? { dataDir } : {}), ...(image ? { loadDataDir: image } : {}), startParams: pgliteStartParams });
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

async function openPostgres(databaseUrl: string, timing: ListenTiming, idleTimeoutMs: number | undefined): Promise<Database> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 10, idleTimeoutMillis: idleTimeoutMs });
  // An idle connection ended by the server (a restart, a failover, DROP DATABASE … WITH (FORCE)) is dropped
  // from the pool and replaced on next use; without a listener it would crash the process.
  pool.on('error', (error) => {
    console.warn(`PostgreSQL pool: idle connection lost (${error.message})`);
  });
  const db = drizzlePg({ client: auditingPool(pool), schema });
  const lockClient = await pool.connect();
  try {
    await lockClient.query('SELECT pg_advisory_lock($1)', [ADVISORY_LOCKS.migrations]);
    await migratePg(db, { migrationsFolder: MIGRATIONS_FOLDER });
  } finally {
    await lockClient.query('SELECT pg_advisory_unlock($1)', [ADVISORY_LOCKS.migrations]).catch(() => undefined);
    lockClient.release();
  }
  const listener = postgresListener(databaseUrl, timing);
  return {
    kind: 'postgres',
    db: db as unknown as Db,
    notifier: {
      listen: listener.listen,
      notify: async (channel, payload) => {
        await pool.query('SELECT pg_notify($1, $2)', [channel, payload]);
      },
    },
    close: async () => {
      await listener.close();
      await pool.end();
    },
  };
}

/** `query` of a pool or client as drizzle calls it (a config object or text, and values), whatever its overloads. */
type ForwardedQuery = (...args: unknown[]) => Promise<unknown>;
const queryOf = (client: pg.Pool | pg.PoolClient): ForwardedQuery => client.query.bind(client);

const queryText = (config: unknown): string =>
  typeof config === 'string' ? config : typeof config === 'object' && config !== null && 'text' in config && typeof config.text === 'string' ? config.text : '';

/**
 * The pool as drizzle sees it: every transaction opened while someone is changing things (audit/context.ts) starts by
 * handing the author to the audit triggers, and a lone write with an author runs in a transaction of its own that
 * does. Drizzle opens a transaction with `connect()` and `begin`; a lone statement is `pool.query`.
 */
function auditingPool(pool: pg.Pool): pg.Pool {
  const auditingClient = (client: pg.PoolClient): pg.PoolClient => {
    const query = queryOf(client);
    return new Proxy(client, {
      get(target, property) {
        if (property === 'query') {
          return async (...args: unknown[]): Promise<unknown> => {
            const result = await query(...args);
            const actor = auditSetting();
            if (actor !== undefined && /^\s*begin\b/i.test(queryText(args[0]))) await target.query(SET_AUDIT_SQL, [actor]);
            return result;
          };
        }
        const value: unknown = Reflect.get(target, property, target);
        if (typeof value !== 'function') return value;
        const bound: unknown = value.bind(target);
        return bound;
      },
    });
  };
  const poolQuery = queryOf(pool);
  return new Proxy(pool, {
    get(target, property) {
      if (property === 'connect') return async () => auditingClient(await target.connect());
      if (property === 'query') {
        return async (...args: unknown[]): Promise<unknown> => {
          const actor = auditSetting();
          if (actor === undefined || !mayWrite(queryText(args[0]))) return poolQuery(...args);
          const client = await target.connect();
          try {
            await client.query('BEGIN');
            await client.query(SET_AUDIT_SQL, [actor]);
            const result = await queryOf(client)(...args);
            await client.query('COMMIT');
            return result;
          } catch (error) {
            await client.query('ROLLBACK').catch(() => undefined);
            throw error;
          } finally {
            client.release();
          }
        };
      }
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      const bound: unknown = value.bind(target);
      return bound;
    },
  });
}

interface Subscription {
  channel: string;
  onPayload: (payload: string) => void;
  hooks: ListenHooks;
}

/**
 * One LISTEN connection for every channel a process listens on, that outlives its backend. A server listens on seven
 * channels (live events, robot commands, revocations, the audit chain, mail, push, webhooks); a connection for each
 * held seven of PostgreSQL's connections per process beside its pool, and the test suite's servers up to 34 of a
 * default 100 at once. Without the watching, a process whose LISTEN connection is terminated (pg_terminate_backend,
 * a restart, a failover) hears nothing more while its API keeps working. A loss shows as an error or end event, or,
 * for a peer gone without a word, as a periodic check that fails; the connection is then replaced with backoff, it
 * listens on every channel again, and each listener is told, so it can read back what it missed. LISTEN, UNLISTEN
 * and a reconnection take turns, so a channel is never left out of a new connection; closing does not wait its turn.
 */
function postgresListener(databaseUrl: string, timing: ListenTiming) {
  const subscriptions = new Set<Subscription>();
  let current: pg.Client | undefined;
  let closed = false;
  /** Read after an await: `close` may have run meanwhile (TypeScript narrows a plain read to what it was before). */
  const isClosed = () => closed;
  let attempt = 0;
  let retry: NodeJS.Timeout | undefined;
  let check: NodeJS.Timeout | undefined;
  let checking = false;
  let turn: Promise<unknown> = Promise.resolve();
  const inTurn = <T>(work: () => Promise<T>): Promise<T> => {
    const result = turn.then(work);
    turn = result.catch(() => undefined);
    return result;
  };

  const channels = () => new Set([...subscriptions].map((subscription) => subscription.channel));
  const quoted = (channel: string) => `"${channel.replaceAll('"', '')}"`;

  const lose = (client: pg.Client, reason: string) => {
    if (client !== current || closed) return;
    current = undefined;
    console.warn(`PostgreSQL LISTEN connection (${[...channels()].join(', ')}) lost (${reason}); reconnecting`);
    client.end().catch(() => undefined);
    scheduleReconnect();
  };

  const deliver = (channel: string, payload: string) => {
    for (const subscription of [...subscriptions]) {
      if (subscription.channel !== channel) continue;
      try {
        subscription.onPayload(payload);
      } catch (error) {
        // One listener's fault does not keep the notification from the others.
        console.error(`PostgreSQL LISTEN: a listener on ${channel} failed (${String(error)})`);
      }
    }
  };

  const connect = async (): Promise<pg.Client> => {
    const client = new pg.Client({ connectionString: databaseUrl, application_name: LISTEN_APPLICATION_NAME, keepAlive: true });
    client.on('error', (error) => {
      lose(client, error.message);
    });
    client.on('end', () => {
      lose(client, 'connection ended');
    });
    client.on('notification', (message) => {
      if (message.payload !== undefined) deliver(message.channel, message.payload);
    });
    try {
      await client.connect();
      for (const channel of channels()) await client.query(`LISTEN ${quoted(channel)}`);
      // Closed meanwhile: close does not wait for a connection, which may take minutes to fail.
      if (isClosed()) throw new Error('the database is closed');
    } catch (error) {
      client.end().catch(() => undefined);
      throw error;
    }
    return client;
  };

  const watch = () => {
    check ??= setInterval(() => {
      const client = current;
      if (!client || checking) return;
      checking = true;
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_resolve, reject) => {
        timer = setTimeout(() => {
          reject(new Error(`no answer within ${timing.checkTimeoutMs} ms`));
        }, timing.checkTimeoutMs);
      });
      Promise.race([client.query('SELECT 1'), timeout])
        .catch((error: unknown) => {
          lose(client, error instanceof Error ? error.message : String(error));
        })
        .finally(() => {
          clearTimeout(timer);
          checking = false;
        });
    }, timing.checkIntervalMs);
    check.unref();
  };

  const scheduleReconnect = () => {
    const delay = Math.min(timing.maxBackoffMs, timing.minBackoffMs * 2 ** attempt) * (0.5 + Math.random() / 2);
    attempt++;
    retry = setTimeout(() => {
      void inTurn(async () => {
        retry = undefined;
        if (closed || subscriptions.size === 0) return;
        try {
          current = await connect();
        } catch (error) {
          if (isClosed()) return;
          console.warn(`PostgreSQL LISTEN connection: reconnecting failed (${String(error)})`);
          scheduleReconnect();
          return;
        }
        attempt = 0;
        for (const subscription of [...subscriptions]) subscription.hooks.onRestored?.();
      });
    }, delay);
  };

  /** Ends the connection (when no one listens any more, or on close); a later listen opens a new one. */
  const disconnect = async () => {
    clearTimeout(retry);
    retry = undefined;
    clearInterval(check);
    check = undefined;
    const client = current;
    current = undefined;
    await client?.end().catch(() => undefined);
  };

  const unlisten = (subscription: Subscription) =>
    inTurn(async () => {
      if (!subscriptions.delete(subscription)) return;
      if (subscriptions.size === 0) {
        await disconnect();
        return;
      }
      if (current && !channels().has(subscription.channel)) await current.query(`UNLISTEN ${quoted(subscription.channel)}`).catch(() => undefined);
    });

  const listen: Notifier['listen'] = (channel, onPayload, hooks = {}) =>
    inTurn(async () => {
      if (closed) throw new Error('the database is closed');
      const subscription: Subscription = { channel, onPayload, hooks };
      const heard = channels().has(channel);
      subscriptions.add(subscription);
      if (current) {
        // A LISTEN that fails has lost the connection: the new one listens on this channel too, and says so.
        const client = current;
        if (!heard) {
          await client.query(`LISTEN ${quoted(channel)}`).catch((error: unknown) => {
            lose(client, String(error));
          });
        }
      } else if (retry === undefined) {
        // The first listener: it fails, as its own connection would, when PostgreSQL cannot be reached.
        try {
          current = await connect();
        } catch (error) {
          subscriptions.delete(subscription);
          throw error;
        }
        watch();
      }
      // Otherwise a reconnection is under way: it listens on this channel too, and says when it is restored.
      return () => unlisten(subscription);
    });

  /** At once, not in turn: a reconnection under way to a server that does not answer may take minutes to fail. */
  const close = async () => {
    closed = true;
    subscriptions.clear();
    await disconnect();
  };

  return { listen, close };
}
