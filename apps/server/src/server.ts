/**
 * Entry point: open the database (locking an embedded data folder), build the app, listen, shut down cleanly.
 * The demo fleet is not part of the server: scripts/start.mjs runs it beside the server (apps/robot-sim).
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { buildApp } from './app.ts';
import { loadConfig } from './config.ts';
import { openDatabase } from './db/client.ts';
import { DataDirLockedError, lockDataDir } from './db/data-dir-lock.ts';
import { demoSeedNeeded, seedDemoIfEmpty, type SeedSummary } from './seed/demo-seed.ts';
import { runSeedProcess } from './seed/seed-process.ts';

async function main(): Promise<void> {
  const config = loadConfig();
  let releaseLock: (() => void) | undefined;
  if (!config.databaseUrl) {
    try {
      releaseLock = await lockDataDir(config.dataDir);
    } catch (error) {
      if (error instanceof DataDirLockedError) {
        console.error(error.message);
        process.exit(1);
      }
      throw error;
    }
  }
  let seeded: SeedSummary[] | null = null;
  const embeddedFolder = config.databaseUrl ? undefined : config.dataDir;
  // A new embedded data folder to seed is made (PGlite's initdb), migrated and seeded in a process of its own: in
  // this one they would leave it holding about 70 MB more for good (seed/seed-process.ts).
  if (config.seedDemo && embeddedFolder && !existsSync(path.join(embeddedFolder, 'PG_VERSION'))) {
    seeded = await runSeedProcess(embeddedFolder, config.variant);
  }
  let database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  // Seeded before the app is built, so whatever starts with it (the scheduler) finds the demo robots.
  if (config.seedDemo && embeddedFolder && (await demoSeedNeeded(database.db, config.variant))) {
    // An existing folder still to seed: made with SEED_DEMO=false, or the logistics part of VARIANT=logistics.
    await database.close();
    seeded = await runSeedProcess(embeddedFolder, config.variant);
    database = await openDatabase({ dataDir: embeddedFolder });
  } else if (config.seedDemo && !embeddedFolder) {
    seeded = await seedDemoIfEmpty(database, { variant: config.variant });
  }
  const { app } = await buildApp({ config, database });
  if (seeded) app.log.info({ seeded }, 'seeded the demo organizations');

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down');
    await app.close();
    await database.close();
    releaseLock?.();
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));

  await app.listen({ port: config.port, host: config.host });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
