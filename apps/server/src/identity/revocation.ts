/**
 * Revocation of a deleted or disabled user's access, at once rather than when their access token expires.
 *
 * - Every authenticated request reads the user's row (by primary key: one database round trip) instead of
 *   trusting a cache: a cache would have to be invalidated on every process before the deleting request
 *   answers, and `enabled` can be changed by hand in SQL, which nothing announces. Built-in provider: no row,
 *   or `enabled` false, is 401. External provider (IDP_ISSUER_BASE): Keycloak owns its users and most have no
 *   row here, so only a row that says disabled refuses.
 * - Open live streams are checked once, when they open; afterwards a deletion ends them through a NOTIFY sent
 *   in the deleting transaction (delivered at commit to every server process on the database, none on
 *   rollback), and a periodic check of the users with open streams catches what no notification announces (a
 *   row disabled in SQL, a LISTEN connection that was lost for a while).
 * - A password an admin set (recovery/) lets its user do nothing but read their profile and choose their own
 *   (`users.must_change_password`; 403 password_change_required), whatever client they use: the console asks
 *   for the new password first, and the API does not take the admin's password for more.
 * - A changed password (recovery/) refuses the access tokens issued before it (`users.tokens_not_before`, read in the
 *   same lookup) and ends the user's sessions, so their refresh tokens stop too.
 * - Refresh tokens need nothing more: the exchange requires the session's user to exist (sessions go with
 *   the user by cascade) and be enabled.
 */
import { and, eq, inArray, sql } from 'drizzle-orm';
import { z } from 'zod';
import { changeMyPassword, ErrorCode, getMyProfile, Id } from '@uvd/contracts';
import type { Database, Executor } from '../db/client.ts';
import { users } from '../db/schema.ts';
import { HttpError, unauthorized } from '../lib/http-error.ts';
import type { Principal } from './principal.ts';

/** The LISTEN/NOTIFY channel of revocations, shared by every server process on one database. */
export const REVOCATION_CHANNEL = 'uvd_user_revoked';

/** How often the users of open streams are checked again, for changes no notification announced. */
export const STREAM_RECHECK_MS = 10_000;

const Revoked = z.object({ userId: z.string(), orgId: z.string() });

export interface RevocationOptions {
  /** With an external identity provider a subject need not have a row. */
  external: boolean;
}

/** What a user whose password an admin set may call before choosing their own (the API's prefix aside). */
const WHILE_PASSWORD_GIVEN = [getMyProfile, changeMyPassword];
const mayCallWithGivenPassword = (request: { method: string; routeOptions: { url?: string | undefined } }) =>
  WHILE_PASSWORD_GIVEN.some((route) => route.method === request.method && (request.routeOptions.url ?? '').endsWith(route.path));

/**
 * Throws 401 when the principal's user no longer may act (deleted, disabled, a token from before a password
 * change), and 403 when an admin set their password and `request` is not how they choose their own.
 */
export async function requireActiveUser(
  db: Executor,
  principal: Principal,
  options: RevocationOptions,
  request?: { method: string; routeOptions: { url?: string | undefined } },
): Promise<void> {
  // Subjects of the built-in provider are our user ids; anything else is no row (and a SQL type error).
  if (!Id.safeParse(principal.sub).success) {
    if (options.external) return;
    throw unauthorized('The user of this token no longer exists.');
  }
  const [row] = await db
    .select({ enabled: users.enabled, tokensNotBefore: users.tokensNotBefore, mustChangePassword: users.mustChangePassword })
    .from(users)
    .where(and(eq(users.id, principal.sub), eq(users.orgId, principal.orgId)));
  if (!row) {
    if (options.external) return;
    throw unauthorized('The user of this token no longer exists.');
  }
  if (!row.enabled) throw unauthorized('The user of this token is disabled.');
  // Keycloak's not-before policy: whole seconds, as `iat` is; a token of the same second as the change passes.
  if (row.tokensNotBefore && principal.issuedAt !== undefined && principal.issuedAt < Math.floor(row.tokensNotBefore.getTime() / 1000)) {
    throw unauthorized('The password of this account changed after this token was issued: sign in again.');
  }
  if (row.mustChangePassword && request && !mayCallWithGivenPassword(request)) {
    throw new HttpError(
      403,
      ErrorCode.passwordChangeRequired,
      `An admin set this account's password: choose your own first (${changeMyPassword.method} ${changeMyPassword.path}).`,
    );
  }
}

/**
 * Announces, inside the transaction that deletes or disables the user, that their streams must end: every
 * process learns of it at commit.
 */
export async function announceRevocation(executor: Executor, user: { userId: string; orgId: string }): Promise<void> {
  await executor.execute(sql`SELECT pg_notify(${REVOCATION_CHANNEL}, ${JSON.stringify(Revoked.parse(user))})`);
}

/** The open live streams of this process, by user, each with the function that ends it. */
export interface UserStreams {
  /** Registers a stream of `userId`; the returned function deregisters it (call it when the stream ends). */
  watch(userId: string, close: () => void): () => void;
  /** Ends every stream of `userId` in this process. */
  closeAll(userId: string): void;
  userIds(): string[];
}

const streamsByDatabase = new WeakMap<Database, UserStreams>();

/** The stream registry of the server using `database` (one per app; several apps may share a test process). */
export function userStreams(database: Database): UserStreams {
  let registry = streamsByDatabase.get(database);
  if (!registry) {
    const byUser = new Map<string, Set<() => void>>();
    registry = {
      watch(userId, close) {
        let set = byUser.get(userId);
        if (!set) {
          set = new Set();
          byUser.set(userId, set);
        }
        const streams = set;
        streams.add(close);
        return () => {
          streams.delete(close);
          if (streams.size === 0 && byUser.get(userId) === streams) byUser.delete(userId);
        };
      },
      closeAll(userId) {
        for (const close of [...(byUser.get(userId) ?? [])]) close();
      },
      userIds: () => [...byUser.keys()],
    };
    streamsByDatabase.set(database, registry);
  }
  return registry;
}

/** Users among `ids` who may no longer act (see requireActiveUser for the two providers). */
async function revokedAmong(db: Executor, ids: readonly string[], options: RevocationOptions): Promise<string[]> {
  const candidates = ids.filter((id) => Id.safeParse(id).success);
  const rows = candidates.length === 0 ? [] : await db.select({ id: users.id, enabled: users.enabled }).from(users).where(inArray(users.id, candidates));
  const enabled = new Set(rows.filter((row) => row.enabled).map((row) => row.id));
  if (options.external) {
    const disabled = new Set(rows.filter((row) => !row.enabled).map((row) => row.id));
    return ids.filter((id) => disabled.has(id));
  }
  return ids.filter((id) => !enabled.has(id));
}

export interface RevocationWatch {
  close(): Promise<void>;
}

/**
 * Ends the streams of revoked users in this process: on a revocation notification at once, and on the
 * periodic check. `onError` hears what no request can report.
 */
export async function watchRevocations(
  database: Database,
  options: RevocationOptions & { recheckMs?: number; onError: (error: unknown, message: string) => void },
): Promise<RevocationWatch> {
  const streams = userStreams(database);
  const unlisten = await database.notifier.listen(REVOCATION_CHANNEL, (text) => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    const revoked = Revoked.safeParse(parsed);
    if (revoked.success) streams.closeAll(revoked.data.userId);
    else options.onError(new Error('Unreadable revocation notification.'), `Ignored a notification on ${REVOCATION_CHANNEL}.`);
  });
  let checking = false;
  const recheck = setInterval(() => {
    const ids = streams.userIds();
    if (ids.length === 0 || checking) return;
    checking = true;
    revokedAmong(database.db, ids, options)
      .then((revoked) => {
        for (const id of revoked) streams.closeAll(id);
      })
      .catch((error: unknown) => {
        options.onError(error, 'The users of open streams could not be checked.');
      })
      .finally(() => {
        checking = false;
      });
  }, options.recheckMs ?? STREAM_RECHECK_MS);
  recheck.unref();
  return {
    close: async () => {
      clearInterval(recheck);
      await unlisten();
    },
  };
}
