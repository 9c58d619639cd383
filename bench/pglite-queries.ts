/**
 * What a query costs on the embedded database: the server's PGlite client (db/client.ts, `openDatabase`) beside
 * drizzle-orm over a plain PGlite, both on the same migrated image, in one process. Each round runs N of each query
 * on one and then the other, in turn; the figures are CPU time per query (user + system, this process).
 *
 *   npm run bench:pglite-queries -- [--queries N] [--rounds R]
 *
 * Prints figures; never fails on them.
 */
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { PGlite } from '@electric-sql/pglite';
import { eq, sql } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/pglite';
import { openDatabase, type Db } from '../apps/server/src/db/client.ts';
import { pgliteImage } from '../apps/server/src/db/scratch-database.ts';
import { organizations, users } from '../apps/server/src/db/schema.ts';

const { values: args } = parseArgs({ options: { queries: { type: 'string', default: '2000' }, rounds: { type: 'string', default: '5' } } });
const queries = Number(args.queries);
const rounds = Number(args.rounds);

const image = await pgliteImage();
const server = await openDatabase({ pgliteImage: image });
const plainClient = new PGlite({ loadDataDir: image });
await plainClient.waitReady;
const plain = drizzle({ client: plainClient });
const BASELINE = 'drizzle over a plain PGlite (baseline)';
const SERVER = 'the server client (openDatabase)';
const targets: [string, Db][] = [
  [BASELINE, plain as unknown as Db],
  [SERVER, server.db],
];

// One organization and user in each, to read back.
const orgId = randomUUID();
const userId = randomUUID();
for (const [, db] of targets) {
  await db.insert(organizations).values({ id: orgId, name: 'bench' });
  await db.insert(users).values({ id: userId, orgId, username: 'bench', passwordHash: 'x', roles: ['operator'] });
}

const work: [string, (db: Db) => Promise<unknown>][] = [
  ['SELECT 1', (db) => db.execute(sql`SELECT 1`)],
  ['a user by id (drizzle select, 20 columns)', (db) => db.select().from(users).where(eq(users.id, userId))],
  ['an update in a transaction', (db) => db.transaction((tx) => tx.update(users).set({ firstName: 'b' }).where(eq(users.id, userId)))],
];

const cpuMs = (since: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
};
const totals = new Map<string, number>();
for (let round = 0; round < rounds; round += 1) {
  for (const [query, run] of work) {
    for (const [target, db] of round % 2 === 0 ? targets : [...targets].reverse()) {
      const started = process.cpuUsage();
      for (let index = 0; index < queries; index += 1) await run(db);
      const key = `${query}\t${target}`;
      totals.set(key, (totals.get(key) ?? 0) + cpuMs(started));
    }
  }
}

console.log(`${String(queries)} queries of each kind per round, ${String(rounds)} rounds; CPU per query:`);
const perQuery = (query: string, target: string) => (totals.get(`${query}\t${target}`) ?? 0) / (queries * rounds);
for (const [query] of work) {
  const baseline = perQuery(query, BASELINE);
  const ours = perQuery(query, SERVER);
  console.log(`  ${query}: ${ours.toFixed(3)} ms (baseline ${baseline.toFixed(3)} ms, ${((ours / baseline) * 100).toFixed(0)} %)`);
}
await server.close();
await plainClient.close();
