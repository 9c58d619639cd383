/**
 * Bearer-token authentication for every route whose contract needs it, run on request (before validation)
 * so that a caller without a valid token gets 401 and a caller of the wrong role 403, whatever they sent.
 */
import fp from 'fastify-plugin';
import type { Principal } from '../identity/principal.ts';
import type { TokenVerifier } from '../identity/verifier.ts';
import { forbidden, unauthorized } from '../lib/http-error.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    auth?: boolean;
    roles?: readonly string[] | undefined;
  }
  interface FastifyRequest {
    principal?: Principal;
  }
}

export interface AuthOptions {
  verify: TokenVerifier;
}

export const authPlugin = fp<AuthOptions>(
  async (app, { verify }) => {
    app.decorateRequest('principal', undefined);
    app.addHook('onRequest', async (request) => {
      const config = request.routeOptions.config;
      if (config.auth !== true) return;
      const header = request.headers.authorization;
      const match = header ? /^Bearer\s+(\S+)$/i.exec(header) : null;
      if (!match?.[1]) throw unauthorized();
      const principal = await verify(match[1]);
      request.principal = principal;
      const roles = config.roles;
      if (roles && !roles.some((role) => (principal.roles as readonly string[]).includes(role))) throw forbidden();
    });
  },
  { name: 'auth' },
);
