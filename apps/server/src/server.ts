/**
 * Entry point: open the database (locking an embedded data folder), build the app, listen, shut down cleanly.
 * The demo fleet is not part of the server: scripts/start.mjs runs it beside the server (apps/robot-sim).
 */
import { buildApp } from './app.ts';
import { loadConfig } from './config.ts';
import { openDatabase } from './db/client.ts';
import { DataDirLockedError, lockDataDir } from './db/data-dir-lock.ts';
import { seedDemoIfEmpty } from './seed/demo-seed.ts';

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
  let database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  // Seeded before the app is built, so whatever starts with it (the scheduler) finds the demo robots.
  const seeded = config.seedDemo ? await seedDemoIfEmpty(database, { variant: config.variant }) : null;
  if (seeded && database.kind === 'pglite') {
    // The seed's one transaction (the demo's history) grew PGlite's WebAssembly heap, which never shrinks: 572 MB
    // against 141 MB after 60 s of the demo (bench/memory.ts). A new instance on the same folder starts small.
    await database.close();
    database = await openDatabase({ dataDir: config.dataDir });
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
