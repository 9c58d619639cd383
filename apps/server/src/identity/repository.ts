/** SQL of the identity provider: realms, login users, sessions and their rotating refresh tokens. */
import { and, eq, gt, isNull, lt, or, sql } from 'drizzle-orm';
import type { Executor } from '../db/client.ts';
import { groups, organizations, refreshTokens, sessions, userGroups, users } from '../db/schema.ts';

/** Group names of a user, as the `groups` claim carries them. */
const groupNamesOf = sql<string[]>`coalesce((
  select array_agg(${groups.name} order by ${groups.name})
  from ${userGroups} join ${groups} on ${groups.id} = ${userGroups.groupId}
  where ${userGroups.userId} = ${users.id}
), '{}'::text[])`;

const subjectColumns = {
  id: users.id,
  orgId: users.orgId,
  username: users.username,
  firstName: users.firstName,
  lastName: users.lastName,
  email: users.email,
  roles: users.roles,
  enabled: users.enabled,
  groups: groupNamesOf,
};

export interface SubjectRow {
  id: string;
  orgId: string;
  username: string;
  firstName: string;
  lastName: string;
  email: string;
  roles: string[];
  enabled: boolean;
  groups: string[];
}

export interface LoginUserRow extends SubjectRow {
  passwordHash: string;
  failedLogins: number;
  lastFailureAt: Date | null;
  lockedUntil: Date | null;
}

export async function realmExists(db: Executor, orgId: string): Promise<boolean> {
  const rows = await db.select({ id: organizations.id }).from(organizations).where(eq(organizations.id, orgId));
  return rows.length > 0;
}

/**
 * The realm and, when it has one by that name, the user trying to log in: one round trip tells
 * "unknown realm" (404) from "unknown user" (invalid_grant). `username` must already be lowercase.
 */
export async function findLoginUser(
  db: Executor,
  orgId: string,
  username: string,
): Promise<{ realm: boolean; user: LoginUserRow | undefined }> {
  const rows = await db
    .select({
      realm: organizations.id,
      user: {
        ...subjectColumns,
        passwordHash: users.passwordHash,
        failedLogins: users.failedLogins,
        lastFailureAt: users.lastFailureAt,
        lockedUntil: users.lockedUntil,
      },
    })
    .from(organizations)
    .leftJoin(users, and(eq(users.orgId, organizations.id), eq(users.username, username)))
    .where(eq(organizations.id, orgId));
  const row = rows[0];
  if (!row) return { realm: false, user: undefined };
  return { realm: true, user: row.user ?? undefined };
}

/** Counts one more consecutive failure (forgetting failures older than `resetAfterMs`); returns the count. */
export async function recordLoginFailure(db: Executor, userId: string, now: Date, resetAfterMs: number): Promise<number> {
  const forgetBefore = new Date(now.getTime() - resetAfterMs);
  const [row] = await db
    .update(users)
    .set({
      failedLogins: sql`case when ${users.lastFailureAt} is null or ${users.lastFailureAt} < ${forgetBefore} then 1 else ${users.failedLogins} + 1 end`,
      lastFailureAt: now,
    })
    .where(eq(users.id, userId))
    .returning({ failedLogins: users.failedLogins });
  return row?.failedLogins ?? 0;
}

export async function lockUser(db: Executor, userId: string, until: Date): Promise<void> {
  await db.update(users).set({ lockedUntil: until }).where(eq(users.id, userId));
}

export async function resetLoginFailures(db: Executor, userId: string): Promise<void> {
  await db.update(users).set({ failedLogins: 0, lastFailureAt: null, lockedUntil: null }).where(eq(users.id, userId));
}

export async function createSession(
  db: Executor,
  session: { orgId: string; userId: string; offline: boolean; expiresAt: Date },
): Promise<string> {
  const [row] = await db.insert(sessions).values(session).returning({ id: sessions.id });
  if (!row) throw new Error('session not created');
  return row.id;
}

export async function insertRefreshToken(db: Executor, id: string, sessionId: string): Promise<void> {
  await db.insert(refreshTokens).values({ id, sessionId });
}

export type RefreshOutcome =
  | { kind: 'ok'; subject: SubjectRow; offline: boolean }
  | { kind: 'unknown' }
  | { kind: 'reused' }
  | { kind: 'inactive' };

/**
 * Exchanges refresh token `jti` of session `sessionId`: marks it used (atomically, so of two concurrent
 * exchanges exactly one wins), checks the session is live and its user enabled, and slides the session's
 * expiry to `expiresAt`. A token that was already used ends its session (RFC 9700 §4.14.2 reuse detection).
 */
export async function useRefreshToken(
  db: Executor,
  args: { jti: string; sessionId: string; orgId: string; now: Date; expiresAt: (offline: boolean) => Date },
): Promise<RefreshOutcome> {
  const used = await db
    .update(refreshTokens)
    .set({ usedAt: args.now })
    .where(and(eq(refreshTokens.id, args.jti), eq(refreshTokens.sessionId, args.sessionId), isNull(refreshTokens.usedAt)))
    .returning({ id: refreshTokens.id });
  if (used.length === 0) {
    const known = await db
      .select({ id: refreshTokens.id })
      .from(refreshTokens)
      .where(and(eq(refreshTokens.id, args.jti), eq(refreshTokens.sessionId, args.sessionId)));
    if (known.length === 0) return { kind: 'unknown' };
    await endSession(db, args.sessionId, args.orgId, args.now);
    return { kind: 'reused' };
  }
  const [row] = await db
    .select({ subject: subjectColumns, offline: sessions.offline })
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .where(
      and(
        eq(sessions.id, args.sessionId),
        eq(sessions.orgId, args.orgId),
        isNull(sessions.endedAt),
        gt(sessions.expiresAt, args.now),
      ),
    );
  if (!row?.subject.enabled) return { kind: 'inactive' };
  await db
    .update(sessions)
    .set({ expiresAt: args.expiresAt(row.offline) })
    .where(eq(sessions.id, args.sessionId));
  return { kind: 'ok', subject: row.subject, offline: row.offline };
}

export async function endSession(db: Executor, sessionId: string, orgId: string, now: Date): Promise<void> {
  await db
    .update(sessions)
    .set({ endedAt: now })
    .where(and(eq(sessions.id, sessionId), eq(sessions.orgId, orgId), isNull(sessions.endedAt)));
}

/** The user behind a live session of `orgId`, for userinfo; undefined when the session ended or the user is disabled. */
export async function findSessionSubject(
  db: Executor,
  args: { sessionId: string | undefined; userId: string; orgId: string },
): Promise<SubjectRow | undefined> {
  const conditions = [eq(users.id, args.userId), eq(users.orgId, args.orgId), eq(users.enabled, true)];
  const query = db.select(subjectColumns).from(users);
  const rows = args.sessionId
    ? await query
        .innerJoin(sessions, and(eq(sessions.userId, users.id), eq(sessions.id, args.sessionId), isNull(sessions.endedAt)))
        .where(and(...conditions))
    : await query.where(and(...conditions));
  return rows[0];
}

/**
 * Housekeeping: drops sessions that ended or expired more than `graceMs` ago (their tokens go with them by
 * cascade). Used tokens of live sessions stay, so a replayed one is still recognised and ends its session.
 */
export async function purgeSessions(db: Executor, now: Date, graceMs: number): Promise<void> {
  const before = new Date(now.getTime() - graceMs);
  await db.delete(sessions).where(or(lt(sessions.endedAt, before), lt(sessions.expiresAt, before)));
}
