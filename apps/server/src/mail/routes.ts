/**
 * GET /dev/mail: what the local catcher caught (only when no SMTP_URL is set), for the demo and the tests. It holds
 * reset links, so it answers only the MAIL_CATCHER_TOKEN (set, or made at start and printed in the log).
 */
import { timingSafeEqual } from 'node:crypto';
import type { FastifyPluginAsync } from 'fastify';
import { ErrorCode, MAIL_CATCHER_HEADER, listCaughtMail } from '@uvd/contracts';
import type { AppContext } from '../context.ts';
import { HttpError, notFound } from '../lib/http-error.ts';
import { registerRoute } from '../lib/route.ts';

const sameText = (a: string, b: string) => {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
};

export const mailRoutes: FastifyPluginAsync<AppContext> = async (app, ctx) => {
  registerRoute(app, listCaughtMail, async ({ query, request }) => {
    const catcher = ctx.mail.catcher;
    if (!catcher) throw notFound('The mail catcher (it runs only without SMTP_URL)');
    const presented = request.headers[MAIL_CATCHER_HEADER];
    if (typeof presented !== 'string' || !sameText(presented, ctx.mail.catcherToken)) {
      throw new HttpError(401, ErrorCode.unauthorized, `Header ${MAIL_CATCHER_HEADER} must carry the catcher's token (MAIL_CATCHER_TOKEN, printed in the server log at start).`);
    }
    const mails = catcher.mails().reverse();
    return { data: query.to ? mails.filter((mail) => mail.to.some((to) => to.toLowerCase() === query.to)) : mails };
  });
};
