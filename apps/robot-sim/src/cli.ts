/**
 * `npm run sim -- --broker URL --robots N [...]`: the simulated fleet alone, against any broker.
 * See ../README.md for the options and how the server learns about these robots.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { hash } from '@node-rs/argon2';
import pg from 'pg';
import { z } from 'zod';
import { startSimFleet } from './sim-fleet.ts';
import type { SimFleetRobot } from './sim-fleet.ts';

const USAGE = `Usage:
  npm run sim -- --broker URL [--robots N] [--password P] [--manufacturer M] [--map FLOOR_ID] [--org ORG_ID]
                 [--time-factor F] [--fault-rate R]
  npm run sim -- --broker URL --from-db DATABASE_URL --org ORG_ID [--time-factor F] [--fault-rate R]`;

/**
 * An organization id is its realm name (`demo`, `northwind`): lowercase letters, digits, `-` and `_`, as the
 * server's token issuer paths allow (apps/server/src/identity/verifier.ts). It also goes into the printed SQL.
 */
const OrganizationId = z
  .string()
  .regex(/^[a-z0-9][a-z0-9_-]*$/, '--org must be an organization id (its realm name in lowercase, such as demo)');

export const CliOptions = z.object({
  broker: z.string().min(1, '--broker is required'),
  robots: z.coerce.number().int().min(1).default(3),
  password: z.string().default('sim'),
  manufacturer: z.string().default('uvd'),
  map: z.string().optional(),
  org: OrganizationId.optional(),
  timeFactor: z.coerce.number().positive().default(1),
  faultRate: z.coerce.number().min(0).max(1).default(0),
  fromDb: z.string().optional(),
});
export type CliOptions = z.infer<typeof CliOptions>;

export function parseCliArgs(argv: string[]): CliOptions {
  const { values } = parseArgs({
    args: argv,
    options: {
      broker: { type: 'string' },
      robots: { type: 'string' },
      password: { type: 'string' },
      manufacturer: { type: 'string' },
      map: { type: 'string' },
      org: { type: 'string' },
      'time-factor': { type: 'string' },
      'fault-rate': { type: 'string' },
      'from-db': { type: 'string' },
    },
  });
  const options = CliOptions.parse({
    broker: values.broker ?? '',
    robots: values.robots,
    password: values.password,
    manufacturer: values.manufacturer,
    map: values.map,
    org: values.org,
    timeFactor: values['time-factor'],
    faultRate: values['fault-rate'],
    fromDb: values['from-db'],
  });
  if (options.fromDb && !options.org) throw new Error('--from-db needs --org');
  return options;
}

/** Robots sim-1..N, all with the given password, in a row along x from the origin of the floor. */
export function generatedRobots(options: CliOptions): SimFleetRobot[] {
  const mapId = options.map ?? randomUUID();
  return Array.from({ length: options.robots }, (_, i) => ({
    manufacturer: options.manufacturer,
    serialNumber: `sim-${i + 1}`,
    password: options.password,
    mapId,
    home: { x: i, y: 0, theta: 0 },
  }));
}

/** The server's hashing parameters (apps/server/src/identity/passwords.ts): argon2id, OWASP's m=19 MiB, t=2, p=1. */
const ARGON2ID = { algorithm: 2, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

const sqlString = (value: string) => `'${value.replaceAll("'", "''")}'`;

/**
 * SQL that registers the generated robots with the server's database (or updates their MQTT password): what the
 * embedded broker needs to let them in, and what any broker needs for the gateway to accept their states.
 */
export async function registrationSql(robots: SimFleetRobot[], orgId: string | undefined): Promise<string> {
  const org = orgId ? sqlString(orgId) : ':org_id';
  const rows = await Promise.all(
    robots.map(async (robot) => {
      const passwordHash = robot.password ? await hash(robot.password, ARGON2ID) : null;
      const values = [
        org,
        sqlString(robot.serialNumber),
        sqlString(robot.manufacturer),
        sqlString(robot.serialNumber),
        sqlString(robot.mapId),
        sqlString(JSON.stringify(robot.home)),
        passwordHash ? sqlString(passwordHash) : 'NULL',
      ];
      return `  (${values.join(', ')})`;
    }),
  );
  return [
    'INSERT INTO robots (org_id, name, manufacturer, serial_number, floor_id, home, mqtt_password_hash) VALUES',
    rows.join(',\n'),
    'ON CONFLICT (manufacturer, serial_number) DO UPDATE SET mqtt_password_hash = EXCLUDED.mqtt_password_hash;',
  ].join('\n');
}

const DbRobot = z.object({
  id: z.string(),
  manufacturer: z.string(),
  serial_number: z.string(),
  floor_id: z.string().nullable(),
  home: z.object({ x: z.number(), y: z.number(), theta: z.number() }).nullable(),
});

/** The organization's robots from the server's PostgreSQL, each given a fresh MQTT password for this run. */
async function robotsFromDatabase(databaseUrl: string, orgId: string): Promise<SimFleetRobot[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const result = await client.query('SELECT id, manufacturer, serial_number, floor_id, home FROM robots WHERE org_id = $1 ORDER BY name', [orgId]);
    const rows = z.array(DbRobot).parse(result.rows);
    const robots: SimFleetRobot[] = [];
    for (const row of rows) {
      if (!row.floor_id) {
        console.warn(`skipping ${row.serial_number}: it has no floor`);
        continue;
      }
      const password = randomBytes(18).toString('base64url');
      await client.query('UPDATE robots SET mqtt_password_hash = $1 WHERE id = $2', [await hash(password, ARGON2ID), row.id]);
      robots.push({ manufacturer: row.manufacturer, serialNumber: row.serial_number, password, mapId: row.floor_id, home: row.home ?? { x: 0, y: 0, theta: 0 } });
    }
    return robots;
  } finally {
    await client.end();
  }
}

async function main(): Promise<void> {
  let options: CliOptions;
  try {
    options = parseCliArgs(process.argv.slice(2));
  } catch (error) {
    console.error(error instanceof z.ZodError ? z.prettifyError(error) : error instanceof Error ? error.message : error);
    console.error(USAGE);
    process.exit(2);
  }
  let robots: SimFleetRobot[];
  if (options.fromDb && options.org) {
    robots = await robotsFromDatabase(options.fromDb, options.org);
  } else {
    robots = generatedRobots(options);
    console.log('The server accepts these robots once they are in its database, e.g. (PostgreSQL):\n');
    console.log(await registrationSql(robots, options.org));
    console.log();
  }
  const fleet = await startSimFleet({ brokerUrl: options.broker, robots, timeFactor: options.timeFactor, faultRate: options.faultRate });
  for (const failure of fleet.failed) console.error(`${failure.serialNumber}: ${failure.error.message}`);
  console.log(`${fleet.robots.length} simulated robots connected to ${options.broker} (time factor ${options.timeFactor}); Ctrl-C stops them.`);
  const stop = async () => {
    await fleet.stop();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
