/**
 * `npm run sim -- --broker URL --robots N [...]`: the simulated fleet alone, against any broker; or
 * `npm run sim -- --server URL --org ORG --admin USER`: the organization's registered robots, each with a fresh
 * MQTT password from the server's admin API. See ../README.md for the options.
 */
import { randomUUID } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { ApiClient } from './demo/api-client.ts';
import { startDemoFleet } from './demo/demo-fleet.ts';
import { startSimFleet } from './sim-fleet.ts';
import type { SimFleet, SimFleetRobot } from './sim-fleet.ts';

const USAGE = `Usage:
  npm run sim -- --broker URL [--robots N] [--password P] [--manufacturer M] [--map FLOOR_ID]
                 [--time-factor F] [--fault-rate R] [--kind disinfection|delivery]
  npm run sim -- --server URL --org ORG_ID --admin USER [--admin-password P] [--broker URL]
                 [--time-factor F] [--fault-rate R]
  (--admin-password may come from SIM_ADMIN_PASSWORD instead)`;

/**
 * An organization id is its realm name (`demo`, `northwind`): lowercase letters, digits, `-` and `_`, as the
 * server's token issuer paths allow.
 */
const OrganizationId = z
  .string()
  .regex(/^[a-z0-9][a-z0-9_-]*$/, '--org must be an organization id (its realm name in lowercase, such as demo)');

export const CliOptions = z
  .object({
    broker: z.string().min(1).optional(),
    robots: z.coerce.number().int().min(1).default(3),
    password: z.string().default('sim'),
    manufacturer: z.string().default('uvd'),
    map: z.string().optional(),
    kind: z.enum(['disinfection', 'delivery']).default('disinfection'),
    org: OrganizationId.optional(),
    timeFactor: z.coerce.number().positive().default(1),
    faultRate: z.coerce.number().min(0).max(1).default(0),
    server: z.url('--server must be the server address, such as http://127.0.0.1:8080').optional(),
    admin: z.string().min(1).optional(),
    adminPassword: z.string().min(1).optional(),
  })
  .superRefine((options, ctx) => {
    if (options.server === undefined) {
      if (options.broker === undefined) ctx.addIssue({ code: 'custom', path: ['broker'], message: '--broker is required (or --server)' });
      return;
    }
    if (options.org === undefined) ctx.addIssue({ code: 'custom', path: ['org'], message: '--server needs --org' });
    if (options.admin === undefined) ctx.addIssue({ code: 'custom', path: ['admin'], message: '--server needs --admin (an admin of the organization)' });
    if (options.adminPassword === undefined) {
      ctx.addIssue({ code: 'custom', path: ['adminPassword'], message: '--server needs --admin-password or SIM_ADMIN_PASSWORD' });
    }
  });
export type CliOptions = z.infer<typeof CliOptions>;

export function parseCliArgs(argv: string[], env: NodeJS.ProcessEnv = {}): CliOptions {
  const { values } = parseArgs({
    args: argv,
    options: {
      broker: { type: 'string' },
      robots: { type: 'string' },
      password: { type: 'string' },
      manufacturer: { type: 'string' },
      map: { type: 'string' },
      kind: { type: 'string' },
      org: { type: 'string' },
      'time-factor': { type: 'string' },
      'fault-rate': { type: 'string' },
      server: { type: 'string' },
      admin: { type: 'string' },
      'admin-password': { type: 'string' },
    },
  });
  return CliOptions.parse({
    broker: values.broker,
    robots: values.robots,
    password: values.password,
    manufacturer: values.manufacturer,
    map: values.map,
    kind: values.kind,
    org: values.org,
    timeFactor: values['time-factor'],
    faultRate: values['fault-rate'],
    server: values.server,
    admin: values.admin,
    adminPassword: values['admin-password'] ?? (env.SIM_ADMIN_PASSWORD === '' ? undefined : env.SIM_ADMIN_PASSWORD),
  });
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
    kind: options.kind,
  }));
}

async function main(): Promise<void> {
  let options: CliOptions;
  try {
    options = parseCliArgs(process.argv.slice(2), process.env);
  } catch (error) {
    console.error(error instanceof z.ZodError ? z.prettifyError(error) : error instanceof Error ? error.message : error);
    console.error(USAGE);
    process.exit(2);
  }
  let fleet: SimFleet;
  let brokerUrl = options.broker ?? '';
  if (options.server && options.org && options.admin && options.adminPassword) {
    const api = new ApiClient(options.server, { organization: options.org, username: options.admin, password: options.adminPassword });
    const demo = await startDemoFleet(api, { timeFactor: options.timeFactor, faultRate: options.faultRate, ...(options.broker ? { brokerUrl: options.broker } : {}) });
    fleet = demo;
    brokerUrl = options.broker ?? 'the broker the server named';
  } else {
    console.log(
      'The server accepts these robots once they are registered (npm run site:import, robots of a site file) and ' +
        'their password is the one the broker checks: for the embedded broker, make one with ' +
        'POST /api/admin/robot/robots/{robot_id}/mqtt_credentials, or play registered robots with --server instead.\n',
    );
    fleet = await startSimFleet({ brokerUrl, robots: generatedRobots(options), timeFactor: options.timeFactor, faultRate: options.faultRate });
  }
  for (const failure of fleet.failed) console.error(`${failure.serialNumber}: ${failure.error.message}`);
  console.log(`${fleet.robots.length} simulated robots connected to ${brokerUrl} (time factor ${options.timeFactor}); Ctrl-C stops them.`);
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
