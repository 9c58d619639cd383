/**
 * Anti-forgery, double-submit style (behaviour §9: cookie XSRF-TOKEN, header X-XSRF-TOKEN). The server issues the
 * cookie; a state-changing request that carries the cookie must echo it in the header. A client that sends no
 * cookie (a bearer-only API client) is not a browser riding on ambient credentials and passes.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import fp from 'fastify-plugin';
import { ErrorCode } from '@uvd/contracts';
import { HttpError } from '../lib/http-error.ts';

export const XSRF_COOKIE = 'XSRF-TOKEN';
export const XSRF_HEADER = 'x-xsrf-token';
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

const same = (a: string, b: string) => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
};

export const xsrfPlugin = fp(
  async (app) => {
    app.addHook('onRequest', async (request, reply) => {
      const cookie = request.cookies[XSRF_COOKIE];
      if (!cookie) {
        // Readable by the SPA's script (not httpOnly) so it can echo it; SameSite keeps it first-party.
        reply.setCookie(XSRF_COOKIE, randomBytes(24).toString('base64url'), { path: '/', sameSite: 'strict' });
        return;
      }
      if (SAFE_METHODS.has(request.method)) return;
      const header = request.headers[XSRF_HEADER];
      if (typeof header !== 'string' || !same(header, cookie)) {
        throw new HttpError(403, ErrorCode.xsrf, 'The X-XSRF-TOKEN header must match the XSRF-TOKEN cookie.');
      }
    });
  },
  { name: 'xsrf', dependencies: ['@fastify/cookie'] },
);
