import type { FastifyPluginAsync } from 'fastify';
import { createJob, deleteJob, ErrorCode, getDoses, getJob, listJobs, updateJob, updateJobNotes, type Job } from '@uvd/contracts';
import type { AppContext } from '../context.ts';
import type { Tx } from '../db/client.ts';
import type { Principal } from '../identity/principal.ts';
import { conflict, notFound } from '../lib/http-error.ts';
import { registerRoute } from '../lib/route.ts';
import { refuseIfFinished } from './finished.ts';
import { startJob } from '../robot-link/lifecycle.ts';
import type { JobRow } from './repository.ts';
import { findRobot, resolveJobInput } from './job-input.ts';
import * as repository from './repository.ts';

const jobRunning = () => conflict('The job is running; stop it before changing or deleting it.', ErrorCode.jobRunning);

/** The jobs backend (behaviour §7). Every change publishes a `job_change` event in its own transaction. */
export const jobsRoutes: FastifyPluginAsync<AppContext> = async (app, ctx) => {
  const publish = (tx: Tx, principal: Principal, jobId: string, payload: Job | { job_id: string; deleted: true }) =>
    ctx.bus.publish({ orgId: principal.orgId, stream: 'jobs', key: jobId, type: 'job_change', payload }, tx);

  /**
   * A job saved with start_now starts in the same transaction, with the start's checks (robot online,
   * Autonomous, not busy): a refusal is the start's 409 and saves nothing, so nobody is told a job could not
   * start while it waits to start by itself later. The reply is then the Running job, and its order is sent
   * after the commit.
   */
  const saveJob = async (tx: Tx, principal: Principal, row: JobRow, startNow: boolean): Promise<Job> => {
    const saved = startNow ? await startJob(ctx, tx, row, principal.username) : row;
    const job = await repository.toJob(tx, saved, { roomData: true });
    if (!startNow) await publish(tx, principal, job.job_id, job);
    return job;
  };
  const sendStarted = (job: Job) => {
    if (job.status === 'Running') ctx.commands.wake();
    return job;
  };

  registerRoute(app, createJob, async ({ params, query, body, principal }) =>
    sendStarted(
      await ctx.db.transaction(async (tx) => {
        const robot = await findRobot(tx, principal, params.robotId);
        const startNow = query.start_now ?? body.start_now;
        const values = await resolveJobInput(tx, principal, robot, body, startNow);
        const row = await repository.insertJob(tx, principal, robot.id, values);
        return saveJob(tx, principal, row, startNow);
      }),
    ),
  );

  registerRoute(app, updateJob, async ({ params, body, principal }) =>
    sendStarted(
      await ctx.db.transaction(async (tx) => {
        const existing = await repository.findJob(tx, principal, params.jobId, true);
        if (!existing) throw notFound('Job');
        if (existing.status === 'Running') throw jobRunning();
        refuseIfFinished(existing);
        const robot = await findRobot(tx, principal, existing.robotId);
        const values = await resolveJobInput(tx, principal, robot, body, body.start_now);
        const row = await repository.replaceJob(tx, existing.id, values);
        return saveJob(tx, principal, row, body.start_now);
      }),
    ),
  );

  registerRoute(app, listJobs, async ({ query, principal }) => {
    // The expanded row shows each room's name and ready toggle, so the list carries the room data.
    const { count, jobs } = await repository.listJobs(ctx.db, principal, query, { roomData: true });
    return { count, payload: jobs };
  });

  registerRoute(app, getJob, async ({ params, query, principal }) => {
    const row = await repository.findJob(ctx.db, principal, params.id);
    if (!row) throw notFound('Job');
    return repository.toJob(ctx.db, row, { roomData: query.extra_room_data, navigation: query.extra_navigation_data });
  });

  registerRoute(app, getDoses, async ({ principal }) => {
    const { uvcDoses, defaultDose } = await repository.organizationDoses(ctx.db, principal.orgId);
    return { uvc_doses: uvcDoses, default_dose: defaultDose };
  });

  registerRoute(app, deleteJob, async ({ params, principal }) =>
    ctx.db.transaction(async (tx) => {
      const existing = await repository.findJob(tx, principal, params.id, true);
      if (!existing) throw notFound('Job');
      if (existing.status === 'Running') throw jobRunning();
      refuseIfFinished(existing);
      await repository.deleteJob(tx, existing.id);
      await publish(tx, principal, existing.id, { job_id: existing.id, deleted: true });
      return { data: true };
    }),
  );

  registerRoute(app, updateJobNotes, async ({ params, body, principal }) =>
    ctx.db.transaction(async (tx) => {
      const existing = await repository.findJob(tx, principal, params.job_id, true);
      if (!existing) throw notFound('Job');
      // A finished job's notes are its log's (PATCH /log/{id}/notes edits those).
      refuseIfFinished(existing);
      const row = await repository.setJobNotes(tx, existing.id, body.notes);
      const job = await repository.toJob(tx, row, { roomData: true });
      await publish(tx, principal, job.job_id, job);
      return job;
    }),
  );
};
