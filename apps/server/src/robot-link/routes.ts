import { and, eq } from 'drizzle-orm';
import type { FastifyPluginAsync } from 'fastify';
import { commandJob, DataFlag, postRobotCommand, startJobNow, type JobEventKind, type RobotCommand } from '@uvd/contracts';
import type { AppContext } from '../context.ts';
import type { Tx } from '../db/client.ts';
import { robots } from '../db/schema.ts';
import { refuseIfFinished } from '../jobs/finished.ts';
import { findJob } from '../jobs/repository.ts';
import { notFound } from '../lib/http-error.ts';
import { idempotencyKey, idempotent } from '../lib/idempotency.ts';
import { registerRoute } from '../lib/route.ts';
import { robotVisible } from '../lib/visibility.ts';
import { checkControllable, checkMeaningful, instantActionsOf } from './commands.ts';
import { recordOperatorCommand } from './interruptions.ts';
import { pauseOrResume, startJob, stopJob } from './lifecycle.ts';
import { recordCommand } from './outbox.ts';
import * as repository from './repository.ts';

/** A robot's pause, resume or stop is one of the job it runs, too: the job's event it is recorded as. */
const JOB_EVENT_OF: Readonly<Record<RobotCommand, Extract<JobEventKind, 'paused' | 'resumed' | 'stopped'> | undefined>> = {
  pause: 'paused',
  play: 'resumed',
  resume: 'resumed',
  stop: 'stopped',
  home: undefined,
};

/**
 * The commands of the robot link (behaviour §7): POST /command/{robot_id} (play/resume, pause, stop, home),
 * POST /jobs/job/start and POST /command/job/{job_id}. Each runs in one transaction: refusals (robot offline,
 * not Autonomous but for a stop, busy, job state, a robot command that would change nothing) are decided first; then the change and the robot's command (recorded in
 * the outbox) commit together, and the command is sent after the commit. An Idempotency-Key makes a retried
 * command answer the first reply without a second command.
 */
export const robotLinkRoutes: FastifyPluginAsync<AppContext> = async (app, ctx) => {
  /** Runs `command` in a transaction, once per Idempotency-Key; after the commit, sends what it recorded. */
  const runCommand = async (
    request: Parameters<typeof idempotencyKey>[0],
    orgId: string,
    scope: string,
    command: (tx: Tx) => Promise<DataFlag>,
  ): Promise<DataFlag> => {
    const key = idempotencyKey(request);
    const reply = await ctx.db.transaction(async (tx) => idempotent(tx, { orgId, key, scope, reply: DataFlag }, () => command(tx)));
    ctx.commands.wake();
    return reply;
  };

  registerRoute(app, postRobotCommand, async ({ params, query, principal, request }) =>
    runCommand(request, principal.orgId, `robot ${query.command} ${params.robot_id}`, async (tx) => {
      // The robot's Running job is locked before the robot, in the order every job command takes them
      // (lifecycle.ts), so recording its event (a row referencing the job) never waits in a cycle with the job runner.
      const eventKind = JOB_EVENT_OF[query.command];
      const [running] = eventKind ? await repository.runningJobs(tx, [params.robot_id]) : [];
      const job = running ? await repository.lockJob(tx, principal.orgId, running.id) : undefined;
      const [robot] = await tx
        .select({ id: robots.id, name: robots.name, mode: robots.mode })
        .from(robots)
        .where(and(eq(robots.orgId, principal.orgId), eq(robots.id, params.robot_id), robotVisible(tx, principal, robots.id)))
        // Locked: the robot's commands are numbered in the order they are decided (outbox.ts).
        .for('update');
      if (!robot) throw notFound('Robot');
      checkControllable(ctx.fleet, robot, query.command === 'stop' ? 'any' : 'autonomous');
      checkMeaningful(ctx.fleet, robot, query.command);
      await recordCommand(tx, {
        orgId: principal.orgId,
        robotId: robot.id,
        jobId: null,
        kind: query.command,
        body: { actions: instantActionsOf({ kind: query.command }) },
      });
      if (eventKind && job?.status === 'Running' && job.robotId === robot.id) {
        await recordOperatorCommand(tx, job, eventKind, principal.username, { via: 'robot' });
      }
      return { data: true };
    }),
  );

  registerRoute(app, startJobNow, async ({ query, principal, request }) =>
    runCommand(request, principal.orgId, `start ${query.job_id}`, async (tx) => {
      const job = await findJob(tx, principal, query.job_id, true);
      if (!job) throw notFound('Job');
      refuseIfFinished(job);
      await startJob(ctx, tx, job, principal.username);
      return { data: true };
    }),
  );

  registerRoute(app, commandJob, async ({ params, query, principal, request }) =>
    runCommand(request, principal.orgId, `${query.command} ${params.job_id}`, async (tx) => {
      const job = await findJob(tx, principal, params.job_id, true);
      if (!job) throw notFound('Job');
      refuseIfFinished(job);
      switch (query.command) {
        case 'start':
          await startJob(ctx, tx, job, principal.username);
          break;
        case 'pause':
        case 'resume':
          await pauseOrResume(ctx, tx, job, query.command, principal.username);
          break;
        case 'stop':
          await stopJob(ctx, tx, job, principal.username);
          break;
      }
      return { data: true };
    }),
  );
};
