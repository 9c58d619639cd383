/**
 * `npm run demo -- --server URL`: the demo beside a running server. For each organization it
 * signs in as the admin, plays the robots that stand on a floor with simulated robots of their kind (fresh MQTT
 * passwords from the admin API) and, unless switched off, keeps them busy as the server's variant (its
 * /config.json) shows: idle UV robots get jobs (demo-activity.ts), or, with `VARIANT=logistics`, the logistics
 * people request deliveries and answer the delivery robots (delivery-activity.ts). SIGINT or SIGTERM stops the
 * activity (rooms it made not ready are set ready again), then the robots. See ../../README.md "Demo".
 */
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { ApiClient } from './api-client.ts';
import { consoleLogger, startDemoActivity, type DemoActivity } from './demo-activity.ts';
import { DEMO_IRRADIANCE, startDemoFleet, type DemoFleet } from './demo-fleet.ts';
import { startDeliveryActivity, type DeliveryActivity } from './delivery-activity.ts';
import { DEFAULT_DEMO_PEOPLE, parseLogins } from './logins.ts';

const USAGE = `Usage: npm run demo -- [--server URL] [--broker URL] [--time-factor F] [--irradiance W] [--activity true|false] [--skip-robots NAME,…]
Settings also read from the environment: DEMO_SERVER_URL, DEMO_BROKER_URL, SIM_TIME_FACTOR, SIM_IRRADIANCE, DEMO_ACTIVITY, DEMO_LOGINS, DEMO_PEOPLE, DEMO_SKIP_ROBOTS.`;

const Flag = z.enum(['true', 'false']).transform((value) => value === 'true');

export const DemoSettings = z.object({
  server: z.url('--server must be the server address, such as http://127.0.0.1:8080'),
  broker: z.string().min(1).optional(),
  timeFactor: z.coerce.number().positive('SIM_TIME_FACTOR must be above 0'),
  /** W/m² the robots give a room's far wall (SIM_IRRADIANCE): a dose of D J/m² takes D / irradiance s. */
  irradiance: z.coerce.number().positive('SIM_IRRADIANCE must be above 0'),
  activity: Flag,
  logins: z.string().optional(),
  /** The logistics people's logins (DEMO_PEOPLE), for the delivery activity. */
  people: z.string().optional(),
  /** Robot names (in any organization) the demo does not play, e.g. robots a test drives itself. */
  skipRobots: z.array(z.string()),
});
export type DemoSettings = z.infer<typeof DemoSettings>;

export function parseDemoSettings(argv: string[], env: NodeJS.ProcessEnv): DemoSettings {
  const { values } = parseArgs({
    args: argv,
    options: {
      server: { type: 'string' },
      broker: { type: 'string' },
      'time-factor': { type: 'string' },
      irradiance: { type: 'string' },
      activity: { type: 'string' },
      'skip-robots': { type: 'string' },
    },
  });
  const blank = (value: string | undefined) => (value === '' ? undefined : value);
  return DemoSettings.parse({
    server: values.server ?? blank(env.DEMO_SERVER_URL) ?? 'http://127.0.0.1:8080',
    broker: values.broker ?? blank(env.DEMO_BROKER_URL),
    timeFactor: values['time-factor'] ?? blank(env.SIM_TIME_FACTOR) ?? '1',
    irradiance: values.irradiance ?? blank(env.SIM_IRRADIANCE) ?? String(DEMO_IRRADIANCE),
    activity: values.activity ?? blank(env.DEMO_ACTIVITY) ?? 'true',
    logins: blank(env.DEMO_LOGINS),
    people: blank(env.DEMO_PEOPLE),
    skipRobots: (values['skip-robots'] ?? env.DEMO_SKIP_ROBOTS ?? '')
      .split(',')
      .map((name) => name.trim())
      .filter((name) => name !== ''),
  });
}

export interface RunningDemo {
  organizations: { organization: string; fleet: DemoFleet; activity?: DemoActivity; deliveries?: DeliveryActivity }[];
  stop(): Promise<void>;
}

/** Starts the fleet (and the activity) of every organization whose admin can sign in; the others are reported. */
export async function startDemo(settings: DemoSettings): Promise<RunningDemo> {
  const organizations: RunningDemo['organizations'] = [];
  for (const login of parseLogins(settings.logins)) {
    const api = new ApiClient(settings.server, login);
    try {
      await api.signIn();
    } catch (error) {
      console.warn(`[demo] ${login.organization}: not played (${error instanceof Error ? error.message : String(error)})`);
      continue;
    }
    let fleet: DemoFleet;
    try {
      fleet = await startDemoFleet(api, {
        timeFactor: settings.timeFactor,
        irradiance: settings.irradiance,
        skipRobots: settings.skipRobots,
        ...(settings.broker ? { brokerUrl: settings.broker } : {}),
      });
    } catch (error) {
      console.warn(`[demo] ${login.organization}: not played (${error instanceof Error ? error.message : String(error)})`);
      continue;
    }
    for (const failure of fleet.failed) console.warn(`[demo] ${login.organization}: robot ${failure.serialNumber} could not connect: ${failure.error.message}`);
    // The activity the console of this server shows: jobs, or (VARIANT=logistics) deliveries.
    const logistics = (await api.runtimeConfig()).variant === 'logistics';
    const activity = settings.activity && !logistics ? startDemoActivity(api, { robotIds: fleet.robotIds, logger: consoleLogger }) : undefined;
    const people = parseLogins(settings.people, DEFAULT_DEMO_PEOPLE)
      .filter((person) => person.organization === login.organization)
      .map((person) => new ApiClient(settings.server, person));
    const deliveries =
      settings.activity && logistics && fleet.deliveryRobots.length > 0
        ? startDeliveryActivity({ admin: api, people, robots: fleet.deliveryRobots, logger: consoleLogger })
        : undefined;
    organizations.push({ organization: login.organization, fleet, ...(activity ? { activity } : {}), ...(deliveries ? { deliveries } : {}) });
    const what = logistics ? `delivery activity ${deliveries ? `on (${people.length} people)` : 'off'}` : `activity ${activity ? 'on' : 'off'}`;
    console.log(`[demo] ${login.organization}: ${fleet.robots.length} simulated robots (${fleet.deliveryRobots.length} delivery robots, time factor ${settings.timeFactor}), ${what}`);
  }
  return {
    organizations,
    async stop() {
      // The activity first: it sets the rooms it made not ready ready again, and must not give stopped robots jobs.
      await Promise.all(organizations.flatMap((entry) => [entry.activity?.stop() ?? Promise.resolve(), entry.deliveries?.stop() ?? Promise.resolve()]));
      await Promise.all(organizations.map((entry) => entry.fleet.stop()));
    },
  };
}

async function main(): Promise<void> {
  let settings: DemoSettings;
  try {
    settings = parseDemoSettings(process.argv.slice(2), process.env);
  } catch (error) {
    console.error(error instanceof z.ZodError ? z.prettifyError(error) : error instanceof Error ? error.message : error);
    console.error(USAGE);
    process.exit(2);
  }
  // A signal while the robots connect stops them once they are up.
  const state: { demo?: RunningDemo; stopping: boolean } = { stopping: false };
  const stop = async () => {
    if (state.stopping) return;
    state.stopping = true;
    await state.demo?.stop();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());
  const demo = await startDemo(settings);
  state.demo = demo;
  const robots = demo.organizations.reduce((sum, entry) => sum + entry.fleet.robots.length, 0);
  // The line the supervisors (scripts/start.mjs, the browser tests' harness) wait for.
  console.log(`[demo] ready: ${robots} simulated robots in ${demo.organizations.length} organizations`);
  if (state.stopping) {
    await demo.stop();
    process.exit(0);
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
