/**
 * Job execution: the scheduler that starts due jobs, and the executor that turns robot state into job
 * progress, operator prompts and, at the end, a log.
 */
import type { AppContext } from '../context.ts';

export interface Execution {
  close(): Promise<void>;
}

export async function startExecution(_context: AppContext): Promise<Execution> {
  return { close: async () => undefined };
}
