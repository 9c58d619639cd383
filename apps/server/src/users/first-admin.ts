/**
 * The first administrator of an organization, made from the command line (`npm run admin:create`): a server
 * started without the demo (`npm run serve`) has no user anyone could sign in with, and every user after the first
 * is made by an admin in the console.
 */
import { randomBytes } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { EmailInput, OrganizationId, type Role } from '@uvd/contracts';
import type { Db } from '../db/client.ts';
import { organizations, users } from '../db/schema.ts';
import { hashPassword } from '../identity/passwords.ts';

export class FirstAdminError extends Error {}

export interface FirstAdminInput {
  orgId: string;
  email: string;
  /** The organization's name when it is created; its id otherwise. */
  orgName?: string | undefined;
  role: Extract<Role, 'done-admin' | 'done-superadmin'>;
}

export interface FirstAdmin {
  orgId: string;
  organizationCreated: boolean;
  username: string;
  /** Shown once: the user must change it at the first sign-in. */
  password: string;
}

/**
 * Makes the organization when it does not exist, and in it an enabled user whose username is the email (as the
 * console's own user creation does) with `role` and a random password that must be changed at the first sign-in.
 * Refuses a username the organization already has: this never takes over an account.
 */
export async function createFirstAdmin(db: Db, input: FirstAdminInput): Promise<FirstAdmin> {
  const orgId = OrganizationId.safeParse(input.orgId);
  if (!orgId.success) throw new FirstAdminError(`--org ${input.orgId}: must be lowercase letters, digits and dashes`);
  const email = EmailInput.safeParse(input.email);
  if (!email.success) throw new FirstAdminError(`--email ${input.email}: not an email address`);
  const username = email.data;
  const password = randomBytes(18).toString('base64url');
  const passwordHash = await hashPassword(password);
  return db.transaction(async (tx) => {
    const [existing] = await tx.select({ id: organizations.id }).from(organizations).where(eq(organizations.id, orgId.data));
    if (!existing) await tx.insert(organizations).values({ id: orgId.data, name: input.orgName ?? orgId.data });
    const [taken] = await tx
      .select({ id: users.id })
      .from(users)
      .where(and(eq(users.orgId, orgId.data), eq(users.username, username)));
    if (taken) throw new FirstAdminError(`${orgId.data} already has the user ${username}: nothing was changed`);
    await tx.insert(users).values({ orgId: orgId.data, username, email: username, passwordHash, roles: [input.role], mustChangePassword: true });
    return { orgId: orgId.data, organizationCreated: !existing, username, password };
  });
}
