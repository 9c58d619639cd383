/**
 * Job execution: the scheduler that starts due jobs, and the job runner that turns robot state into job
 * progress, operator prompts and, at the end, a log.
 */
import type { AppContext } from '../context.ts';
import { COMMAND_REPLY_RETENTION_MS, pruneCommandReplies } from '../lib/idempotency.ts';
import { startDispatcher, type DeliveryDispatcher } from './deliveries/dispatcher.ts';
import { createDeliveryProgress, type DeliveryProgress } from './deliveries/progress.ts';
import { createJobRunner, type JobRunner } from './job-runner.ts';
import { publishJobChange } from './lifecycle.ts';
import * as repository from './repository.ts';
import { startScheduler, type Scheduler } from './scheduler.ts';

const SWEEP_MS = 5000;
const PRUNE_MS = 10 * 60_000;

export interface Execution {
  jobRunner: JobRunner;
  scheduler: Scheduler;
  /** Deliveries: the dispatcher, and the robots' states moving their deliveries (robot-link/deliveries/). */
  deliveries: { dispatcher: DeliveryDispatcher; progress: DeliveryProgress };
  close(): Promise<void>;
}

export async function startExecution(context: AppContext): Promise<Execution> {
  const silent = context.config.logLevel === 'silent';
  // The execution runs outside any request, so its failures have no caller to answer: they are logged.
  const onError = (error: unknown, message: string) => {
    if (!silent) console.error(`[execution] ${message}:`, error);
  };
  const jobRunner = createJobRunner(context, onError);
  // The job runner queues each event on its own chain per robot; the gateway does not wait for job writes.
  const unsubscribe = context.fleet.onStateEvent((event) => {
    void jobRunner.handleEvent(event);
  });
  // A Running job's robot that comes or goes changes what its job shows (connection_lost_since): job_change.
  const unsubscribeConnection = context.fleet.onConnection(async (robot) => {
    await publishRunningJobs(context, robot.orgId, robot.robotId).catch((error: unknown) => {
      onError(error, `the jobs of robot ${robot.robotId} could not be published after its connection changed`);
    });
  });
  const progress = createDeliveryProgress(context, onError);
  const unsubscribeDeliveries = context.fleet.onStateEvent((event) => {
    void progress.handleEvent(event);
  });
  const unsubscribeDeliveryConnection = context.fleet.onConnection((robot) => {
    progress.forget(robot.robotId);
  });
  const dispatcher = startDispatcher(context, onError);
  const handBacks = setInterval(() => {
    progress.sweepHandBacks().catch((error: unknown) => {
      onError(error, 'the delivery hand-back sweep failed');
    });
  }, Math.min(SWEEP_MS, Math.max(100, Math.floor(context.config.deliveryHandbackMs / 4))));
  handBacks.unref();
  const scheduler = startScheduler(context, context.config.schedulerPollMs, onError, (jobId) => {
    jobRunner.forget(jobId);
  });
  const sweeper = setInterval(() => {
    jobRunner.sweepLostOrders().catch((error: unknown) => {
      onError(error, 'the lost-order sweep failed');
    });
  }, SWEEP_MS);
  sweeper.unref();
  const pruner = setInterval(() => {
    pruneCommandReplies(context.db, new Date(Date.now() - COMMAND_REPLY_RETENTION_MS)).catch((error: unknown) => {
      onError(error, 'pruning command replies failed');
    });
  }, PRUNE_MS);
  pruner.unref();
  return {
    jobRunner,
    scheduler,
    deliveries: { dispatcher, progress },
    async close() {
      clearInterval(handBacks);
      unsubscribeDeliveries();
      unsubscribeDeliveryConnection();
      await dispatcher.close();
      await progress.idle();
      clearInterval(sweeper);
      clearInterval(pruner);
      unsubscribe();
      unsubscribeConnection();
      await scheduler.close();
      await jobRunner.idle();
    },
  };
}

/** Publishes job_change for the robot's Running jobs (as the robot's row says now), in one transaction. */
async function publishRunningJobs(context: AppContext, orgId: string, robotId: string): Promise<void> {
  await context.db.transaction(async (tx) => {
    for (const job of await repository.runningJobs(tx, [robotId])) {
      if (job.orgId === orgId) await publishJobChange(context, tx, job);
    }
  });
}
