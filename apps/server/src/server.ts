/** Entry point: open the database (locking an embedded data folder), build the app, listen, shut down cleanly. */
import { buildApp } from './app.ts';
import { loadConfig } from './config.ts';
import { openDatabase } from './db/client.ts';
import { DataDirLockedError, lockDataDir } from './db/data-dir-lock.ts';
import { seedDemoIfEmpty } from './seed/demo-seed.ts';
import { startDemoActivity, type DemoActivity } from './sim/demo-activity.ts';
import { startDemoFleet } from './sim/demo-fleet.ts';

async function main(): Promise<void> {
  const config = loadConfig();
  let releaseLock: (() => void) | undefined;
  if (!config.databaseUrl) {
    try {
      releaseLock = lockDataDir(config.dataDir);
    } catch (error) {
      if (error instanceof DataDirLockedError) {
        console.error(error.message);
        process.exit(1);
      }
      throw error;
    }
  }
  const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  // Seeded before the app is built, so whatever starts with it (the fleet, the scheduler) finds the demo robots.
  const seeded = config.seedDemo ? await seedDemoIfEmpty(database) : null;
  const { app, context } = await buildApp({ config, database });
  if (seeded) app.log.info({ seeded }, 'seeded the demo organizations into the empty database');

  let demoFleet: Awaited<ReturnType<typeof startDemoFleet>> | undefined;
  let demoActivity: DemoActivity | undefined;
  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down');
    // The activity first: it sets the rooms it made not ready ready again, and must not give stopped robots jobs.
    await demoActivity?.stop();
    await demoFleet?.stop();
    await app.close();
    await database.close();
    releaseLock?.();
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));

  await app.listen({ port: config.port, host: config.host });
  if (config.simFleet) {
    demoFleet = await startDemoFleet(context, { timeFactor: config.simTimeFactor });
    for (const failure of demoFleet.failed) app.log.warn({ robot: failure.serialNumber, err: failure.error }, 'demo robot could not connect');
    app.log.info({ robots: demoFleet.robots.length, timeFactor: config.simTimeFactor }, 'demo fleet running (SIM_FLEET=false switches it off)');
    if (config.demoActivity) {
      demoActivity = startDemoActivity(context, { robotIds: demoFleet.robotIds, logger: app.log });
      app.log.info('demo activity running: idle demo robots get jobs every 20 s (DEMO_ACTIVITY=false switches it off)');
    }
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
