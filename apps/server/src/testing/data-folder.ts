/** Data folders for the tests that start server processes on PGlite (DATA_DIR). */
import { readdir } from 'node:fs/promises';
import { openDatabase, type Database } from '../db/client.ts';
import { pgliteImage } from '../db/scratch-database.ts';

/**
 * Opens the PGlite data folder a server process will open after (its DATA_DIR): a test that starts server processes
 * writes its data there first, and closes it before the server opens the folder. An empty (or absent) folder gets an
 * empty migrated database from the image the in-memory test databases start from (db/scratch-database.ts): about
 * 1.5 s of CPU here, where initdb and every migration took 4-5 s. A folder that holds one is opened as it is.
 */
export async function openMigratedDataFolder(dataDir: string): Promise<Database> {
  const empty = (await readdir(dataDir).catch(() => [])).length === 0;
  return openDatabase({ dataDir, pgliteImage: empty ? await pgliteImage() : undefined });
}
