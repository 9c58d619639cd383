/**
 * npm run audit:verify [-- --org ID]: verifies the audit chain of one organization or of all, on the database the
 * server uses (DATABASE_URL, or the PGlite folder DATA_DIR, which must not be in use by a running server). Exits
 * 1 when a chain is broken, saying where.
 */
import { parseArgs } from 'node:util';
import { loadConfig } from '../config.ts';
import { withServerDatabase } from '../db/command-database.ts';
import { DataDirLockedError } from '../db/data-dir-lock.ts';
import { verifyOrganizations } from './verify.ts';

const USAGE = 'usage: npm run audit:verify [-- --org ID]';

async function main(): Promise<number> {
  let args;
  try {
    args = parseArgs({ options: { org: { type: 'string' }, help: { type: 'boolean', short: 'h' } } });
  } catch (error) {
    console.error(`${error instanceof Error ? error.message : String(error)}\n${USAGE}`);
    return 2;
  }
  if (args.values.help) {
    console.log(USAGE);
    return 0;
  }
  const org = args.values.org;
  return withServerDatabase(loadConfig(), async (database) => {
    const report = await verifyOrganizations(database.db, org);
    for (const line of report.lines) (report.ok ? console.log : console.error)(line);
    return report.ok ? 0 : 1;
  });
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(error instanceof DataDirLockedError ? error.message : error);
    process.exitCode = 1;
  },
);
