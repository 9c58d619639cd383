import type { FastifyPluginAsync } from 'fastify';
import { commandJob, DataFlag, startJobNow } from '@uvd/contracts';
import type { AppContext } from '../context.ts';
import { findJob } from '../jobs/repository.ts';
import { notFound } from '../lib/http-error.ts';
import { idempotencyKey, idempotent } from '../lib/idempotency.ts';
import { registerRoute } from '../lib/route.ts';
import { pauseOrResume, startJob, stopJob } from './lifecycle.ts';

/**
 * Job start and job commands (spec §7: POST /jobs/job/start, POST /command/job/{job_id}). Each runs in one
 * transaction with the job locked; the message to the robot is sent before it commits, so a refused or failed
 * command changes nothing. An Idempotency-Key makes a retried command answer the first reply.
 */
export const executionRoutes: FastifyPluginAsync<AppContext> = async (app, ctx) => {
  registerRoute(app, startJobNow, async ({ query, principal, request }) =>
    ctx.db.transaction(async (tx) =>
      idempotent(
        tx,
        { orgId: principal.orgId, key: idempotencyKey(request), scope: `start ${query.job_id}`, reply: DataFlag },
        async () => {
          const job = await findJob(tx, principal, query.job_id, true);
          if (!job) throw notFound('Job');
          await startJob(ctx, tx, job);
          return { data: true };
        },
      ),
    ),
  );

  registerRoute(app, commandJob, async ({ params, query, principal, request }) =>
    ctx.db.transaction(async (tx) =>
      idempotent(
        tx,
        {
          orgId: principal.orgId,
          key: idempotencyKey(request),
          scope: `${query.command} ${params.job_id}`,
          reply: DataFlag,
        },
        async () => {
          const job = await findJob(tx, principal, params.job_id, true);
          if (!job) throw notFound('Job');
          switch (query.command) {
            case 'start':
              await startJob(ctx, tx, job);
              break;
            case 'pause':
            case 'resume':
              await pauseOrResume(ctx, tx, job, query.command);
              break;
            case 'stop':
              await stopJob(ctx, tx, job);
              break;
          }
          return { data: true };
        },
      ),
    ),
  );
};
