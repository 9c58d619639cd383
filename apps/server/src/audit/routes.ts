import type { FastifyPluginAsync } from 'fastify';
import { exportAudit, listAudit, verifyAudit } from '@uvd/contracts';
import type { AppContext } from '../context.ts';
import { registerRoute } from '../lib/route.ts';
import { chainPending, verifyChain } from './chain.ts';
import { exportAuditEntries, listAuditEntries } from './repository.ts';

/** The audit trail (audit/README.md): admins search it, export it and verify its chain. Nothing here changes an entry (chaining only gives new ones their place). */
export const auditRoutes: FastifyPluginAsync<AppContext> = async (app, ctx) => {
  // Entries recorded a moment ago are chained first (milliseconds), so that what is shown carries its place and hash.
  registerRoute(app, listAudit, async ({ query, principal }) => {
    await chainPending(ctx.db, principal.orgId);
    return listAuditEntries(ctx.db, principal, query);
  });

  registerRoute(app, exportAudit, async ({ query, principal, reply }) => {
    await chainPending(ctx.db, principal.orgId);
    void reply.header('content-disposition', `attachment; filename="audit-${principal.orgId}.ndjson"`);
    return exportAuditEntries(ctx.db, principal, query);
  });

  registerRoute(app, verifyAudit, async ({ principal }) => {
    // What was recorded a moment ago is part of the answer, not left for the next poll.
    await chainPending(ctx.db, principal.orgId);
    return verifyChain(ctx.db, principal.orgId);
  });
};
