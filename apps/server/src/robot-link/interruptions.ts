/**
 * What interrupted a running job, and when its lamp was on: the job's events (`job_events`: started, paused, resumed,
 * prompt_asked, prompt_answered, room_skipped, stopped, fault) and its lamp-on intervals (`lamp_intervals`, the
 * dose model's input). Everything here is recorded in the transaction that decides it (a person's command, the
 * answer to a prompt, the robot's state under the job's lock), on transitions only, and in a savepoint of that
 * transaction: a record that fails is logged and left out, never a reason for a command, a stop or a state to fail.
 * Which event is recorded where, and with which cause: README.md "Interruptions".
 */
import type { JobEventKind } from '@uvd/contracts';
import type { Tx } from '../db/client.ts';
import { faultsOf, type OrderReport } from './events.ts';
import * as repository from './repository.ts';
import type { ActionRow } from '../actions/repository.ts';
import type { JobRow } from '../jobs/repository.ts';
import type { JobRoomRow } from './repository.ts';
import type { RobotError } from './robot-fields.ts';

/** LoggedJobEvent.cause of a person's pause, resume or stop, and of what the robot did on its own. */
export const OPERATOR_CAUSE = 'operator';
export const ROBOT_CAUSE = 'robot';
/** LoggedJobEvent.cause of a start the scheduler made at the job's planned time. */
export const SCHEDULER_CAUSE = 'scheduler';

/**
 * A robot reports its state at least every few seconds and at every change. A longer silence before the state that
 * shows a lamp off (a lost link: the robot's dead man's switch turned the lamp off when the link went, not when it
 * came back) closes the lamp interval at the last state that showed the lamp on: the log never claims UV-C it cannot
 * vouch for.
 */
export const LAMP_REPORT_GAP_MS = 5_000;

/**
 * Runs `record` in a savepoint of `tx`. What happened is recorded beside the decision, never instead of it: a
 * failing record is rolled back to the savepoint and logged, and the transaction goes on.
 */
export async function recordSafely(tx: Tx, what: string, record: (savepoint: Tx) => Promise<void>): Promise<void> {
  try {
    await tx.transaction(record);
  } catch (error) {
    console.error(`[job events] ${what} was not recorded:`, error);
  }
}

const roomFields = (room: Pick<JobRoomRow, 'orderNo' | 'roomId'> | undefined, dose: number | null) => ({
  orderNo: room?.orderNo ?? null,
  roomId: room?.roomId ?? null,
  dose,
});

/**
 * A person's pause, resume or stop of a Running job (the job's command, or its robot's), at the decision, with the
 * room under way and the dose it had by the robot's last report. `via`: which button, the job's or the robot's.
 */
export async function recordOperatorCommand(
  tx: Tx,
  job: Pick<JobRow, 'id' | 'orgId'>,
  kind: Extract<JobEventKind, 'paused' | 'resumed' | 'stopped'>,
  actor: string,
  details: { via: 'job' | 'robot'; robot_offline?: boolean },
): Promise<void> {
  await recordSafely(tx, `${kind} of job ${job.id}`, (savepoint) =>
    repository.recordJobEventInActiveRoom(savepoint, { orgId: job.orgId, jobId: job.id, at: new Date(), kind, actor, cause: OPERATOR_CAUSE, details }),
  );
}

/** A job's start, with the decision: by `actor` (a person's start now), or by the scheduler at its time (null). */
export async function recordStart(tx: Tx, job: Pick<JobRow, 'id' | 'orgId'>, actor: string | null, at: Date): Promise<void> {
  await recordSafely(tx, `start of job ${job.id}`, (savepoint) =>
    repository.recordJobEvent(savepoint, {
      orgId: job.orgId,
      jobId: job.id,
      at,
      kind: 'started',
      actor,
      orderNo: null,
      roomId: null,
      dose: null,
      cause: actor === null ? SCHEDULER_CAUSE : OPERATOR_CAUSE,
    }),
  );
}

/** A prompt the robot asks, first recorded (`action` was just inserted); `at`: the robot's time of the state. */
export async function recordPromptAsked(tx: Tx, action: ActionRow, room: JobRoomRow | undefined, dose: number | null, at: Date): Promise<void> {
  await recordSafely(tx, `prompt ${action.id}`, (savepoint) =>
    repository.recordJobEvent(savepoint, {
      orgId: action.orgId,
      jobId: action.jobId,
      at,
      kind: 'prompt_asked',
      actor: null,
      ...roomFields(room, dose),
      cause: action.buttonText,
      details: { action_id: action.id, prompt_id: action.promptId },
    }),
  );
}

/** A person's answer to a prompt, at the decision: `confirm` or `skip`, and where it was given (`source`). */
export async function recordPromptAnswered(
  tx: Tx,
  action: ActionRow,
  decision: { confirm: boolean; by: string; source: string; at: Date },
): Promise<void> {
  await recordSafely(tx, `answer to prompt ${action.id}`, async (savepoint) => {
    const room = action.roomId === null ? undefined : await repository.jobRoomOf(savepoint, action.jobId, action.roomId);
    await repository.recordJobEvent(savepoint, {
      orgId: action.orgId,
      jobId: action.jobId,
      at: decision.at,
      kind: 'prompt_answered',
      actor: decision.by,
      ...roomFields(room, room?.doseReceived ?? null),
      cause: decision.confirm ? 'confirm' : 'skip',
      details: { action_id: action.id, button: action.buttonText, source: decision.source },
    });
  });
}

/** What one state of the robot says, as the job runner hands it over with the job locked. */
export interface ReportedState {
  order: OrderReport;
  /** The robot's time of the state (of the first of the states it stands for, when coalesced), ms. */
  robotTime: number;
  /** Its arrival (this server's clock), ms. */
  receivedAt: number;
  errors: readonly RobotError[];
  /** Per room (order_no): the robot's time of the last state this process saw with its lamp on. */
  lastLit: ReadonlyMap<number, number> | undefined;
}

export interface JobAfterState {
  job: Pick<JobRow, 'id' | 'orgId'>;
  /** The job's rooms after the state, as they are written. */
  rooms: readonly JobRoomRow[];
  /** Rooms the state ended as not_ready, with the robot's time. */
  skipped: readonly { orderNo: number; at: Date }[];
  /** The state ends the job (a pause or resume it shows is no interruption then). */
  ended: boolean;
  /** How long a person's pause or resume may take to reach the robot (the outbox gives it up after that). */
  commandGiveUpMs: number;
  /**
   * What the state may change beside the tables as the job runner last loaded them: only those are read and
   * reconciled (each is a few queries inside the job's lock, which readiness changes and stops wait for).
   */
  check: { lamps: boolean; faults: boolean; pause: boolean };
}

/**
 * Everything a state of the robot says about interruptions and the lamp, recorded in `tx` with the job locked and
 * against the rows as they are (so a state seen twice, late, or by two server processes records once): rooms
 * skipped as not ready, faults that appeared or cleared, a pause or resume the robot made on its own, and lamp
 * intervals opened or closed.
 */
export async function recordStateInterruptions(tx: Tx, after: JobAfterState, reported: ReportedState): Promise<void> {
  const { check } = after;
  if (after.skipped.length === 0 && !check.lamps && !check.faults && !(check.pause && !after.ended)) return;
  await recordSafely(tx, `interruptions of job ${after.job.id}`, async (savepoint) => {
    const { job, rooms } = after;
    const { order, robotTime } = reported;
    const at = new Date(robotTime);
    const doseOf = (room: JobRoomRow) => order.doses.get(room.orderNo)?.dose ?? room.doseReceived;
    const active = rooms.find((room) => room.state === 'active');
    const inRoom = roomFields(active, active ? doseOf(active) : null);
    const base = { orgId: job.orgId, jobId: job.id };

    for (const { orderNo, at: skippedAt } of after.skipped) {
      const room = rooms.find((candidate) => candidate.orderNo === orderNo);
      if (!room) continue;
      const answer = await repository.lastSkip(savepoint, job.id, room.roomId);
      await repository.recordJobEvent(savepoint, {
        ...base,
        at: skippedAt,
        kind: 'room_skipped',
        // The person who answered skip at the room's prompt; null when the robot skipped it as not ready unasked.
        actor: answer?.decidedBy ?? null,
        ...roomFields(room, doseOf(room)),
        cause: 'not_ready',
        details: answer ? { action_id: answer.id, source: answer.decisionSource } : {},
      });
    }

    const reportedFaults = faultsOf(reported.errors);
    const open = check.faults ? await repository.openFaults(savepoint, job.id) : new Map<string, number>(reportedFaults.map((type) => [type, 0]));
    for (const errorType of reportedFaults) {
      if (open.has(errorType)) continue;
      const error = reported.errors.find((candidate) => candidate.errorType === errorType);
      await repository.recordJobEvent(savepoint, {
        ...base,
        at,
        kind: 'fault',
        actor: null,
        ...inRoom,
        cause: errorType,
        details: { level: error?.errorLevel, ...(error?.errorDescription === undefined ? {} : { description: error.errorDescription }) },
      });
    }
    await repository.clearFaults(
      savepoint,
      [...open].filter(([errorType]) => !reportedFaults.includes(errorType)).map(([, id]) => id),
      at,
    );

    if (check.pause && !after.ended) await recordPause(savepoint, after, reported, inRoom, reportedFaults);
    if (check.lamps) await recordLamps(savepoint, job.id, rooms, reported);
  });
}

/**
 * The robot's pause against the job's events: a person's pause or resume is recorded at the decision, and the
 * robot's report of it only marks it taken (`details.reported_at`); a pause or resume the robot reports with no
 * such decision before it (within the time a command is tried) is the robot's own, recorded with cause `robot`.
 * A state older than the last pause report recorded (a late copy) records nothing.
 */
async function recordPause(
  tx: Tx,
  after: JobAfterState,
  reported: ReportedState,
  inRoom: ReturnType<typeof roomFields>,
  faults: readonly string[],
): Promise<void> {
  const { job } = after;
  const paused = reported.order.paused;
  const last = await repository.reportedPause(tx, job.id);
  if ((last?.paused ?? false) === paused || (last && reported.robotTime < last.robotTime)) return;
  const kind = paused ? 'paused' : 'resumed';
  const at = new Date(reported.robotTime);
  const person = await repository.untakenPersonPause(tx, job.id, kind, last?.id ?? 0, new Date(reported.receivedAt - after.commandGiveUpMs));
  if (person !== undefined) {
    await repository.markReported(tx, person, at);
    return;
  }
  await repository.recordJobEvent(tx, {
    orgId: job.orgId,
    jobId: job.id,
    at,
    kind,
    actor: null,
    ...inRoom,
    cause: ROBOT_CAUSE,
    details: faults.length > 0 ? { errors: faults } : {},
  });
}

/**
 * Opens an interval for each room the state shows lit that has none open, closes each open one of a room it does
 * not. A state older than the room's last transition (a late copy) changes nothing: it opens nothing before the
 * last close, and closes nothing before the open.
 */
async function recordLamps(tx: Tx, jobId: string, rooms: readonly JobRoomRow[], reported: ReportedState): Promise<void> {
  const { order, robotTime } = reported;
  const underWay = new Set(rooms.filter((room) => room.state === 'active').map((room) => room.orderNo));
  const latest = await repository.latestLampIntervals(tx, jobId);
  for (const orderNo of order.lit) {
    if (!underWay.has(orderNo)) continue;
    const interval = latest.get(orderNo);
    if (interval && (interval.endedAt === null || interval.endedAt.getTime() > robotTime)) continue;
    await repository.openLampInterval(tx, jobId, orderNo, new Date(robotTime));
  }
  for (const [orderNo, interval] of latest) {
    if (interval.endedAt !== null || (order.lit.has(orderNo) && underWay.has(orderNo))) continue;
    const startedAt = interval.startedAt.getTime();
    if (robotTime < startedAt) continue;
    let end = robotTime;
    // A room that ended says when its lamp went off for good.
    const endedAt = order.doses.get(orderNo)?.endedAt;
    if (endedAt !== undefined) end = Math.min(end, endedAt);
    const lastLit = reported.lastLit?.get(orderNo);
    if (lastLit !== undefined && robotTime - lastLit > LAMP_REPORT_GAP_MS) end = Math.min(end, lastLit);
    await repository.closeLampInterval(tx, interval.id, new Date(Math.max(end, startedAt)));
  }
}
