/** SQL of account recovery: reset tokens, and setting a password with everything that must go with it. */
import { createHash } from 'node:crypto';
import { and, eq, gt, isNull, or, sql } from 'drizzle-orm';
import type { Executor } from '../db/client.ts';
import { organizations, passwordResetTokens, pushEvents, sessions, users } from '../db/schema.ts';
import { announceRevocation } from '../identity/revocation.ts';
import type { SubjectRow } from '../identity/repository.ts';
import { noFacts, PUSH_CHANNEL, type PushEventFacts } from '../notifications/outbox.ts';

/** The hex SHA-256 of a reset token: what the database keeps instead of the token. */
export const tokenHashOf = (token: string): string => createHash('sha256').update(token).digest('hex');

/** The user a reset is for: the identity provider's subject, without roles and groups, with the language of their mail. */
export type RecoveryUser = Pick<SubjectRow, 'id' | 'orgId' | 'username' | 'firstName' | 'lastName' | 'email' | 'enabled'> & { language: string };

const recoveryColumns = {
  id: users.id,
  orgId: users.orgId,
  username: users.username,
  firstName: users.firstName,
  lastName: users.lastName,
  email: users.email,
  language: users.language,
  enabled: users.enabled,
};

/** The enabled user of `orgId` whose email or username is `email` (both compared lowercase). */
export async function findUserByEmail(db: Executor, orgId: string, email: string): Promise<RecoveryUser | undefined> {
  const [row] = await db
    .select(recoveryColumns)
    .from(users)
    .where(and(eq(users.orgId, orgId), eq(users.enabled, true), or(eq(users.username, email), sql`lower(${users.email}) = ${email}`)))
    .limit(1);
  return row;
}

export async function findUserById(db: Executor, orgId: string, id: string): Promise<RecoveryUser | undefined> {
  const [row] = await db.select(recoveryColumns).from(users).where(and(eq(users.orgId, orgId), eq(users.id, id)));
  return row;
}

export async function organizationName(db: Executor, orgId: string): Promise<string> {
  const [row] = await db.select({ name: organizations.name }).from(organizations).where(eq(organizations.id, orgId));
  return row?.name ?? orgId;
}

/** The organization's enabled admins with an address, to tell them of a reset request. */
export async function adminsOf(db: Executor, orgId: string): Promise<RecoveryUser[]> {
  return db
    .select(recoveryColumns)
    .from(users)
    .where(and(eq(users.orgId, orgId), eq(users.enabled, true), sql`${users.roles} && ARRAY['done-admin', 'done-superadmin']::text[]`, sql`${users.email} <> ''`));
}

export async function insertResetToken(db: Executor, row: { orgId: string; userId: string; tokenHash: string; expiresAt: Date }): Promise<string> {
  const [inserted] = await db.insert(passwordResetTokens).values(row).returning({ id: passwordResetTokens.id });
  if (!inserted) throw new Error('reset token not recorded');
  return inserted.id;
}

/** The reset token with this hash, locked until the transaction ends (two uses at once: the second waits and sees it used). */
export async function lockResetToken(db: Executor, tokenHash: string) {
  const [row] = await db
    .select({
      id: passwordResetTokens.id,
      orgId: passwordResetTokens.orgId,
      userId: passwordResetTokens.userId,
      expiresAt: passwordResetTokens.expiresAt,
      usedAt: passwordResetTokens.usedAt,
    })
    .from(passwordResetTokens)
    .where(eq(passwordResetTokens.tokenHash, tokenHash))
    .for('update');
  return row;
}

/**
 * Sets a user's password and ends everything the old one opened: every session (so no refresh token works), every
 * access token issued before now (`tokens_not_before`, checked on each request), every open live stream (a NOTIFY
 * at commit), and every reset link still unused.
 */
export async function replacePassword(
  db: Executor,
  user: { id: string; orgId: string },
  change: { passwordHash: string; mustChange: boolean; now: Date },
): Promise<void> {
  await db
    .update(users)
    .set({
      passwordHash: change.passwordHash,
      mustChangePassword: change.mustChange,
      tokensNotBefore: change.now,
      failedLogins: 0,
      lastFailureAt: null,
      lockedUntil: null,
    })
    .where(and(eq(users.id, user.id), eq(users.orgId, user.orgId)));
  await db
    .update(sessions)
    .set({ endedAt: change.now })
    .where(and(eq(sessions.userId, user.id), isNull(sessions.endedAt)));
  await db
    .update(passwordResetTokens)
    .set({ usedAt: change.now })
    .where(and(eq(passwordResetTokens.userId, user.id), isNull(passwordResetTokens.usedAt), gt(passwordResetTokens.expiresAt, change.now)));
  await announceRevocation(db, { userId: user.id, orgId: user.orgId });
}

/** The push telling the organization's admins that `user` asked for a reset link (the push outbox). */
export async function recordResetRequestPush(db: Executor, user: RecoveryUser, tokenId: string, now: Date): Promise<void> {
  const facts: PushEventFacts = {
    ...noFacts,
    userId: user.id,
    userName: `${user.firstName} ${user.lastName}`.trim() || user.username,
    occurredAt: now.toISOString(),
  };
  await db.insert(pushEvents).values({
    orgId: user.orgId,
    kind: 'password_reset_requested',
    dedupeKey: `password_reset_requested:${tokenId}`,
    robotId: null,
    jobId: null,
    actionId: null,
    facts,
    dueAt: now,
  });
  await db.execute(sql`SELECT pg_notify(${PUSH_CHANNEL}, '')`);
}
