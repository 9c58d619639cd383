/**
 * Job execution: the scheduler that starts due jobs, and the executor that turns robot state into job
 * progress, operator prompts and, at the end, a log.
 */
import type { AppContext } from '../context.ts';
import { createExecutor, type Executor } from './executor.ts';
import { startScheduler, type Scheduler } from './scheduler.ts';

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
  const unsubscribe = context.fleet.onState((robot, state) => executor.handleState(robot, state));
  const scheduler = startScheduler(context, context.config.schedulerPollMs, onError, (jobId) => {
    executor.forget(jobId);
  });
  return {
    executor,
    scheduler,
    async close() {
      unsubscribe();
      await scheduler.close();
      await executor.idle();
    },
  };
}
