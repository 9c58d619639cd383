/**
 * Starts Scheduled jobs when their start_time comes. The schedule is the jobs table itself, so it survives
 * restarts; every server process polls it, and `FOR UPDATE SKIP LOCKED` hands each due job to one process,
 * whose conditional update (Scheduled → Running) and order (recorded in the outbox, sent after the commit by
 * outbox.ts) are committed together: a job starts once, and its order goes out once it is committed.
 * A job whose robot cannot take it now (offline, not Autonomous, busy with another job, battery low, a FATAL
 * error) stays Scheduled with the reason in the job (`holdJob`: job_change and a push, once per reason) and
 * starts at a later poll, when it can, within its organization's start window (`start_window_minutes` after its
 * start_time). Past the window it is missed (`missJob`), never started late.
 */
import { and, asc, eq, inArray, lte } from 'drizzle-orm';
import { NotStartedReason } from '@uvd/contracts';
import type { AppContext } from '../context.ts';
import type { Executor } from '../db/client.ts';
import { jobs, organizations } from '../db/schema.ts';
import { HttpError } from '../lib/http-error.ts';
import type { ErrorReporter } from './job-runner.ts';
import { holdJob, missJob, startJob } from './lifecycle.ts';

/** Due jobs taken per poll; more wait for the next one. */
const BATCH = 20;

/** Scheduled jobs whose start_time has come. */
const dueNow = () => and(eq(jobs.status, 'Scheduled'), lte(jobs.startTime, new Date()));

export interface Scheduler {
  /** One poll: starts what is due and can start; returns the ids started. */
  tick(): Promise<string[]>;
  close(): Promise<void>;
}

export function startScheduler(
  ctx: Pick<AppContext, 'db' | 'bus' | 'fleet' | 'commands'>,
  pollMs: number,
  onError: ErrorReporter,
  onStarted: (jobId: string) => void = () => undefined,
): Scheduler {
  let closed = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> = Promise.resolve();

  const tick = async (): Promise<string[]> => {
    // Most polls find nothing due: one plain read says so, where the transaction below is three statements (a
    // test's scheduler polling every 50 ms ran a sixth of execution.test.ts's statements in empty polls). A job that
    // comes due after this read is taken at the next poll, as one due after the locked read always was.
    const [anyDue] = await ctx.db.select({ id: jobs.id }).from(jobs).where(dueNow()).limit(1);
    if (!anyDue) return [];
    const started = await ctx.db.transaction(async (tx) => {
      const due = await tx
        .select()
        .from(jobs)
        .where(dueNow())
        .orderBy(asc(jobs.startTime))
        .limit(BATCH)
        .for('update', { skipLocked: true });
      const started: string[] = [];
      const windows = await startWindows(tx, due.map((job) => job.orgId));
      const now = Date.now();
      for (const job of due) {
        const windowMs = (windows.get(job.orgId) ?? 0) * 60_000;
        try {
          // A savepoint per job: one that cannot start leaves the others' starts intact.
          if (now > job.startTime.getTime() + windowMs) {
            await tx.transaction(async (savepoint) => missJob(ctx, savepoint, job));
            continue;
          }
          await tx.transaction(async (savepoint) => startJob(ctx, savepoint, job, null));
          started.push(job.id);
          onStarted(job.id);
        } catch (error) {
          const reason = error instanceof HttpError && error.statusCode === 409 ? NotStartedReason.safeParse(error.code) : undefined;
          if (reason?.success) await tx.transaction(async (savepoint) => holdJob(ctx, savepoint, job, reason.data));
          else if (!(error instanceof HttpError && error.statusCode === 409)) onError(error, `scheduled job ${job.id} could not start`);
        }
      }
      return started;
    });
    // The started jobs' orders were recorded with the starts: they go out now.
    if (started.length > 0) ctx.commands.wake();
    return started;
  };

  const loop = () => {
    if (closed) return;
    running = tick()
      .catch((error: unknown) => {
        onError(error, 'the scheduler poll failed');
      })
      .finally(() => {
        if (closed) return;
        timer = setTimeout(loop, pollMs);
        timer.unref();
      });
  };
  timer = setTimeout(loop, 0);
  timer.unref();

  return {
    tick,
    async close() {
      closed = true;
      clearTimeout(timer);
      await running;
    },
  };
}

/** The start window (minutes) of each of these organizations. */
async function startWindows(executor: Executor, orgIds: readonly string[]): Promise<Map<string, number>> {
  if (orgIds.length === 0) return new Map();
  const rows = await executor
    .select({ id: organizations.id, minutes: organizations.startWindowMinutes })
    .from(organizations)
    .where(inArray(organizations.id, [...new Set(orgIds)]));
  return new Map(rows.map((row) => [row.id, row.minutes]));
}
