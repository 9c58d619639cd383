/**
 * npm run site:import FILE [--org ID]: loads a site file (see ./README.md) into the database the server uses
 * (DATABASE_URL, or the PGlite folder DATA_DIR, which must not be in use by a running server).
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../config.ts';
import { withServerDatabase } from '../db/command-database.ts';
import { DataDirLockedError } from '../db/data-dir-lock.ts';
import { loadSiteFile, SiteImportError } from './site-file.ts';
import { importSite } from './site-import.ts';

const USAGE = 'usage: npm run site:import FILE [-- --org ID]   (FILE: a .json, .yaml or .yml site file)';

async function main(): Promise<number> {
  let args;
  try {
    args = parseArgs({ allowPositionals: true, options: { org: { type: 'string' }, help: { type: 'boolean', short: 'h' } } });
  } catch (error) {
    console.error(`${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  const [file, ...extra] = args.positionals;
  if (args.values.help || !file || extra.length > 0) {
    console.error(USAGE);
    return args.values.help ? 0 : 2;
  }
  // npm runs workspace scripts in the workspace folder; a relative FILE means the caller's folder.
  const path = resolve(process.env.INIT_CWD ?? process.cwd(), file);
  // A bad file is reported before the database is opened or its folder locked.
  const loaded = await loadSiteFile(path).catch((error: unknown) => {
    throw error instanceof SiteImportError ? new SiteImportError(file, error.problems) : error;
  });
  const org = args.values.org;
  return withServerDatabase(loadConfig(), async (database) => {
    const summary = await importSite(database.db, loaded, { orgId: org, source: file });
    const counts = (what: string, c: { created: number; updated: number }) => `${what}: ${c.created} created, ${c.updated} updated`;
    console.log(
      [
        `Imported ${file} into organization ${summary.organization}${summary.organizationCreated ? ' (new)' : ''}.`,
        counts('buildings', summary.buildings),
        counts('floors', summary.floors),
        counts('rooms', summary.rooms),
        counts('robots', summary.robots),
      ].join('\n  '),
    );
    return 0;
  });
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    if (error instanceof SiteImportError) {
      console.error(`Nothing was imported: ${error.source} has problems.`);
      for (const problem of error.problems) console.error(`  - ${problem.path ? `${problem.path}: ` : ''}${problem.message}`);
    } else if (error instanceof DataDirLockedError) console.error(error.message);
    else console.error(error);
    process.exitCode = 1;
  },
);
