/**
 * Jobs and logs list latency at scale: fills a fresh database with N jobs and as many
 * logs with bulk SQL, starts the real server, and prints p50/p95/p99 over HTTP of the list calls with filters
 * and deep offsets, beside GET /api/settings/language of the same server, then the count's cost in SQL.
 *
 *   npx tsx bench/jobs-list.ts [--engine postgres|pglite] [--jobs N] [--rounds R]
 *
 * PostgreSQL (default): DATABASE_URL or postgres://postgres@127.0.0.1:5432/test names the server; a new
 * database is created there and dropped at the end. PGlite runs in memory. Prints figures; never fails on them.
 */
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { setTimeout } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { sql, type SQL } from 'drizzle-orm';
import { z } from 'zod';
import { JobList, retryAfterMs } from '@uvd/contracts';
import { buildApp } from '../apps/server/src/app.ts';
import { loadConfig } from '../apps/server/src/config.ts';
import type { Db } from '../apps/server/src/db/client.ts';
import { createScratchDatabase, type ScratchDatabase } from '../apps/server/src/db/scratch-database.ts';
import { groups, organizations, robotGroups, userGroups, users } from '../apps/server/src/db/schema.ts';
import { realmIssuer, signAccessToken } from '../apps/server/src/identity/tokens.ts';
import { EXACT_COUNT_CAP } from '../apps/server/src/jobs/list-filter.ts';
import { createSite } from '../apps/server/src/testing/site-fixtures.ts';

const { values: args } = parseArgs({
  options: {
    engine: { type: 'string', default: 'postgres' },
    jobs: { type: 'string' },
    rounds: { type: 'string', default: '20' },
    orgs: { type: 'string', default: '4' },
    'robots-per-org': { type: 'string', default: '5' },
    /** Keep the PostgreSQL database afterwards (its name is printed) to study plans by hand. */
    keep: { type: 'boolean', default: false },
  },
});
const engine = args.engine === 'pglite' ? 'pglite' : 'postgres';
const jobCount = Number(args.jobs ?? (engine === 'postgres' ? 1_000_000 : 100_000));
const rounds = Number(args.rounds);
const orgCount = Number(args.orgs);
const robotsPerOrg = Number(args['robots-per-org']);
/** Start times spread over two years up to 30 days ahead: the past ones are Completed and logged. */
const SPAN_SECONDS = 730 * 86_400;
const DAY_MS = 86_400_000;

interface Org {
  id: string;
  robotIds: string[];
}

const seconds = (startNs: bigint) => Number(process.hrtime.bigint() - startNs) / 1e9;

async function openBenchDatabase(): Promise<ScratchDatabase> {
  return createScratchDatabase(
    engine === 'postgres' ? (process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test') : undefined,
    'uvd_bench',
  );
}

async function fill(db: Db): Promise<Org[]> {
  const orgs: Org[] = [];
  for (let index = 0; index < orgCount; index++) {
    const id = `bench-${index}-${randomBytes(3).toString('hex')}`;
    await db.insert(organizations).values({ id, name: id, uvcDoses: [10, 20, 30, 50], defaultDose: 20 });
    const site = await createSite(db, id, { floors: 1, roomsPerFloor: 10, robots: robotsPerOrg });
    orgs.push({ id, robotIds: site.robotIds });
  }
  const robotRows = orgs.flatMap((org) => org.robotIds.map((robotId) => ({ orgId: org.id, robotId })));
  const robotValues = sql.join(
    robotRows.map((row, n) => sql`(${n}::int, ${row.robotId}::uuid, ${row.orgId}::text)`),
    sql`, `,
  );

  let started = process.hrtime.bigint();
  await db.execute(sql`
    WITH r(n, robot_id, org_id) AS (VALUES ${robotValues})
    INSERT INTO jobs (org_id, robot_id, name, notes, status, start_time, start_now, performed, created_by, created_at, updated_at)
    SELECT r.org_id, r.robot_id, 'Job ' || g, '', CASE WHEN t.ts > now() THEN 'Scheduled' ELSE 'Completed' END,
           t.ts, false, t.ts <= now(), 'bench', t.ts - interval '1 day', t.ts - interval '1 day'
    FROM generate_series(1, ${jobCount}::int) AS g
    JOIN r ON r.n = g % ${robotRows.length}::int
    CROSS JOIN LATERAL (
      SELECT date_trunc('minute', now() + interval '30 days' - make_interval(secs => g::double precision * ${SPAN_SECONDS}::double precision / ${jobCount}::double precision)) AS ts
    ) AS t`);
  console.log(`  jobs: ${jobCount.toLocaleString('en')} rows in ${seconds(started).toFixed(1)} s`);

  started = process.hrtime.bigint();
  await db.execute(sql`
    WITH rr AS (SELECT id, org_id, (row_number() OVER (PARTITION BY org_id ORDER BY order_no) - 1)::int AS rn FROM rooms)
    INSERT INTO job_rooms (job_id, order_no, room_id, dose)
    SELECT j.id, k, rr.id, 20
    FROM jobs AS j CROSS JOIN generate_series(0, 1) AS k
    JOIN rr ON rr.org_id = j.org_id AND rr.rn = (k + abs(hashtext(j.id::text)) % 5)`);
  console.log(`  job_rooms: ${(2 * jobCount).toLocaleString('en')} rows in ${seconds(started).toFixed(1)} s`);

  started = process.hrtime.bigint();
  await db.execute(sql`
    WITH logged AS (
      SELECT org_id, jsonb_agg(jsonb_build_object('order', rn, 'room_id', id, 'room_name', name, 'dose', 20, 'state', 'done') ORDER BY rn) AS rooms
      FROM (SELECT id, org_id, name, (row_number() OVER (PARTITION BY org_id ORDER BY order_no) - 1)::int AS rn FROM rooms) AS numbered
      WHERE rn < 2 GROUP BY org_id
    )
    INSERT INTO logs (job_id, org_id, job_name, completion_status, robot_id, robot_name, created_by, starttime, endtime, notes, rooms, trajectory)
    SELECT j.id, j.org_id, j.name, CASE WHEN abs(hashtext(j.id::text)) % 10 = 0 THEN 'Aborted' ELSE 'Completed' END,
           j.robot_id, ro.name, j.created_by, j.start_time, j.start_time + interval '20 minutes', '', logged.rooms,
           CASE WHEN abs(hashtext(j.id::text)) % 4 = 0 THEN '[{"t":0,"x":1,"y":1,"floor_id":"00000000-0000-4000-8000-000000000000"}]'::jsonb END
    FROM jobs AS j JOIN robots AS ro ON ro.id = j.robot_id JOIN logged ON logged.org_id = j.org_id`);
  console.log(`  logs: ${jobCount.toLocaleString('en')} rows in ${seconds(started).toFixed(1)} s`);

  started = process.hrtime.bigint();
  // VACUUM sets the visibility map, which lets the page and count queries run as index-only scans.
  await db.execute(sql`VACUUM ANALYZE jobs`);
  await db.execute(sql`VACUUM ANALYZE job_rooms`);
  await db.execute(sql`VACUUM ANALYZE logs`);
  await db.execute(sql`ANALYZE`);
  console.log(`  VACUUM ANALYZE in ${seconds(started).toFixed(1)} s`);
  return orgs;
}

interface Stats {
  n: number;
  p50: number;
  p95: number;
  p99: number;
  mean: number;
}

function stats(samples: number[]): Stats {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? Number.NaN;
  return { n: sorted.length, p50: at(0.5), p95: at(0.95), p99: at(0.99), mean: sorted.reduce((a, b) => a + b, 0) / sorted.length };
}

const ymd = (date: Date) => date.toISOString().slice(0, 10);

async function main(): Promise<void> {
  console.log(`bench/jobs-list: ${engine}, ${jobCount.toLocaleString('en')} jobs and as many logs, ${orgCount} organizations × ${robotsPerOrg} robots`);
  const { database, drop, where } = await openBenchDatabase();
  console.log(`  ${where}`);
  try {
    const orgs = await fill(database.db);
    // The server's own load shedding, as deployed. A deep page on PGlite (queries on the server's thread) can keep
    // the loop busy past the utilization limit: the next call is then answered 503 with Retry-After, which the
    // client waits out and sends again, as the console does. Those are counted ("shed") and not timed: the
    // figures are the served calls' own latency.
    const config = { ...loadConfig({ LOG_LEVEL: 'silent', SEED_DEMO: 'false', TOKEN_RATE_LIMIT_PER_MINUTE: '0' }), port: 0, host: '127.0.0.1' };
    const built = await buildApp({ config, database });
    await built.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = built.app.server.address() as AddressInfo;
    const base = `http://127.0.0.1:${port}`;
    const org = orgs[0];
    if (!org) throw new Error('no organization');

    const token = async (roles: string[], groupNames: string[], groupIds: string[]) => {
      const username = `bench-${randomBytes(3).toString('hex')}`;
      const [user] = await database.db
        .insert(users)
        .values({ orgId: org.id, username, passwordHash: 'not-used', roles })
        .returning({ id: users.id });
      if (!user) throw new Error('user not created');
      if (groupIds.length > 0) await database.db.insert(userGroups).values(groupIds.map((groupId) => ({ userId: user.id, groupId })));
      return signAccessToken(
        { userId: user.id, orgId: org.id, username, roles, firstName: 'Bench', lastName: username, email: '', groups: groupNames },
        {
          keys: built.context.keys,
          issuer: realmIssuer(`${base}/idp`, org.id),
          clientId: config.clientId,
          ttlSeconds: 3600,
          sessionId: crypto.randomUUID(),
          scope: 'openid',
        },
      );
    };
    const [group] = await database.db.insert(groups).values({ orgId: org.id, name: 'bench-ward' }).returning({ id: groups.id });
    if (!group) throw new Error('group not created');
    await database.db.insert(robotGroups).values(org.robotIds.slice(0, 2).map((robotId) => ({ robotId, groupId: group.id })));
    const adminToken = await token(['done-admin'], [], []);
    const operatorToken = await token(['done-teleoperator'], ['bench-ward'], [group.id]);

    const today = new Date();
    const robot0 = org.robotIds[0] ?? '';
    const robot1 = org.robotIds[1] ?? '';
    const jobsPerOrg = Math.floor(jobCount / orgCount);
    const tenPages = (path: string, query: string) => Array.from({ length: 10 }, (_, page) => `${path}?${query}${query ? '&' : ''}offset=${page * 10}&limit=10`);
    const robotMonth = `robot_id=${robot0}&from_date=${ymd(new Date(today.getTime() - 30 * DAY_MS))}&to_date=${ymd(today)}`;
    const twoRobotsWeek = `robot_id=${robot0}&robot_id=${robot1}&from_date=${ymd(new Date(today.getTime() - 7 * DAY_MS))}&to_date=${ymd(today)}`;
    const deepOffsets = [10_000, 100_000].filter((offset) => offset < jobsPerOrg);

    type Scenario = { name: string; urls: string[]; bearer: string };
    const scenarios: Scenario[] = [
      { name: 'GET /api/settings/language (baseline)', urls: ['/api/settings/language'], bearer: adminToken },
      { name: 'jobs: 1 robot + 30 days, pages 1-10', urls: tenPages('/api/jobs/v2/jobs', robotMonth), bearer: adminToken },
      { name: 'jobs: 2 robots + 7 days, pages 1-10', urls: tenPages('/api/jobs/v2/jobs', twoRobotsWeek), bearer: adminToken },
      { name: 'jobs: no filter, pages 1-10', urls: tenPages('/api/jobs/v2/jobs', ''), bearer: adminToken },
      { name: 'jobs: teleoperator (2 robots), pages 1-10', urls: tenPages('/api/jobs/v2/jobs', ''), bearer: operatorToken },
      ...deepOffsets.map((offset) => ({
        name: `jobs: no filter, offset ${offset.toLocaleString('en')}`,
        urls: [`/api/jobs/v2/jobs?offset=${offset}&limit=10`],
        bearer: adminToken,
      })),
      { name: 'jobs: 1 robot, offset 10,000', urls: [`/api/jobs/v2/jobs?robot_id=${robot0}&offset=10000&limit=10`], bearer: adminToken },
      { name: 'logs: 1 robot + 30 days, pages 1-10', urls: tenPages('/api/log', robotMonth), bearer: adminToken },
      { name: 'logs: 2 robots + 7 days, pages 1-10', urls: tenPages('/api/log', twoRobotsWeek), bearer: adminToken },
      { name: 'logs: no filter, pages 1-10', urls: tenPages('/api/log', ''), bearer: adminToken },
      { name: 'logs: teleoperator (2 robots), pages 1-10', urls: tenPages('/api/log', ''), bearer: operatorToken },
      ...deepOffsets.map((offset) => ({
        name: `logs: no filter, offset ${offset.toLocaleString('en')}`,
        urls: [`/api/log?offset=${offset}&limit=10`],
        bearer: adminToken,
      })),
      { name: 'GET /healthz (no auth)', urls: ['/healthz'], bearer: adminToken },
    ];

    let shed = 0;
    /** The body of a served call and its latency, ms; a shed call is sent again after its Retry-After. */
    const timedCall = async (url: string, bearer: string): Promise<{ text: string; ms: number }> => {
      for (let attempt = 0; ; attempt++) {
        const started = process.hrtime.bigint();
        const response = await fetch(`${base}${url}`, { headers: { authorization: `Bearer ${bearer}` } });
        const text = await response.text();
        const ms = seconds(started) * 1000;
        const retryAfter = retryAfterMs(response.headers.get('retry-after'));
        if (response.status === 503 && retryAfter !== null && attempt < 5) {
          shed++;
          await setTimeout(retryAfter);
          continue;
        }
        if (response.status !== 200) throw new Error(`${url} answered ${response.status}: ${text.slice(0, 300)}`);
        return { text, ms };
      }
    };
    const call = async (url: string, bearer: string) => (await timedCall(url, bearer)).text;

    // Warm up every URL (JIT, connection pool, PostgreSQL caches) before measuring.
    for (const scenario of scenarios) for (const url of scenario.urls) for (let i = 0; i < 3; i++) await call(url, scenario.bearer);
    const sample = JobList.parse(JSON.parse(await call(scenarios[1]?.urls[0] ?? '', adminToken)));
    const unfiltered = JobList.parse(JSON.parse(await call('/api/jobs/v2/jobs?limit=1', adminToken)));
    console.log(`  org ${org.id}: ${jobsPerOrg.toLocaleString('en')} jobs; 1 robot + 30 days matches ${sample.count}; unfiltered count answered ${unfiltered.count.toLocaleString('en')} (exact up to ${EXACT_COUNT_CAP.toLocaleString('en')}, then the planner's estimate)`);

    console.log(`\nHTTP latency, ms (sequential requests, ${rounds} rounds over each scenario's URLs; client in the same process)`);
    console.log(`${'scenario'.padEnd(46)} ${'n'.padStart(5)} ${'p50'.padStart(7)} ${'p95'.padStart(7)} ${'p99'.padStart(7)} ${'mean'.padStart(7)} ${'shed'.padStart(5)}`);
    for (const scenario of scenarios) {
      const samples: number[] = [];
      const shedBefore = shed;
      const perUrlRounds = Math.max(rounds, Math.ceil(200 / scenario.urls.length));
      for (let round = 0; round < perUrlRounds; round++) {
        for (const url of scenario.urls) samples.push((await timedCall(url, scenario.bearer)).ms);
      }
      const s = stats(samples);
      console.log(
        `${scenario.name.padEnd(46)} ${String(s.n).padStart(5)} ${s.p50.toFixed(2).padStart(7)} ${s.p95.toFixed(2).padStart(7)} ${s.p99.toFixed(2).padStart(7)} ${s.mean.toFixed(2).padStart(7)} ${String(shed - shedBefore).padStart(5)}`,
      );
    }

    await printCountCost(database.db, org.id, robot0, robot1, today);
    await built.app.close();
  } finally {
    await drop({ keep: args.keep });
    if (args.keep) console.log(`  kept ${where}`);
  }
}

/** Both drivers answer `{ rows }`; EXPLAIN's text format gives one line per row. */
const ExplainResult = z.object({ rows: z.array(z.object({ 'QUERY PLAN': z.string() })) });

/** Median wall time of `query` over a few runs, ms. */
async function timeQuery(db: Db, query: SQL, runs = 15): Promise<number> {
  await db.execute(query);
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = process.hrtime.bigint();
    await db.execute(query);
    samples.push(seconds(started) * 1000);
  }
  return stats(samples).p50;
}

async function explain(db: Db, query: SQL): Promise<string[]> {
  const result: unknown = await db.execute(sql`EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY ON) ${query}`);
  return ExplainResult.parse(result).rows.map((row) => row['QUERY PLAN']);
}

async function printCountCost(db: Db, orgId: string, robotId: string, robot1: string, today: Date): Promise<void> {
  const from = new Date(today.getTime() - 30 * DAY_MS);
  const filters: [string, SQL][] = [
    ['org only', sql`org_id = ${orgId}`],
    ['1 robot + 30 days', sql`org_id = ${orgId} AND robot_id = ${robotId}::uuid AND start_time >= ${from.toISOString()}::timestamptz`],
    ['2 robots', sql`org_id = ${orgId} AND robot_id IN (${robotId}::uuid, ${robot1}::uuid)`],
  ];
  console.log('\nCount cost in SQL, median ms (the list answers page and count in parallel on two connections)');
  console.log(`${'jobs filter'.padEnd(22)} ${'page ids'.padStart(9)} ${'exact count'.padStart(12)} ${'capped count'.padStart(13)} ${'estimate'.padStart(9)}`);
  for (const [name, where] of filters) {
    const page = await timeQuery(db, sql`SELECT id FROM jobs WHERE ${where} ORDER BY start_time DESC NULLS LAST, id LIMIT 10`);
    const exact = await timeQuery(db, sql`SELECT count(*) FROM jobs WHERE ${where}`);
    const capped = await timeQuery(db, sql`SELECT count(*) FROM (SELECT 1 FROM jobs WHERE ${where} LIMIT ${EXACT_COUNT_CAP + 1}) AS c`);
    const estimate = await timeQuery(db, sql`EXPLAIN (FORMAT JSON) SELECT 1 FROM jobs WHERE ${where}`);
    console.log(
      `${name.padEnd(22)} ${page.toFixed(2).padStart(9)} ${exact.toFixed(2).padStart(12)} ${capped.toFixed(2).padStart(13)} ${estimate.toFixed(2).padStart(9)}`,
    );
  }
  console.log('\nPlans (EXPLAIN ANALYZE):');
  const plans: [string, SQL][] = [
    ['jobs page, 1 robot + 30 days', sql`SELECT id FROM jobs WHERE ${filters[1]?.[1] ?? sql`true`} ORDER BY start_time DESC NULLS LAST, id LIMIT 10 OFFSET 90`],
    [
      'jobs page, 2 robots (per-robot ranges merged), offset 90',
      sql`SELECT id FROM ((SELECT id, start_time FROM jobs WHERE org_id = ${orgId} AND robot_id = ${robotId}::uuid ORDER BY start_time DESC NULLS LAST, id LIMIT 100)
          UNION ALL (SELECT id, start_time FROM jobs WHERE org_id = ${orgId} AND robot_id = ${robot1}::uuid ORDER BY start_time DESC NULLS LAST, id LIMIT 100)) AS ranges
          ORDER BY start_time DESC NULLS LAST, id LIMIT 10 OFFSET 90`,
    ],
    ['jobs page, org only, offset 100,000', sql`SELECT id FROM jobs WHERE org_id = ${orgId} ORDER BY start_time DESC NULLS LAST, id LIMIT 10 OFFSET 100000`],
    ['jobs exact count, org only', sql`SELECT count(*) FROM jobs WHERE org_id = ${orgId}`],
    ['logs page, 1 robot + 30 days', sql`SELECT job_id FROM logs WHERE org_id = ${orgId} AND robot_id = ${robotId}::uuid AND starttime >= ${from.toISOString()}::timestamptz ORDER BY starttime DESC NULLS LAST, job_id LIMIT 10 OFFSET 90`],
  ];
  for (const [name, query] of plans) {
    console.log(`-- ${name}`);
    for (const line of await explain(db, query)) console.log(`   ${line}`);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
