/**
 * Job execution: the scheduler that starts due jobs, and the executor that turns robot state into job
 * progress, operator prompts and, at the end, a log.
 */
import type { AppContext } from '../context.ts';
import { COMMAND_REPLY_RETENTION_MS, pruneCommandReplies } from '../lib/idempotency.ts';
import { createExecutor, type Executor } from './executor.ts';
import { startScheduler, type Scheduler } from './scheduler.ts';

const SWEEP_MS = 5000;
const PRUNE_MS = 10 * 60_000;

export interface Execution {
  executor: Executor;
  scheduler: Scheduler;
  close(): Promise<void>;
}

export async function startExecution(context: AppContext): Promise<Execution> {
  const silent = context.config.logLevel === 'silent';
  // The execution runs outside any request, so its failures have no caller to answer: they are logged.
  const onError = (error: unknown, message: string) => {
    if (!silent) console.error(`[execution] ${message}:`, error);
  };
  const executor = createExecutor(context, onError);
  // The executor queues each event on its own chain per robot; the gateway does not wait for job writes.
  const unsubscribe = context.fleet.onStateEvent((event) => {
    void executor.handleEvent(event);
  });
  const scheduler = startScheduler(context, context.config.schedulerPollMs, onError, (jobId) => {
    executor.forget(jobId);
  });
  const sweeper = setInterval(() => {
    executor.sweepLostOrders().catch((error: unknown) => {
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
    executor,
    scheduler,
    async close() {
      clearInterval(sweeper);
      clearInterval(pruner);
      unsubscribe();
      await scheduler.close();
      await executor.idle();
    },
  };
}
