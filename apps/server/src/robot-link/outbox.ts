/**
 * The outbox of robot commands: every order and instant action is recorded (`robot_commands`) in the
 * transaction that decides it, and sent after that transaction commits, so the robot never acts on something
 * the database does not hold, and a command committed just before a crash still goes out after the restart.
 *
 * - Recording (the robot row locked by the deciding transaction) numbers the command after the robot's last
 *   one (`seq`), and NOTIFYs the dispatchers of the other server processes (delivered at commit).
 * - A dispatcher (one per process, woken by the NOTIFY, by `wake()` after a commit in this process, and by a
 *   poll) sends a robot's open commands in `seq` order while holding the robot's dispatch lock (a transaction
 *   advisory lock: one process at a time per robot), and resends them every `commandResendMs` until the
 *   robot's state acknowledges them. A resend carries the same orderId/orderUpdateId or actionId, which a
 *   VDA 5050 robot ignores when it has the command already.
 * - Acknowledged: an order when a state reports its orderId with an orderUpdateId at least the sent one; an
 *   instant action when a state lists its actionId among actionStates (any status); either when a state's
 *   error references it (a robot that rejects it got it).
 * - Never reordered: when a later command of the robot is acknowledged first, the earlier unacknowledged ones
 *   are given up as `superseded` instead of resent.
 * - Given up `commandGiveUpMs` after it was decided as `unacknowledged`. Every command given up publishes
 *   `command_undelivered` on the robots stream in the transaction that gives it up.
 * - But a stop (kind `stop`: a job's or a robot's cancelOrder), like a room's `uvd_room_not_ready`, is never given
 *   up nor superseded: its lamp may be on. It is resent until the robot acknowledges it, at once when the robot is heard again after a silence, and
 *   `commandStopAlertMs` after it was decided it raises `stop_unconfirmed` (once; `stop_confirmed` follows the
 *   acknowledgement), which the notifications service pushes.
 * - A job's command that is acknowledged or given up republishes the job (its `pending_command` changed).
 * - Every publish, acknowledgement (with its round trip from the last publish) and give-up is counted in the
 *   metrics (metrics/metrics.ts), an acknowledgement or give-up once its transaction committed.
 */
import { wakeable } from '../lib/wakeable.ts';
import { randomUUID } from 'node:crypto';
import { and, asc, eq, inArray, isNull, lt, lte, max, notInArray, sql } from 'drizzle-orm';
import { z } from 'zod';
import {
  COMMAND_UNDELIVERED_EVENT,
  OrderMessage,
  STOP_CONFIRMED_EVENT,
  STOP_UNCONFIRMED_EVENT,
  UndeliveredCommandKind,
  VdaAction,
  type CommandUndelivered,
  type StateMessage,
  type StopAlert,
} from '@uvd/contracts';
import type { AppContext } from '../context.ts';
import type { Db, Executor, Tx } from '../db/client.ts';
import { deliveries, jobs, robotCommands } from '../db/schema.ts';
import { publishDeliveryChange } from '../deliveries/lifecycle.ts';
import type { CommandMetrics } from '../metrics/metrics.ts';
import type { FleetLogger } from './fleet.ts';
import { publishJobChange } from './lifecycle.ts';
import { PerRobotQueue } from './per-robot-queue.ts';

/**
 * Dispatchers LISTEN here: a NOTIFY at commit (payload: the recording process and the robot) wakes the other
 * processes' dispatchers at once; the recording process wakes its own (`wake()` after the commit).
 */
export const ROBOT_COMMAND_CHANNEL = 'uvd_robot_commands';
const THIS_PROCESS = randomUUID();

/** Commands that may fall due without a NOTIFY (resends, another process's crash) are looked for this often. */
const POLL_MS = 1000;
/** Robots dispatched per round; more wait for the next round. */
const BATCH = 50;
/** A publish that does not finish in this time counts as failed; the command is resent later. */
const SEND_TIMEOUT_MS = 5000;
/** Acknowledged and undelivered commands are kept this long (what a robot was told, for a day), pruned this often. */
export const FINISHED_COMMAND_RETENTION_MS = 24 * 3600_000;
const PRUNE_MS = 10 * 60_000;

export const OrderBody = OrderMessage.omit({ headerId: true, timestamp: true, version: true, manufacturer: true, serialNumber: true });
export type OrderBody = z.infer<typeof OrderBody>;

/** The VDA 5050 message of a command, without its header (the gateway adds it on every send). */
export const CommandBody = z.union([z.object({ order: OrderBody }), z.object({ actions: z.array(VdaAction).min(1) })]);
export type CommandBody = z.infer<typeof CommandBody>;

export type CommandRow = typeof robotCommands.$inferSelect;
export type CommandState = 'pending' | 'sent' | 'acknowledged' | 'undelivered';
const OPEN: CommandState[] = ['pending', 'sent'];
const isStop = (row: Pick<CommandRow, 'kind'>) => row.kind === 'stop';
/**
 * Commands that turn a lamp off (a stop; a room set not ready, readiness.ts) are never given up nor superseded:
 * the lamp may be on until the robot takes one, whatever it took since.
 */
const LAMP_OFF_KINDS = ['stop', 'room_not_ready'];
const turnsLampOff = (row: Pick<CommandRow, 'kind'>) => LAMP_OFF_KINDS.includes(row.kind);

export interface NewCommand {
  orgId: string;
  robotId: string;
  jobId: string | null;
  /** The delivery a delivery robot's command is for. */
  deliveryId?: string | null;
  kind: UndeliveredCommandKind;
  body: CommandBody;
}

/**
 * Records a command in `tx` (the transaction that decides it); it is sent once `tx` commits. The caller has
 * locked the robot row in `tx` (repository.lockRobot, or the robot command's select): the robot's commands are
 * numbered in the order their transactions decide them.
 */
export async function recordCommand(tx: Tx, command: NewCommand): Promise<CommandRow> {
  const [last] = await tx
    .select({ seq: max(robotCommands.seq) })
    .from(robotCommands)
    .where(eq(robotCommands.robotId, command.robotId));
  const [row] = await tx
    .insert(robotCommands)
    .values({ ...command, seq: (last?.seq ?? 0) + 1 })
    .returning();
  if (!row) throw new Error('robot command not recorded');
  await tx.execute(sql`SELECT pg_notify(${ROBOT_COMMAND_CHANNEL}, ${`${THIS_PROCESS} ${command.robotId}`})`);
  return row;
}

const referencedBy = (state: StateMessage, key: string, value: string): boolean =>
  state.errors.some((error) => error.errorReferences?.some((ref) => ref.referenceKey === key && ref.referenceValue === value) ?? false);

/** Whether `state` shows that the robot got the command (see the file comment). */
export function acknowledges(body: CommandBody, state: StateMessage): boolean {
  if ('order' in body) {
    const { orderId, orderUpdateId } = body.order;
    return (state.orderId === orderId && state.orderUpdateId >= orderUpdateId) || referencedBy(state, 'orderId', orderId);
  }
  const reported = new Set(state.actionStates.map((action) => action.actionId));
  return body.actions.every((action) => reported.has(action.actionId) || referencedBy(state, 'actionId', action.actionId));
}

type GiveUpReason = CommandUndelivered['reason'];

/** Marks open commands undelivered and publishes `command_undelivered` for each, in `tx`; returns those it gave up. */
async function giveUp(ctx: Pick<AppContext, 'bus'>, tx: Tx, rows: readonly CommandRow[], reason: GiveUpReason, at: Date): Promise<CommandRow[]> {
  if (rows.length === 0) return [];
  const given = await tx
    .update(robotCommands)
    .set({ state: 'undelivered', givenUpAt: at, givenUpReason: reason })
    .where(and(inArray(robotCommands.id, rows.map((row) => row.id)), inArray(robotCommands.state, OPEN)))
    .returning();
  for (const row of given) {
    const payload: CommandUndelivered = {
      command_id: row.id,
      robot_id: row.robotId,
      job_id: row.jobId,
      command: UndeliveredCommandKind.catch('order').parse(row.kind),
      issued_at: row.createdAt.toISOString(),
      given_up_at: at.toISOString(),
      reason,
    };
    await ctx.bus.publish({ orgId: row.orgId, stream: 'robots', key: row.robotId, type: COMMAND_UNDELIVERED_EVENT, payload }, tx);
  }
  await republishJobs(ctx, tx, given);
  await republishDeliveries(ctx, tx, given);
  return given;
}

/** Counts, once their transaction committed, the commands it acknowledged and gave up. */
function countOutcome(metrics: CommandMetrics, outcome: { acknowledged: readonly CommandRow[]; givenUp: readonly CommandRow[]; at: Date }): void {
  for (const row of outcome.acknowledged) metrics.acknowledged(row, outcome.at);
  for (const row of outcome.givenUp) metrics.givenUp(row.kind, row.givenUpReason ?? 'unacknowledged');
}

/** job_change for each job of `rows` (its pending command changed), once per job. */
async function republishJobs(ctx: Pick<AppContext, 'bus'>, tx: Tx, rows: readonly CommandRow[]): Promise<void> {
  const seen = new Set<string>();
  for (const row of rows) {
    if (row.jobId === null || seen.has(row.jobId)) continue;
    seen.add(row.jobId);
    await publishJobChange(ctx, tx, { id: row.jobId, orgId: row.orgId });
  }
}

/** delivery_change for each delivery of `rows` (its pending command changed), once per delivery. */
async function republishDeliveries(ctx: Pick<AppContext, 'bus'>, tx: Tx, rows: readonly CommandRow[]): Promise<void> {
  const ids = [...new Set(rows.flatMap((row) => (row.deliveryId === null ? [] : [row.deliveryId])))];
  if (ids.length === 0) return;
  for (const delivery of await tx.select().from(deliveries).where(inArray(deliveries.id, ids))) await publishDeliveryChange(ctx, tx, delivery);
}

/** Publishes a stop alert on the robots stream, and on the jobs stream for a job's stop, in `tx`. */
async function publishStopAlert(ctx: Pick<AppContext, 'bus'>, tx: Tx, row: CommandRow, type: string, at: Date): Promise<void> {
  const payload: StopAlert = {
    command_id: row.id,
    robot_id: row.robotId,
    job_id: row.jobId,
    issued_at: row.createdAt.toISOString(),
    at: at.toISOString(),
  };
  await ctx.bus.publish({ orgId: row.orgId, stream: 'robots', key: row.robotId, type, payload }, tx);
  if (row.jobId !== null) await ctx.bus.publish({ orgId: row.orgId, stream: 'jobs', key: row.jobId, type, payload }, tx);
}

/** Raises `stop_unconfirmed` once for each stop still open `alertMs` after it was decided. */
async function alertUnconfirmedStops(ctx: Pick<AppContext, 'bus'>, tx: Tx, alertMs: number, now: Date): Promise<void> {
  const late = await tx
    .update(robotCommands)
    .set({ stopAlertedAt: now })
    .where(
      and(
        eq(robotCommands.kind, 'stop'),
        inArray(robotCommands.state, OPEN),
        isNull(robotCommands.stopAlertedAt),
        lte(robotCommands.createdAt, new Date(now.getTime() - alertMs)),
      ),
    )
    .returning();
  for (const row of late) await publishStopAlert(ctx, tx, row, STOP_UNCONFIRMED_EVENT, now);
}

/** The robot's open commands, oldest first, locked. */
const openCommands = (executor: Executor, robotId: string) =>
  executor
    .select()
    .from(robotCommands)
    .where(and(eq(robotCommands.robotId, robotId), inArray(robotCommands.state, OPEN)))
    .orderBy(asc(robotCommands.seq))
    .for('update');

/**
 * Applies a state of the robot to its open commands: the acknowledged ones are done, and the earlier ones
 * not acknowledged are superseded. Returns how many open commands the robot still has.
 */
export async function acknowledgeState(ctx: Pick<AppContext, 'db' | 'bus' | 'metrics'>, robotId: string, state: StateMessage): Promise<number> {
  const outcome = await ctx.db.transaction(async (tx) => {
    const open = await openCommands(tx, robotId);
    const acked = open.filter((row) => {
      const body = CommandBody.safeParse(row.body);
      return body.success && acknowledges(body.data, state);
    });
    const last = acked.at(-1);
    if (!last) return { stillOpen: open.length, acknowledged: [], givenUp: [], at: new Date() };
    const now = new Date();
    await tx
      .update(robotCommands)
      .set({ state: 'acknowledged', acknowledgedAt: now })
      .where(inArray(robotCommands.id, acked.map((row) => row.id)));
    const ackedIds = new Set(acked.map((row) => row.id));
    const superseded = open.filter((row) => row.seq < last.seq && !ackedIds.has(row.id) && !turnsLampOff(row));
    for (const row of acked) if (isStop(row) && row.stopAlertedAt !== null) await publishStopAlert(ctx, tx, row, STOP_CONFIRMED_EVENT, now);
    await republishJobs(ctx, tx, acked);
    await republishDeliveries(ctx, tx, acked);
    const given = await giveUp(ctx, tx, superseded, 'superseded', now);
    return { stillOpen: open.length - acked.length - superseded.length, acknowledged: acked, givenUp: given, at: now };
  });
  countOutcome(ctx.metrics.commands, outcome);
  return outcome.stillOpen;
}

/**
 * Deletes acknowledged and undelivered commands decided before `before`; returns how many. Open ones stay, and
 * so do the orders of Running jobs: an update of a job's order is stitched onto the last one (readiness.ts).
 */
export async function pruneRobotCommands(executor: Executor, before: Date): Promise<number> {
  const deleted = await executor
    .delete(robotCommands)
    .where(
      and(
        lt(robotCommands.createdAt, before),
        inArray(robotCommands.state, ['acknowledged', 'undelivered']),
        sql`NOT (${robotCommands.kind} = 'order' AND ${robotCommands.jobId} IN (SELECT ${jobs.id} FROM ${jobs} WHERE ${jobs.status} = 'Running'))`,
      ),
    )
    .returning({ id: robotCommands.id });
  return deleted.length;
}

const withTimeout = async (send: Promise<void>, ms: number): Promise<void> => {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      reject(new Error(`send did not finish within ${ms} ms`));
    }, ms);
  });
  try {
    await Promise.race([send, timeout]);
  } finally {
    clearTimeout(timer);
  }
};

const Locked = z.object({ locked: z.literal(true) });
const rowsOf = (result: unknown): unknown[] =>
  typeof result === 'object' && result !== null && 'rows' in result && Array.isArray(result.rows) ? result.rows : [];

type OutboxContext = Pick<AppContext, 'config' | 'database' | 'bus' | 'fleet' | 'metrics'>;

/**
 * One dispatch round over due commands: gives up the expired ones, sends the due ones of robots online now
 * (a robot offline gets them when it is back: `offline` collects the robots left waiting). Returns how many
 * were sent. `giveUpToo`: also give up the expired ones (at the polls).
 */
async function dispatchDue(
  ctx: OutboxContext,
  db: Db,
  logger: FleetLogger,
  offline: Set<string>,
  heardAgain: Set<string>,
  giveUpToo: boolean,
): Promise<number> {
  const now = new Date();
  const { commandGiveUpMs, commandResendMs, commandStopAlertMs } = ctx.config;
  // Expiry is looked for at the polls only: a wake after a commit is about the new command.
  if (giveUpToo) {
    const givenUp = await db.transaction(async (tx) => {
      const expired = await tx
        .select()
        .from(robotCommands)
        .where(
          and(
            inArray(robotCommands.state, OPEN),
            notInArray(robotCommands.kind, LAMP_OFF_KINDS),
            lte(robotCommands.createdAt, new Date(now.getTime() - commandGiveUpMs)),
          ),
        )
        .orderBy(asc(robotCommands.seq))
        .limit(BATCH)
        .for('update', { skipLocked: true });
      const given = await giveUp(ctx, tx, expired, 'unacknowledged', now);
      await alertUnconfirmedStops(ctx, tx, commandStopAlertMs, now);
      return given;
    });
    countOutcome(ctx.metrics.commands, { acknowledged: [], givenUp, at: now });
  }

  const due = await db
    .selectDistinct({ robotId: robotCommands.robotId })
    .from(robotCommands)
    .where(and(inArray(robotCommands.state, OPEN), lte(robotCommands.nextAttemptAt, now)))
    .limit(BATCH);
  // A robot heard again after a silence gets its open commands at once: what was sent meanwhile may be lost.
  const urgent = new Set([...heardAgain].filter((robotId) => ctx.fleet.isOnline(robotId)));
  for (const robotId of urgent) heardAgain.delete(robotId);
  let sent = 0;
  for (const robotId of new Set([...due.map((row) => row.robotId), ...urgent])) {
    if (!ctx.fleet.isOnline(robotId)) {
      offline.add(robotId);
      continue;
    }
    sent += await db.transaction(async (tx) => {
      // One process at a time sends a robot's commands, and holds the lock until they are out: two processes
      // never interleave one robot's commands.
      const lock = await tx.execute(sql`SELECT pg_try_advisory_xact_lock(hashtextextended(${`robot_commands ${robotId}`}, 0)) AS locked`);
      if (!Locked.safeParse(rowsOf(lock)[0]).success) return 0;
      const open = await openCommands(tx, robotId);
      const at = new Date();
      const lastDue = urgent.has(robotId) ? open.at(-1) : open.findLast((row) => row.nextAttemptAt <= at);
      if (!lastDue) return 0;
      // Every open command up to the last due one, in order: a resend of an earlier one never follows a later one.
      let count = 0;
      for (const row of open.filter((candidate) => candidate.seq <= lastDue.seq)) {
        const body = CommandBody.safeParse(row.body);
        const sentAt = new Date();
        try {
          if (!body.success) throw new Error(`robot command ${row.id} has no valid body`);
          await withTimeout(
            'order' in body.data ? ctx.fleet.sendOrder(robotId, body.data.order) : ctx.fleet.sendInstantActions(robotId, body.data.actions),
            SEND_TIMEOUT_MS,
          );
        } catch (error) {
          logger.warn({ command: row.id, robot: robotId, err: error }, 'robot command not sent; it is tried again');
          await tx
            .update(robotCommands)
            .set({ nextAttemptAt: new Date(sentAt.getTime() + commandResendMs) })
            .where(eq(robotCommands.id, row.id));
          // The later ones wait for it: they must not overtake it.
          break;
        }
        await tx
          .update(robotCommands)
          .set({ state: 'sent', attempts: row.attempts + 1, sentAt, nextAttemptAt: new Date(sentAt.getTime() + commandResendMs) })
          .where(eq(robotCommands.id, row.id));
        // Counted as published: the robot may act on it even if this transaction fails to record the send.
        ctx.metrics.commands.sent(row.kind, row.attempts > 0);
        count += 1;
      }
      return count;
    });
  }
  return sent;
}

export interface CommandOutbox {
  /** Sends what is due now (call after a transaction that recorded a command commits). */
  wake(): void;
  /** Resolves when the current round is over (tests). */
  idle(): Promise<void>;
  close(): Promise<void>;
}

/** The dispatcher of this process, and the acknowledgements from the robots' states. */
export async function startCommandOutbox(ctx: OutboxContext, logger: FleetLogger & { error(data: Record<string, unknown>, message: string): void }): Promise<CommandOutbox> {
  const db = ctx.database.db;
  /** Set by the poll: that round also gives up expired commands and rereads the robots with open ones. */
  const pending = { poll: false };
  /** Robots with open commands as of the last round or recorded since: the only ones whose states are checked. */
  const robotsWithOpen = new Set<string>();
  /** Robots whose due commands wait for them to be online: their next state wakes the dispatcher. */
  const offline = new Set<string>();
  /** When each robot's last state reached this process, and the robots heard again after a silence since. */
  const lastStateAt = new Map<string, number>();
  const heardAgain = new Set<string>();

  const refreshOpen = async () => {
    const rows = await db.selectDistinct({ robotId: robotCommands.robotId }).from(robotCommands).where(inArray(robotCommands.state, OPEN));
    robotsWithOpen.clear();
    for (const row of rows) robotsWithOpen.add(row.robotId);
  };

  const dispatcher = wakeable(
    async (self) => {
      do {
        const poll = pending.poll;
        pending.poll = false;
        await dispatchDue(ctx, db, logger, offline, heardAgain, poll);
        // Between polls the set follows the recordings (NOTIFY) and the acknowledgements.
        if (poll) await refreshOpen();
      } while (self.again() && !self.closed);
    },
    (error) => {
      logger.error({ err: error }, 'robot command dispatch failed; it tries again at its next poll');
    },
  );
  const wake = dispatcher.wake;

  const unlisten = await ctx.database.notifier.listen(ROBOT_COMMAND_CHANNEL, (payload) => {
    const [origin, robotId] = payload.split(' ');
    if (robotId) robotsWithOpen.add(robotId);
    if (origin !== THIS_PROCESS) wake();
  });
  /**
   * What each robot's last state (seen by this process) said it had taken. A state that says something new is
   * checked against the database even when the robot seems to have no open command here: the NOTIFY of a command
   * another process recorded may arrive after the robot's acknowledgement of it, or the robot may have left
   * `robotsWithOpen` just as a new command was recorded; its acknowledgement must not be missed (a resend).
   */
  const taken = new Map<string, string>();
  const changedTaken = (robotId: string, state: StateMessage): boolean => {
    const signature = [
      state.orderId,
      state.orderUpdateId,
      ...state.actionStates.map((action) => action.actionId),
      ...state.errors.flatMap((error) => (error.errorReferences ?? []).map((ref) => `${ref.referenceKey}=${ref.referenceValue}`)),
    ].join(' ');
    if (taken.get(robotId) === signature) return false;
    taken.set(robotId, signature);
    return true;
  };
  // The gateway does not wait for listeners: each robot's states are applied one after the other here.
  const queues = new PerRobotQueue<StateMessage>({
    handle: (state, robotId) => acknowledge(robotId, state),
    onError: (error, _state, robotId) => {
      logger.error({ err: error, robot: robotId }, 'robot command acknowledgement failed');
    },
  });
  const acknowledge = async (robotId: string, state: StateMessage) => {
    if (dispatcher.closed) return;
    try {
      const stillOpen = await acknowledgeState({ db, bus: ctx.bus, metrics: ctx.metrics }, robotId, state);
      // A command recorded meanwhile puts the robot back (its NOTIFY, or the next poll).
      if (stillOpen === 0) robotsWithOpen.delete(robotId);
    } catch (error) {
      logger.error({ err: error, robot: robotId }, 'robot command acknowledgement failed');
    }
  };
  const unsubscribe = ctx.fleet.onState((robot, state) => {
    if (offline.delete(robot.robotId)) wake();
    const now = Date.now();
    const previous = lastStateAt.get(robot.robotId);
    lastStateAt.set(robot.robotId, now);
    // A robot silent for a while may have missed what was sent meanwhile (a half-open link loses it without
    // a close): its open commands, a stop above all, go out again at once rather than at their next resend.
    // A robot whose state comes after `COMMAND_HEARD_AGAIN_MS` (2 s) of silence is heard again. Robots report about once a
    // second (VDA 5050 practice, and every gateway ping asks for a state), so this is two lost states; a robot that
    // reports more rarely only gets a harmless extra resend.
    if (previous !== undefined && now - previous > ctx.config.commandHeardAgainMs && robotsWithOpen.has(robot.robotId)) {
      heardAgain.add(robot.robotId);
      wake();
    }
    const changed = changedTaken(robot.robotId, state);
    if (dispatcher.closed || !(changed || robotsWithOpen.has(robot.robotId))) return;
    void queues.push(robot.robotId, state);
  });
  const timer = setInterval(() => {
    pending.poll = true;
    wake();
  }, POLL_MS);
  timer.unref();
  const pruner = setInterval(() => {
    pruneRobotCommands(db, new Date(Date.now() - FINISHED_COMMAND_RETENTION_MS)).catch((error: unknown) => {
      logger.error({ err: error }, 'pruning robot commands failed');
    });
  }, PRUNE_MS);
  pruner.unref();
  pending.poll = true;
  wake();

  return {
    wake,
    idle: dispatcher.idle,
    async close() {
      clearInterval(timer);
      clearInterval(pruner);
      unsubscribe();
      await dispatcher.close();
      await unlisten();
      await queues.settled();
    },
  };
}
