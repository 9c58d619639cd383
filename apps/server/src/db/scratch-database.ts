/**
 * A throw-away database: in-memory PGlite, or a new database on a PostgreSQL server (dropped afterwards).
 * Tests get one per file; benchmarks one per run.
 */
import { createHash, randomBytes } from 'node:crypto';
import { readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { IMAGE_FORM, MIGRATIONS_FOLDER, migratedPgliteImage, openDatabase, type Database } from './client.ts';

export interface ScratchDatabase {
  database: Database;
  /** The connection string of the new database, when on PostgreSQL. */
  url: string | undefined;
  /** Where it lives, for printing. */
  where: string;
  /** Closes it and, on PostgreSQL, drops it (unless `keep`). */
  drop: (options?: { keep?: boolean }) => Promise<void>;
}

/**
 * `serverUrl` names any database of the PostgreSQL server to create the new one on; undefined means PGlite.
 * `poolIdleTimeoutMs`: on PostgreSQL, how long an unused connection of its pool stays open (`OpenOptions`).
 */
export async function createScratchDatabase(
  serverUrl: string | undefined,
  prefix = 'uvd_scratch',
  { poolIdleTimeoutMs }: { poolIdleTimeoutMs?: number } = {},
): Promise<ScratchDatabase> {
  if (!serverUrl) {
    const database = await openDatabase({ pgliteImage: await pgliteImage() });
    return { database, url: undefined, where: 'PGlite in memory', drop: () => database.close() };
  }
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  const template = await postgresTemplate(serverUrl);
  await onServer(serverUrl, (client) => client.query(`CREATE DATABASE ${name} TEMPLATE ${template}`));
  const url = databaseOn(serverUrl, name);
  // Its migrations are the template's: opening it finds none to apply.
  const database = await openDatabase({ databaseUrl: url.toString(), poolIdleTimeoutMs });
  return {
    database,
    url: url.toString(),
    where: `PostgreSQL database ${name} on ${url.host}`,
    drop: async ({ keep = false } = {}) => {
      await database.close();
      if (keep) return;
      // FORCE ends connections something still holds; the pool's error listener absorbs that.
      await onServer(serverUrl, (client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    },
  };
}

const databaseOn = (serverUrl: string, name: string): URL => {
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url;
};

/** Runs `work` on a connection of its own to the server's database named in `serverUrl` (closed after). */
async function onServer(serverUrl: string, work: (client: pg.Client) => Promise<unknown>): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await work(client);
  } finally {
    await client.end();
  }
}

/**
 * A new database on PostgreSQL is a copy of an empty migrated one, `uvd_template_<hash of the migrations and PGlite's
 * version>`: about 0.1 s, where running every migration took 0.8-1 s, for each of a hundred test files. The first
 * scratch database of a set of migrations on a server makes it, under an advisory lock so that workers starting
 * together make it once: migrated under a name of its own and renamed, so a copy never starts from half of it.
 * Templates of earlier migrations are dropped then.
 */
const templates = new Map<string, Promise<string>>();
const postgresTemplate = (serverUrl: string): Promise<string> => {
  let template = templates.get(serverUrl);
  if (!template) {
    template = makeTemplate(serverUrl);
    templates.set(serverUrl, template);
  }
  return template;
};

async function makeTemplate(serverUrl: string): Promise<string> {
  const name = `uvd_template_${await imageKey()}`;
  await onServer(serverUrl, async (client) => {
    await client.query('SELECT pg_advisory_lock(hashtext($1))', [name]);
    const existing = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (existing.rowCount) return;
    const partial = `${name}_${randomBytes(4).toString('hex')}`;
    await client.query(`CREATE DATABASE ${partial}`);
    const migrated = await openDatabase({ databaseUrl: databaseOn(serverUrl, partial).toString() });
    await migrated.close();
    await client.query(`ALTER DATABASE ${partial} RENAME TO ${name}`);
    // Templates of earlier migrations are of no more use.
    const older = await client.query<{ datname: string }>(`SELECT datname FROM pg_database WHERE datname ~ '^uvd_template_[0-9a-f]{16}$' AND datname <> $1`, [name]);
    for (const { datname } of older.rows) await client.query(`DROP DATABASE IF EXISTS ${datname}`).catch(() => undefined);
  });
  return name;
}

/**
 * A new in-memory PGlite makes its cluster with initdb in WebAssembly: about 2.5 s of CPU, most of what a test
 * file's database costs, and the suite makes about seventy. The first scratch database of a set of migrations on
 * this machine writes an empty migrated one to the temp folder instead, named by a hash of the migrations and of
 * PGlite's version; every later one, in any process, starts from that file (about half a second). Written under a
 * name of its own and renamed, so a reader never sees half of it; images of earlier migrations are removed then.
 */
let image: Promise<Blob> | undefined;
export const pgliteImage = (): Promise<Blob> => (image ??= loadOrMakeImage());

async function loadOrMakeImage(): Promise<Blob> {
  const file = path.join(tmpdir(), `uvd-pglite-${await imageKey()}.tar`);
  const stored = await readFile(file).catch(() => null);
  if (stored) return new Blob([stored]);
  const made = await migratedPgliteImage();
  const partial = `${file}.${String(process.pid)}.${randomBytes(4).toString('hex')}`;
  await writeFile(partial, Buffer.from(await made.arrayBuffer()));
  await rename(partial, file);
  // Images of earlier migrations are of no more use (one is 40 MB).
  for (const name of await readdir(tmpdir())) {
    const older = path.join(tmpdir(), name);
    if (/^uvd-pglite-[0-9a-f]{16}\.tar$/.test(name) && older !== file) await rm(older, { force: true });
  }
  return made;
}

async function imageKey(): Promise<string> {
  const hash = createHash('sha256');
  const pgliteEntry = createRequire(import.meta.url).resolve('@electric-sql/pglite');
  const pglitePackage = path.join(pgliteEntry.slice(0, pgliteEntry.lastIndexOf(`${path.sep}dist${path.sep}`)), 'package.json');
  hash.update(await readFile(pglitePackage));
  // An image made another way (before the templates or the old log were left out) is not taken for this one.
  hash.update(IMAGE_FORM);
  for (const name of (await readdir(MIGRATIONS_FOLDER, { recursive: true })).sort()) {
    const content = await readFile(path.join(MIGRATIONS_FOLDER, name)).catch(() => null);
    if (content) hash.update(name).update(content);
  }
  return hash.digest('hex').slice(0, 16);
}
