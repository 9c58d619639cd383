/**
 * Makes the caller the author of every change a state-changing request makes (audit/context.ts): after
 * authentication and validation, the rest of the request (its handler and whatever it awaits) runs with the
 * caller's username, id, address and route. Reads carry no author: they change nothing worth recording.
 */
import fp from 'fastify-plugin';
import { Id } from '@uvd/contracts';
import { withAuditActor } from './context.ts';

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

export const auditPlugin = fp(
  async (app) => {
    // Callback style: the continuation of the request runs inside `run`, so the handler sees the author.
    app.addHook('preHandler', (request, _reply, done) => {
      const principal = request.principal;
      if (!principal || READS.has(request.method)) {
        done();
        return;
      }
      withAuditActor(
        {
          source: 'api',
          actor: principal.username,
          actor_id: Id.safeParse(principal.sub).success ? principal.sub : null,
          // Behind a trusted proxy (TRUST_PROXY), the forwarded client address.
          ip: request.ip,
          request: `${request.method} ${request.routeOptions.url ?? request.url}`,
        },
        done,
      );
    });
  },
  { name: 'audit', dependencies: ['auth'] },
);
