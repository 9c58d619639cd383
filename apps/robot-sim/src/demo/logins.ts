/**
 * Whom the demo signs in as: each organization's admin. The defaults are the admins the server's demo seed
 * creates (its users and passwords are printed in the README for anyone to try); `DEMO_LOGINS` replaces them
 * as `organization:username:password` entries separated by commas. With the logistics variant the delivery
 * activity also signs in as the people who send and receive deliveries: the logistics users of the seed
 * (apps/server/src/seed/README.md), or `DEMO_PEOPLE` in the same format.
 */
import { z } from 'zod';
import type { ApiLogin } from './api-client.ts';

export const DEFAULT_DEMO_LOGINS: readonly ApiLogin[] = [
  { organization: 'demo', username: 'admin', password: 'admin-demo-1' },
  { organization: 'northwind', username: 'admin', password: 'northwind-admin-1' },
];

const Entry = z
  .string()
  .regex(/^[a-z0-9][a-z0-9_-]*:[^:]+:.+$/, 'each login is organization:username:password (organization in lowercase, such as demo)');

/** The logistics users of the server's seed (VARIANT=logistics): ward nurses, the laboratory, the pharmacy. */
export const DEFAULT_DEMO_PEOPLE: readonly ApiLogin[] = [
  { organization: 'demo', username: 'nurse-a', password: 'nurse-a-demo-1' },
  { organization: 'demo', username: 'nurse-b', password: 'nurse-b-demo-1' },
  { organization: 'demo', username: 'lab', password: 'lab-demo-1' },
  { organization: 'demo', username: 'pharmacy', password: 'pharmacy-demo-1' },
];

export function parseLogins(value: string | undefined, defaults: readonly ApiLogin[] = DEFAULT_DEMO_LOGINS): ApiLogin[] {
  if (value === undefined || value.trim() === '') return [...defaults];
  return value.split(',').map((raw) => {
    const entry = Entry.parse(raw.trim());
    const [organization = '', username = '', ...rest] = entry.split(':');
    return { organization, username, password: rest.join(':') };
  });
}
