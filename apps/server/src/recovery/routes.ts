/**
 * Account recovery (recovery/README.md): a reset link by mail, an admin setting a user's password, and the user's
 * own change. As Keycloak's reset-credentials flow and OWASP ASVS's recovery rules (V6.3/V6.4) do: the link is
 * random (256 bits), single use and short-lived; only its SHA-256 is stored; the request answers the same whether
 * or not the account exists, in no less than a fixed time; a new password ends every session of the user and is
 * told to them by mail.
 */
import { randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import {
  ChangePasswordError,
  ErrorCode,
  PASSWORD_RESET_TTL_MINUTES,
  ResetLinkError,
  changeMyPassword,
  forgotPassword,
  resetPassword,
  setUserPassword,
} from '@uvd/contracts';
import { withAuditActor } from '../audit/context.ts';
import type { AppContext } from '../context.ts';
import { hashPassword, verifyPassword } from '../identity/passwords.ts';
import { HttpError, conflict, forbidden, notFound } from '../lib/http-error.ts';
import { registerRoute } from '../lib/route.ts';
import { accountMail } from '../mail/messages.ts';
import { queueMail } from '../mail/outbox.ts';
import { users } from '../db/schema.ts';
import { and, eq } from 'drizzle-orm';
import { WindowLimit } from './rate-limit.ts';
import * as repo from './repository.ts';

/** The forgot-password reply never comes sooner: a request for a real account (which writes and mails) looks like any other. */
export const FORGOT_MIN_RESPONSE_MS = 250;
const TTL_MS = PASSWORD_RESET_TTL_MINUTES * 60_000;
/** Requests per client address, and per account (organization + email, whether or not it exists), per window. */
export const FORGOT_LIMITS = { perAddress: 10, perAccount: 3, windowMs: 15 * 60_000 } as const;

const rateLimited = (message: string, retryAfterMs: number) =>
  new HttpError(429, ErrorCode.rateLimited, `${message} Try again in ${Math.ceil(retryAfterMs / 60_000)} min.`, {
    retry_after_seconds: Math.ceil(retryAfterMs / 1000),
  });

const linkError = (status: number, code: string, message: string) => new HttpError(status, code, message);

const displayName = (user: { firstName: string; lastName: string; username: string }) =>
  `${user.firstName} ${user.lastName}`.trim() || user.username;

/** This machine by name or address (`localhost`, 127.0.0.0/8, ::1): a link there reaches nobody else. */
export const isLoopbackHost = (hostname: string): boolean => {
  const host = hostname.toLowerCase().replace(/^\[|\]$/g, '');
  return host === 'localhost' || host.endsWith('.localhost') || host === '::1' || (isIP(host) === 4 && host.startsWith('127.'));
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export const recoveryRoutes: FastifyPluginAsync<AppContext> = async (app, ctx) => {
  const { db, config } = ctx;
  const perAddress = new WindowLimit(FORGOT_LIMITS.perAddress, FORGOT_LIMITS.windowMs);
  const perAccount = new WindowLimit(FORGOT_LIMITS.perAccount, FORGOT_LIMITS.windowMs);
  /**
   * Where a reset link points. Never a Host header a stranger chose (password reset poisoning: a link to their own
   * site would hand them the token): PUBLIC_URL, or without it the request's own address only when it is this
   * machine's loopback (the demo, the tests). Otherwise no link is mailed, and the log says to set PUBLIC_URL.
   */
  const origin = (request: FastifyRequest): string | null => {
    if (config.publicUrl) return config.publicUrl.replace(/\/$/, '');
    return isLoopbackHost(request.hostname) ? `${request.protocol}://${request.host}` : null;
  };
  /** An anonymous request's changes are recorded with its address and route (the audit plugin sets signed-in callers). */
  const anonymous = (request: FastifyRequest, actor: { username: string; id: string } | null) => ({
    source: 'api' as const,
    actor: actor?.username ?? null,
    actor_id: actor?.id ?? null,
    ip: request.ip,
    request: `${request.method} ${request.routeOptions.url ?? request.url}`,
  });

  registerRoute(app, forgotPassword, async ({ body, request, reply }) => {
    const started = Date.now();
    const byAddress = perAddress.take(request.ip, started);
    if (!byAddress.ok) throw rateLimited('Too many password reset requests from this address.', byAddress.retryAfterMs);
    const byAccount = perAccount.take(`${body.organization}\n${body.email}`, started);
    if (!byAccount.ok) throw rateLimited('Too many password reset requests for this account.', byAccount.retryAfterMs);

    const user = await repo.findUserByEmail(db, body.organization, body.email);
    const base = origin(request);
    if (user && base === null) {
      request.log.error({ host: request.host }, 'No password reset link was mailed: set PUBLIC_URL, the address links in mail point to.');
    } else if (user) {
      const token = randomBytes(32).toString('base64url');
      const now = new Date();
      const link = `${base}/auth/reset-password?token=${token}`;
      await withAuditActor(anonymous(request, null), () =>
        db.transaction(async (tx) => {
          const tokenId = await repo.insertResetToken(tx, {
            orgId: user.orgId,
            userId: user.id,
            tokenHash: repo.tokenHashOf(token),
            expiresAt: new Date(now.getTime() + TTL_MS),
          });
          const organization = await repo.organizationName(tx, user.orgId);
          // The user's saved language, else the screen's they asked from.
          const language = user.language || body.language || 'EN';
          const mail = accountMail(language).resetLink(displayName(user), organization, link);
          const admins = await repo.adminsOf(tx, user.orgId);
          await queueMail(
            tx,
            { orgId: user.orgId, to: user.email || user.username, ...mail },
            ...admins
              .filter((admin) => admin.id !== user.id)
              .map((admin) => ({
                orgId: user.orgId,
                to: admin.email,
                ...accountMail(admin.language).resetRequested(displayName(admin), `${displayName(user)} (${user.email || user.username})`, organization),
              })),
          );
          await repo.recordResetRequestPush(tx, user, tokenId, now);
        }),
      );
    }
    const left = FORGOT_MIN_RESPONSE_MS - (Date.now() - started);
    if (left > 0) await sleep(left);
    void reply.code(202);
    return { status: 'accepted' as const };
  });

  registerRoute(app, resetPassword, async ({ body, request }) => {
    // Hashed first, outside the transaction (tens of ms on the thread pool); wasted only for a bad link.
    const passwordHash = await hashPassword(body.password);
    const tokenHash = repo.tokenHashOf(body.token);
    // Read first to name the author of the change (the audit trail records it as the user's own, from this address);
    // checked again under the row lock, where a second use of the same link waits and then finds it used.
    const known = await repo.lockResetToken(db, tokenHash);
    const owner = known ? await repo.findUserById(db, known.orgId, known.userId) : undefined;
    const actor = anonymous(request, owner ? { username: owner.username, id: owner.id } : null);
    return withAuditActor(actor, () =>
      db.transaction(async (tx) => {
        const token = await repo.lockResetToken(tx, tokenHash);
        const now = new Date();
        if (!token) throw linkError(404, ResetLinkError.unknown, 'This password reset link is not known. Ask for a new one.');
        if (token.usedAt) throw linkError(410, ResetLinkError.used, 'This password reset link was already used. Ask for a new one.');
        if (token.expiresAt <= now) {
          throw linkError(410, ResetLinkError.expired, `This password reset link has expired (links work ${PASSWORD_RESET_TTL_MINUTES} minutes). Ask for a new one.`);
        }
        const user = await repo.findUserById(tx, token.orgId, token.userId);
        if (!user?.enabled) throw linkError(404, ResetLinkError.unknown, 'This password reset link is not known. Ask for a new one.');
        await repo.replacePassword(tx, user, { passwordHash, mustChange: false, now });
        const organization = await repo.organizationName(tx, user.orgId);
        await queueMail(tx, { orgId: user.orgId, to: user.email || user.username, ...accountMail(user.language).passwordChanged(displayName(user), organization, false) });
        return { organization: user.orgId, username: user.username };
      }),
    );
  });

  registerRoute(app, setUserPassword, async ({ params, body, principal, reply }) => {
    if (params.id === principal.sub) {
      throw conflict('Set password is for other users: choose your own with POST /user/my-password, giving your current password.', ErrorCode.cannotSetOwnPassword);
    }
    const passwordHash = await hashPassword(body.password);
    await db.transaction(async (tx) => {
      const user = await repo.findUserById(tx, principal.orgId, params.id);
      if (!user) throw notFound('User');
      // The rule of deletes: only a done-superadmin acts on a done-superadmin's account.
      const [row] = await tx.select({ roles: users.roles }).from(users).where(and(eq(users.id, user.id), eq(users.orgId, principal.orgId)));
      if (row?.roles.includes('done-superadmin') && !principal.roles.includes('done-superadmin')) {
        throw forbidden("Only a done-superadmin may set a done-superadmin's password.");
      }
      await repo.replacePassword(tx, user, { passwordHash, mustChange: true, now: new Date() });
      const organization = await repo.organizationName(tx, user.orgId);
      await queueMail(tx, { orgId: user.orgId, to: user.email || user.username, ...accountMail(user.language).passwordChanged(displayName(user), organization, true) });
    });
    void reply.code(204);
    return null;
  });

  registerRoute(app, changeMyPassword, async ({ body, principal, reply }) => {
    const [row] = await db
      .select({ passwordHash: users.passwordHash })
      .from(users)
      .where(and(eq(users.id, principal.sub), eq(users.orgId, principal.orgId)));
    if (!row) throw notFound('User');
    if (!(await verifyPassword(row.passwordHash, body.currentPassword))) {
      throw new HttpError(400, ChangePasswordError.wrongPassword, 'The current password is not right.', { field: 'currentPassword' });
    }
    if (body.password === body.currentPassword) {
      throw new HttpError(400, ChangePasswordError.samePassword, 'The new password must differ from the current one.', { field: 'password' });
    }
    const passwordHash = await hashPassword(body.password);
    await db.transaction(async (tx) => {
      const user = await repo.findUserById(tx, principal.orgId, principal.sub);
      if (!user) throw notFound('User');
      await repo.replacePassword(tx, user, { passwordHash, mustChange: false, now: new Date() });
      const organization = await repo.organizationName(tx, user.orgId);
      await queueMail(tx, { orgId: user.orgId, to: user.email || user.username, ...accountMail(user.language).passwordChanged(displayName(user), organization, false) });
    });
    void reply.code(204);
    return null;
  });
};
