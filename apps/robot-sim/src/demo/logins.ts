/**
 * Whom the demo signs in as: each organization's admin. The defaults are the admins the server's demo seed
 * creates (its users and passwords are printed in the README for anyone to try); `DEMO_LOGINS` replaces them
 * as `organization:username:password` entries separated by commas.
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

export function parseLogins(value: string | undefined): ApiLogin[] {
  if (value === undefined || value.trim() === '') return [...DEFAULT_DEMO_LOGINS];
  return value.split(',').map((raw) => {
    const entry = Entry.parse(raw.trim());
    const [organization = '', username = '', ...rest] = entry.split(':');
    return { organization, username, password: rest.join(':') };
  });
}
