/**
 * Bearer-token authentication for every route whose contract needs it, run on request (before validation)
 * so that a caller without a valid token gets 401 and a caller of the wrong role 403, whatever they sent.
 *
 * A valid signature is not the whole answer: the identity module adds a check that the token's user still
 * exists and is enabled (identity/revocation.ts), run after the signature and before the roles. It is added
 * through `addPrincipalCheck` because the identity module, which holds the database, mounts after this plugin.
 */
import type { FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Principal } from '../identity/principal.ts';
import type { TokenVerifier } from '../identity/verifier.ts';
import { forbidden, unauthorized } from '../lib/http-error.ts';

/** Resolves when the principal may make this request; throws an HttpError (401, 403) when not. */
export type PrincipalCheck = (principal: Principal, request: FastifyRequest) => Promise<void>;

declare module 'fastify' {
  interface FastifyContextConfig {
    auth?: boolean;
    roles?: readonly string[] | undefined;
  }
  interface FastifyRequest {
    principal?: Principal;
  }
  interface FastifyInstance {
    /** Adds a check every authenticated request passes after its token's signature (any plugin may add one). */
    addPrincipalCheck(check: PrincipalCheck): void;
  }
}

export interface AuthOptions {
  verify: TokenVerifier;
}

export const authPlugin = fp<AuthOptions>(
  async (app, { verify }) => {
    const checks: PrincipalCheck[] = [];
    app.decorate('addPrincipalCheck', (check: PrincipalCheck) => {
      checks.push(check);
    });
    app.decorateRequest('principal', undefined);
    app.addHook('onRequest', async (request) => {
      const config = request.routeOptions.config;
      if (config.auth !== true) return;
      const header = request.headers.authorization;
      const match = header ? /^Bearer\s+(\S+)$/i.exec(header) : null;
      if (!match?.[1]) throw unauthorized();
      const principal = await verify(match[1]);
      for (const check of checks) await check(principal, request);
      request.principal = principal;
      const roles = config.roles;
      if (roles && !roles.some((role) => (principal.roles as readonly string[]).includes(role))) throw forbidden();
    });
  },
  { name: 'auth' },
);
