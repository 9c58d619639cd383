import { openDatabase, type Database } from './client.ts';
import { lockDataDir } from './data-dir-lock.ts';

/**
 * Runs `work` on the database the server uses, for a command of its own (npm run audit:verify, site:import):
 * PostgreSQL at `databaseUrl`, or the PGlite folder `dataDir`, locked meanwhile so that it is not in use by a
 * running server (DataDirLockedError when it is).
 */
export async function withServerDatabase<T>(config: { databaseUrl: string | undefined; dataDir: string }, work: (database: Database) => Promise<T>): Promise<T> {
  const releaseLock = config.databaseUrl ? undefined : await lockDataDir(config.dataDir);
  try {
    const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
    try {
      return await work(database);
    } finally {
      await database.close();
    }
  } finally {
    releaseLock?.();
  }
}
