/**
 * npm run admin:create -- --org ID --email EMAIL [--name NAME] [--superadmin]: the first administrator of an
 * organization (made with it when it does not exist), in the database the server uses (DATABASE_URL, or the PGlite
 * folder DATA_DIR, which must not be in use by a running server). Prints the one-time password.
 */
import { parseArgs } from 'node:util';
import { loadConfig } from '../config.ts';
import { withServerDatabase } from '../db/command-database.ts';
import { DataDirLockedError } from '../db/data-dir-lock.ts';
import { createFirstAdmin, FirstAdminError } from './first-admin.ts';

const USAGE = 'usage: npm run admin:create -- --org ID --email EMAIL [--name "Organization name"] [--superadmin]';

async function main(): Promise<number> {
  let args;
  try {
    args = parseArgs({
      options: {
        org: { type: 'string' },
        email: { type: 'string' },
        name: { type: 'string' },
        superadmin: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    console.error(`${error instanceof Error ? error.message : String(error)}\n${USAGE}`);
    return 2;
  }
  const { org, email, name, superadmin, help } = args.values;
  if (help || !org || !email) {
    (help ? console.log : console.error)(USAGE);
    return help ? 0 : 2;
  }
  const role = superadmin ? 'done-superadmin' : 'done-admin';
  const admin = await withServerDatabase(loadConfig(), (database) => createFirstAdmin(database.db, { orgId: org, email, orgName: name, role }));
  console.log(
    [
      admin.organizationCreated ? `organization ${admin.orgId} created` : `organization ${admin.orgId}`,
      `user ${admin.username} (${role})`,
      `one-time password: ${admin.password}`,
      'Sign in with the organization, the username and this password; the console then asks for a new password.',
    ].join('\n'),
  );
  return 0;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(error instanceof DataDirLockedError || error instanceof FirstAdminError ? error.message : error);
    process.exitCode = 1;
  },
);
