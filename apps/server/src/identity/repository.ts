/** SQL of the identity provider: realms, login users, sessions and their rotating refresh tokens. */
import { and, eq, isNotNull, isNull, lt, or, sql } from 'drizzle-orm';
import { z } from 'zod';
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

/** Rows of a raw query; both drivers (node-postgres and PGlite) answer `{ rows }`. */
function rowsOf(result: unknown): unknown[] {
  if (typeof result !== 'object' || result === null || !('rows' in result) || !Array.isArray(result.rows)) return [];
  return result.rows as unknown[];
}

/**
 * Starts a session with its first refresh token `refreshJti`, in one statement (hence atomic, and one round
 * trip: logins are measured by bench/login.ts). Returns the session id.
 */
export async function createSession(
  db: Executor,
  session: { orgId: string; userId: string; offline: boolean; expiresAt: Date; refreshJti: string },
): Promise<string> {
  const result = await db.execute(sql`
    with started as (
      insert into ${sessions} (org_id, user_id, offline, expires_at)
      values (${session.orgId}, ${session.userId}, ${session.offline}, ${session.expiresAt.toISOString()}::timestamptz)
      returning id
    )
    insert into ${refreshTokens} (id, session_id) select ${session.refreshJti}::uuid, id from started
    returning session_id`);
  const row = z.object({ session_id: z.string() }).safeParse(rowsOf(result)[0]);
  if (!row.success) throw new Error('session not created');
  return row.data.session_id;
}

export type RefreshOutcome =
  | { kind: 'ok'; subject: SubjectRow; offline: boolean }
  | { kind: 'unknown' }
  | { kind: 'reused' }
  | { kind: 'inactive' }
  /** Exchanged again within the grace window: the first exchange's reply is the answer (`findReissue`). */
  | { kind: 'grace' };

const ExchangeRow = z.object({
  jti: z.string(),
  used: z.boolean(),
  offline: z.boolean().nullable(),
  id: z.string().nullable(),
  org_id: z.string().nullable(),
  username: z.string().nullable(),
  first_name: z.string().nullable(),
  last_name: z.string().nullable(),
  email: z.string().nullable(),
  roles: z.array(z.string()).nullable(),
  groups: z.array(z.string()).nullable(),
});

export interface ExchangeRequest {
  /** The presented token's id, and the id of the token that replaces it. */
  jti: string;
  nextJti: string;
  sessionId: string;
  orgId: string;
}

export interface RefreshExchanger {
  exchange(request: ExchangeRequest): Promise<RefreshOutcome & { now: Date; expiresAt: Date }>;
  /** Keeps the reply an exchange of `jti` answered (sealed, identity/reissue.ts) for the grace window. */
  keepReply(jti: string, sealed: string): Promise<void>;
}

const GraceRow = z.object({
  in_grace: z.boolean(),
});

/**
 * Runs `run` over the items that arrive while it runs, as one group (one statement per group, not per item); each
 * item's promise settles with its group.
 */
function grouped<T>(run: (batch: T[]) => Promise<void>): (item: T) => Promise<void> {
  const queue: { item: T; resolve: () => void; reject: (error: unknown) => void }[] = [];
  let running = false;
  const drain = async () => {
    running = true;
    while (queue.length > 0) {
      const batch = queue.splice(0, MAX_BATCH);
      try {
        await run(batch.map(({ item }) => item));
        for (const { resolve } of batch) resolve();
      } catch (error) {
        for (const { reject } of batch) reject(error);
      }
    }
    running = false;
  };
  return (item) =>
    new Promise((resolve, reject) => {
      queue.push({ item, resolve, reject });
      if (!running) void drain();
    });
}

/** Most exchanges one statement carries; more wait for the next. */
const MAX_BATCH = 128;

/**
 * Exchanges refresh tokens: marks the presented one used (atomically, so of two concurrent exchanges exactly one
 * wins), checks its session is live and its user enabled, slides the session's expiry and records the next
 * token. A token that was already used ends its session (RFC 9700 §4.14.2 reuse detection), unless it was used
 * less than `graceSeconds` ago and the token that replaced it has not been used yet: then the answer is the
 * first exchange's reply again (`grace`), as Amazon Cognito's RetryGracePeriodSeconds and Ory Hydra's graceful
 * refresh do. A page reloaded, or a request cut, while its refresh was in flight never saw that reply; only
 * the immediately preceding token gets it, so a token older than that still ends the session.
 *
 * Exchanges that arrive while a statement runs are grouped into the next one (group commit): one statement
 * per batch instead of several per refresh is what lets one process answer 1,000 refreshes/s (bench/login.ts).
 */
export function createRefreshExchanger(
  db: Executor,
  ttlSeconds: (offline: boolean) => number,
  graceSeconds: number,
): RefreshExchanger {
  type Pending = { request: ExchangeRequest; resolve: (outcome: RefreshOutcome & { now: Date; expiresAt: Date }) => void; reject: (error: unknown) => void };
  let queue: Pending[] = [];
  let running = false;

  const runBatch = async (batch: Pending[]) => {
    const now = new Date();
    const expiry = (offline: boolean) => new Date(now.getTime() + ttlSeconds(offline) * 1000);
    const requests = JSON.stringify(
      batch.map(({ request }) => ({ jti: request.jti, next_jti: request.nextJti, sid: request.sessionId, org: request.orgId })),
    );
    const result = await db.execute(sql`
      with req as (
        select * from jsonb_to_recordset(${requests}::jsonb) as r(jti uuid, next_jti uuid, sid uuid, org text)
      ), used as (
        update ${refreshTokens} as t set used_at = ${now.toISOString()}::timestamptz, successor_id = req.next_jti
        from req where t.id = req.jti and t.session_id = req.sid and t.used_at is null
        returning t.id as jti, t.session_id
      ), live as (
        update ${sessions} as s
        set expires_at = case when s.offline then ${expiry(true).toISOString()}::timestamptz
                              else ${expiry(false).toISOString()}::timestamptz end
        from used, req, ${users} as u
        where s.id = used.session_id and req.jti = used.jti and s.org_id = req.org and s.ended_at is null
          and s.expires_at > ${now.toISOString()}::timestamptz and u.id = s.user_id and u.enabled
        returning s.id as session_id, s.offline, u.id, u.org_id, u.username, u.first_name, u.last_name, u.email, u.roles
      ), issued as (
        insert into ${refreshTokens} (id, session_id)
        select req.next_jti, live.session_id
        from live join used on used.session_id = live.session_id join req on req.jti = used.jti
        returning id
      )
      select req.jti::text as jti, used.jti is not null as used, live.offline, live.id::text as id, live.org_id,
        live.username, live.first_name, live.last_name, live.email, live.roles,
        (select coalesce(array_agg(g.name order by g.name), '{}'::text[])
           from ${userGroups} ug join ${groups} g on g.id = ug.group_id where ug.user_id = live.id) as groups
      from req left join used on used.jti = req.jti left join live on live.session_id = used.session_id`);
    const rows = new Map(rowsOf(result).map((raw) => {
      const row = ExchangeRow.parse(raw);
      return [row.jti, row] as const;
    }));
    for (const { request, resolve, reject } of batch) {
      const row = rows.get(request.jti);
      const done = (outcome: RefreshOutcome) => {
        resolve({ ...outcome, now, expiresAt: expiry(outcome.kind === 'ok' && outcome.offline) });
      };
      if (!row) {
        reject(new Error('refresh exchange lost a request'));
      } else if (row.id !== null) {
        done({
          kind: 'ok',
          offline: row.offline ?? false,
          subject: {
            id: row.id,
            orgId: row.org_id ?? request.orgId,
            username: row.username ?? '',
            firstName: row.first_name ?? '',
            lastName: row.last_name ?? '',
            email: row.email ?? '',
            roles: row.roles ?? [],
            enabled: true,
            groups: row.groups ?? [],
          },
        });
      } else if (row.used) {
        done({ kind: 'inactive' });
      } else {
        // Rare path: tell an unknown token from one exchanged again within the grace window, and both from a
        // replayed one, which ends the session.
        const graceStart = new Date(now.getTime() - graceSeconds * 1000);
        const known = await db.execute(sql`
          select coalesce(t.used_at > ${graceStart.toISOString()}::timestamptz and next.id is not null and next.used_at is null
            and s.ended_at is null and s.expires_at > ${now.toISOString()}::timestamptz and u.enabled, false) as in_grace
          from ${refreshTokens} as t
          left join ${sessions} as s on s.id = t.session_id and s.org_id = ${request.orgId}
          left join ${users} as u on u.id = s.user_id
          left join ${refreshTokens} as next on next.id = t.successor_id
          where t.id = ${request.jti}::uuid and t.session_id = ${request.sessionId}::uuid`);
        const token = rowsOf(known).map((raw) => GraceRow.parse(raw))[0];
        if (!token) done({ kind: 'unknown' });
        else if (graceSeconds > 0 && token.in_grace) done({ kind: 'grace' });
        else {
          await endSession(db, request.sessionId, request.orgId, now);
          done({ kind: 'reused' });
        }
      }
    }
  };

  const drain = async () => {
    running = true;
    while (queue.length > 0) {
      // A few turns of the event loop first (while more keep arriving), so exchanges whose requests are being read (or whose tokens are being
      // verified) join this batch: PGlite runs on this thread, so nothing queues while a statement runs.
      for (let turn = 0, before = -1; turn < 4 && queue.length !== before && queue.length < MAX_BATCH; turn++) {
        before = queue.length;
        await new Promise((resolve) => setImmediate(resolve));
      }
      // A token presented twice in one batch would match one update twice: the second copy waits for the
      // next batch, where it is seen as reused.
      const batch: Pending[] = [];
      const rest: Pending[] = [];
      const seen = new Set<string>();
      for (const pending of queue) {
        if (batch.length < MAX_BATCH && !seen.has(pending.request.jti)) {
          seen.add(pending.request.jti);
          batch.push(pending);
        } else rest.push(pending);
      }
      queue = rest;
      try {
        await runBatch(batch);
      } catch (error) {
        for (const pending of batch) pending.reject(error);
      }
    }
    running = false;
  };

  const keepReplies = grouped<{ jti: string; sealed: string }>(async (replies) => {
    const rows = JSON.stringify(replies.map(({ jti, sealed }) => ({ jti, sealed })));
    await db.execute(sql`
      update ${refreshTokens} as t set successor_reply = r.sealed
      from jsonb_to_recordset(${rows}::jsonb) as r(jti uuid, sealed text) where t.id = r.jti`);
  });

  return {
    exchange: (request) =>
      new Promise((resolve, reject) => {
        queue.push({ request, resolve, reject });
        if (!running) void drain();
      }),
    keepReply: (jti, sealed) => keepReplies({ jti, sealed }),
  };
}

/** The sealed reply kept for a token exchanged within the grace window; undefined while its exchange is still signing. */
export async function findReissue(db: Executor, jti: string, sessionId: string): Promise<string | undefined> {
  const rows = await db
    .select({ sealed: refreshTokens.successorReply })
    .from(refreshTokens)
    .where(and(eq(refreshTokens.id, jti), eq(refreshTokens.sessionId, sessionId)));
  return rows[0]?.sealed ?? undefined;
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
 * cascade). Used tokens of live sessions stay, so a replayed one is still recognised and ends its session; the
 * replies kept for their grace window go once no window (at most a minute) can need them.
 */
export async function purgeSessions(db: Executor, now: Date, graceMs: number): Promise<void> {
  const before = new Date(now.getTime() - graceMs);
  await db.delete(sessions).where(or(lt(sessions.endedAt, before), lt(sessions.expiresAt, before)));
  await db
    .update(refreshTokens)
    .set({ successorReply: null })
    .where(and(isNotNull(refreshTokens.successorReply), lt(refreshTokens.usedAt, new Date(now.getTime() - MAX_GRACE_MS))));
}

/** REFRESH_TOKEN_GRACE_SECONDS is at most 60 (config.ts). */
const MAX_GRACE_MS = 60_000;
