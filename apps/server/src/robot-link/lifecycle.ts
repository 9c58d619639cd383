/**
 * A job's life on a robot: started (by the scheduler or a click), paused and resumed, stopped, and ended with
 * its log. Each step runs in the caller's transaction with the job row locked, and publishes what it changed.
 * What the robot is told (the order, an instant action) is recorded in the outbox in that same transaction and
 * sent once it commits (outbox.ts): a transaction that fails tells the robot nothing.
 */
import { and, eq } from 'drizzle-orm';
import { ActionButtonText, CommandRefusal, type ActionChange, type NotStartedReason } from '@uvd/contracts';
import type { AppContext } from '../context.ts';
import type { Tx } from '../db/client.ts';
import { jobRooms, jobs } from '../db/schema.ts';
import { conflict } from '../lib/http-error.ts';
import { toJobs } from '../jobs/repository.ts';
import { checkCanRunJob, checkControllable, instantActionsOf, type InstantCommand } from './commands.ts';
import { recordOperatorCommand, recordStart } from './interruptions.ts';
import { buildOrder } from './order.ts';
import { recordCommand } from './outbox.ts';
import type { CompletionStatus } from './job-reducer.ts';
import * as repository from './repository.ts';
import type { ActionRow } from '../actions/repository.ts';
import type { JobRow } from '../jobs/repository.ts';
import type { ExecutionRobot } from './repository.ts';

type Context = Pick<AppContext, 'bus' | 'fleet'>;
type BusContext = Pick<AppContext, 'bus'>;

/** job_change with the job as the jobs list shows it (behaviour §4: the client replaces it by job_id). */
export async function publishJobChange(ctx: BusContext, tx: Tx, job: Pick<JobRow, 'id' | 'orgId'>): Promise<void> {
  const [payload] = await toJobs(tx, [job], { roomData: true });
  if (!payload) return;
  await ctx.bus.publish({ orgId: job.orgId, stream: 'jobs', key: job.id, type: 'job_change', payload }, tx);
}

/**
 * Job events for the notifications service (behaviour §3 push type "job"): job_started, job_finished (completed or
 * stopped by an operator) and job_failed, on the jobs stream beside job_change.
 */
async function publishJobEvent(
  ctx: Context,
  tx: Tx,
  job: JobRow,
  type: 'job_started' | 'job_finished' | 'job_failed',
  reason: NotStartedReason | null = null,
) {
  await ctx.bus.publish(
    {
      orgId: job.orgId,
      stream: 'jobs',
      key: job.id,
      type,
      payload: { job_id: job.id, robot_id: job.robotId, name: job.name, completion_status: job.completionStatus, reason },
    },
    tx,
  );
}

export function actionChange(row: ActionRow): ActionChange {
  return {
    action_id: row.id,
    job_id: row.jobId,
    robot_id: row.robotId,
    // Only behaviour §3 button texts are stored (promptsOf checks them); the fallback is never used.
    button: { text: ActionButtonText.catch('wait').parse(row.buttonText), disabled: row.disabled },
    resolved: row.resolvedAt !== null,
  };
}

export async function publishActionChange(ctx: Context, tx: Tx, row: ActionRow): Promise<void> {
  await ctx.bus.publish(
    { orgId: row.orgId, stream: 'actions', key: row.jobId, type: 'action_change', payload: actionChange(row) },
    tx,
  );
}

const refuse = (code: string, message: string) => conflict(message, code);

/** Records an instant action of `job`'s robot in the outbox (sent after `tx` commits). */
async function recordInstant(tx: Tx, job: JobRow, command: InstantCommand & { kind: 'pause' | 'resume' | 'stop' | 'decision' }) {
  await recordCommand(tx, {
    orgId: job.orgId,
    robotId: job.robotId,
    jobId: job.id,
    kind: command.kind,
    body: { actions: instantActionsOf(command) },
  });
}

async function robotOf(tx: Tx, job: JobRow): Promise<ExecutionRobot> {
  const robot = await repository.lockRobot(tx, job.orgId, job.robotId);
  // jobs.robot_id references robots with cascade: a job without its robot does not exist.
  if (!robot) throw new Error(`robot of job ${job.id} is missing`);
  return robot;
}

/**
 * Starts a Scheduled job now: checks the robot, marks the job Running, records the order (sent after `tx`
 * commits) and who started it (`actor`, a username; null for the scheduler); `job` must be locked.
 */
export async function startJob(ctx: Context, tx: Tx, job: JobRow, actor: string | null): Promise<JobRow> {
  if (job.status !== 'Scheduled') {
    throw refuse(CommandRefusal.jobState, job.status === 'Running' ? 'The job is already running.' : 'The job has ended.');
  }
  const robot = await robotOf(tx, job);
  // A delivery robot never runs a disinfection job (409 robot_kind), whatever its state.
  if (robot.kind !== 'disinfection') checkCanRunJob(ctx.fleet, robot);
  checkControllable(ctx.fleet, robot);
  checkCanRunJob(ctx.fleet, robot);
  const other = await repository.otherRunningJob(tx, robot.id, job.id);
  if (other) throw refuse(CommandRefusal.robotBusy, `Robot "${robot.name}" is running another job.`);

  const now = new Date();
  // A new orderId starts at orderUpdateId 0 (VDA 5050 §6.6). The planned start_time stays as it was planned;
  // the real start is started_at, so a late or early start leaves its trace.
  const [started] = await tx
    .update(jobs)
    .set({ status: 'Running', activeState: 'disinfecting', startedAt: now, notStartedReason: null, updatedAt: now, orderUpdateId: 0 })
    .where(and(eq(jobs.id, job.id), eq(jobs.status, 'Scheduled')))
    .returning();
  if (!started) throw refuse(CommandRefusal.jobState, 'The job is already running.');
  await tx.update(jobRooms).set({ state: 'pending', startedAt: null, endedAt: null }).where(eq(jobRooms.jobId, job.id));
  const home = { floorId: robot.floorId, pose: robot.home };
  // Where the robot stands now: its live report, else the row (written at most every few seconds).
  const link = ctx.fleet.link(robot.id);
  const start = link?.pose ? { floorId: link.floorId, pose: link.pose } : { floorId: robot.floorId, pose: robot.pose };
  const order = buildOrder(job.id, 0, await repository.orderRooms(tx, job.id), home, start);
  await recordCommand(tx, { orgId: job.orgId, robotId: robot.id, jobId: job.id, kind: 'order', body: { order } });
  await recordStart(tx, started, actor, now);
  await publishJobChange(ctx, tx, started);
  await publishJobEvent(ctx, tx, started, 'job_started');
  return started;
}

/**
 * Pause or resume a Running job: an instant action for the robot. The job shows what the robot reports: it is
 * paused once the robot says so, and until then shows the command as pending (`pending_command`). The job's
 * event (who, when, the room under way) is recorded with the decision; `actor`: the user's username.
 */
export async function pauseOrResume(ctx: Context, tx: Tx, job: JobRow, command: 'pause' | 'resume', actor: string): Promise<void> {
  if (job.status !== 'Running') throw refuse(CommandRefusal.jobState, `Only a running job can be ${command}d.`);
  const robot = await robotOf(tx, job);
  checkControllable(ctx.fleet, robot);
  await recordInstant(tx, job, { kind: command, jobId: job.id });
  await recordOperatorCommand(tx, job, command === 'pause' ? 'paused' : 'resumed', actor, { via: 'job' });
  await publishJobChange(ctx, tx, job);
}

/**
 * Stop: a Running job's order is cancelled on the robot (and its pause ended), in every operating mode, and the
 * job ends as aborted when the robot reports the cancellation (its state tells which rooms were done); until
 * then the job shows the stop as pending. A job whose robot is unreachable ends `interrupted` at once
 * (`interruptJob`). A Scheduled job ends at once, unstarted, with no log. A Running job's stop is recorded as its
 * event with the decision (`actor`: the user's username).
 */
export async function stopJob(ctx: Context, tx: Tx, job: JobRow, actor: string): Promise<void> {
  if (job.status === 'Completed') throw refuse(CommandRefusal.jobState, 'The job has ended.');
  if (job.status === 'Scheduled') {
    // Nothing ran, so nothing claims it did: no log (it would be dated at a start that never came), no
    // job_finished push, and no room reached. The job ends `aborted` (an operator stopped it) and leaves the list.
    const now = new Date();
    await tx.update(jobRooms).set({ state: 'not_reached' }).where(eq(jobRooms.jobId, job.id));
    const [ended] = await tx
      .update(jobs)
      .set({ status: 'Completed', activeState: null, performed: true, endedAt: now, updatedAt: now, completionStatus: 'aborted' })
      .where(eq(jobs.id, job.id))
      .returning();
    if (ended) await publishJobChange(ctx, tx, ended);
    return;
  }
  const robot = await robotOf(tx, job);
  if (!ctx.fleet.isOnline(robot.id)) {
    await interruptJob(ctx, tx, job, actor);
    return;
  }
  checkControllable(ctx.fleet, robot, 'any');
  await recordInstant(tx, job, { kind: 'stop', jobId: job.id });
  await recordOperatorCommand(tx, job, 'stopped', actor, { via: 'job' });
  await publishJobChange(ctx, tx, job);
}

/**
 * A person ends a Running job whose robot is not connected: nobody can tell what its lamp does, and waiting for
 * it may mean waiting forever. The job ends `interrupted` at once, its log written from the rooms as the robot
 * last reported them (a room still being disinfected is aborted: its dose is not known to be complete), and the
 * robot's cancelOrder is recorded for its return: the outbox never gives it up (outbox.ts), and the robot gets it
 * with its first state. The robot row is locked by the caller (stopJob).
 */
async function interruptJob(ctx: Context, tx: Tx, job: JobRow, actor: string): Promise<void> {
  await recordInstant(tx, job, { kind: 'stop', jobId: job.id });
  // Before the rooms end: the event names the room that was under way.
  await recordOperatorCommand(tx, job, 'stopped', actor, { via: 'job', robot_offline: true });
  // What is known ends with the robot's last report: the log does not claim the lamp ran, or stopped, after it.
  const heard = ctx.fleet.link(job.robotId)?.lastHeardAt ?? 0;
  const lastReport = new Date(Math.max(heard, (job.startedAt ?? job.startTime).getTime()));
  await tx
    .update(jobRooms)
    .set({ state: 'aborted', endedAt: lastReport })
    .where(and(eq(jobRooms.jobId, job.id), eq(jobRooms.state, 'active')));
  await finishJob(ctx, tx, job, 'interrupted', { endedAt: lastReport, reason: CommandRefusal.robotOffline });
}

/**
 * A due job its robot cannot take now (the scheduler's start was refused with `reason`): it stays Scheduled,
 * with the reason in the job, and people are told once per reason (job_not_started, a push). No order is sent.
 */
export async function holdJob(ctx: Context, tx: Tx, job: JobRow, reason: NotStartedReason): Promise<void> {
  if (job.notStartedReason === reason) return;
  const [held] = await tx
    .update(jobs)
    .set({ notStartedReason: reason, updatedAt: new Date() })
    .where(and(eq(jobs.id, job.id), eq(jobs.status, 'Scheduled')))
    .returning();
  if (!held) return;
  await publishJobChange(ctx, tx, held);
  await ctx.bus.publish(
    {
      orgId: held.orgId,
      stream: 'jobs',
      key: held.id,
      type: 'job_not_started',
      payload: { job_id: held.id, robot_id: held.robotId, name: held.name, reason },
    },
    tx,
  );
}

/**
 * A Scheduled job whose start window passed before it could start: it ends `missed` (never started late), its
 * reason kept, with a log that says so; `job` must be locked.
 */
export async function missJob(ctx: Context, tx: Tx, job: JobRow): Promise<void> {
  await finishJob(ctx, tx, job, 'missed', { reason: job.notStartedReason });
}

/**
 * Records the operator's decision on a prompt for the robot (sent after `tx` commits). The robot asked, so it
 * must be online, but it need not be in Autonomous mode.
 */
export async function recordDecision(ctx: Context, tx: Tx, action: ActionRow, confirm: boolean): Promise<void> {
  const [job] = await tx.select().from(jobs).where(eq(jobs.id, action.jobId));
  if (!job) throw new Error(`job of action ${action.id} is missing`);
  const robot = await robotOf(tx, job);
  checkControllable(ctx.fleet, robot, 'any');
  await recordInstant(tx, job, { kind: 'decision', actionId: action.id, promptId: action.promptId, confirm });
}

/**
 * Ends a job: Completed, performed, its end and completion status, the log, and the events. Its rooms hold
 * their final states already; `job` must be locked. `endedAt`: when it ended, by the robot's clock where the robot
 * reported it (job-runner.ts), else now; `reason`: why it did not run as planned, kept in its log.
 */
export async function finishJob(
  ctx: Context,
  tx: Tx,
  job: JobRow,
  completionStatus: CompletionStatus,
  { endedAt = new Date(), reason = null }: { endedAt?: Date; reason?: NotStartedReason | null } = {},
): Promise<JobRow> {
  const now = new Date();
  const [ended] = await tx
    .update(jobs)
    .set({ status: 'Completed', activeState: null, performed: true, endedAt, updatedAt: now, completionStatus })
    .where(eq(jobs.id, job.id))
    .returning();
  if (!ended) throw new Error(`job ${job.id} vanished while ending`);
  // The lamp is off once the job ended: the log (and the dose computed from these intervals) ends with it.
  await repository.closeLampIntervals(tx, job.id, endedAt);
  const robot = await robotOf(tx, ended);
  await repository.writeLog(tx, ended, robot.name, reason);
  for (const action of await repository.resolveActionsOfJobs(tx, [job.id], now)) await publishActionChange(ctx, tx, action);
  await publishJobChange(ctx, tx, ended);
  await publishJobEvent(ctx, tx, ended, completionStatus === 'failed' ? 'job_failed' : 'job_finished', reason);
  return ended;
}
