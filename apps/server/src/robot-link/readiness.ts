/**
 * A room's readiness reaches the robots whose Running job visits it, in the transaction that changes it
 * (`PATCH /rooms/room/ready`), so the robot never learns it later than the console shows it:
 *
 * - an order update (the job's next `orderUpdateId`, stitched at the node the robot reached last, order.ts
 *   `buildOrderUpdate`) carries every room's readiness now; a room set ready again is entered without asking,
 *   unless the robot already waits at its prompt (the operator's answer decides then);
 * - a room set not ready that the robot has not finished also gets the instant action `uvd_room_not_ready`:
 *   a lamp on there goes off at once and the robot asks `wait_to_enter`, keeping the dose still to give. It is
 *   sent whatever this process last heard of the robot: a robot on its way may have reached the room and
 *   switched its lamp on since (or its states reach another server process), and only the robot knows;
 * - a job event per job room (who, when) for the log.
 *
 * Both commands are recorded in the outbox with the job and robot rows locked, and sent after commit.
 */
import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { UvdActionType, type VdaAction } from '@uvd/contracts';
import type { AppContext } from '../context.ts';
import type { Tx } from '../db/client.ts';
import { jobs } from '../db/schema.ts';
import { buildOrderUpdate, disinfectActionId } from './order.ts';
import { recordCommand } from './outbox.ts';
import { isFinal } from './job-reducer.ts';
import * as repository from './repository.ts';

export interface ReadinessChange {
  orgId: string;
  /** The user who changed it (username). */
  actor: string;
  at: Date;
  /** Rooms whose readiness changed, with the new value. */
  rooms: readonly { roomId: string; ready: boolean }[];
}

/** The instant action that turns the lamp off in a room set not ready and makes the robot ask before going on. */
export const roomNotReadyAction = (jobId: string, orderNo: number, roomId: string): VdaAction => ({
  actionType: UvdActionType.roomNotReady,
  // New for every change and kept on every resend, as every instant action's id (commands.ts).
  actionId: `room-not-ready-${jobId}-${orderNo}-${randomUUID()}`,
  // HARD: nothing else runs on the robot until the lamp is off.
  blockingType: 'HARD',
  actionParameters: [
    { key: 'room_id', value: roomId },
    { key: 'action_id', value: disinfectActionId(jobId, orderNo) },
  ],
});

/**
 * Tells the Running jobs visiting the changed rooms (see the file comment), in `tx`. Returns whether a command
 * was recorded (the caller wakes the outbox after commit).
 */
export async function sendReadinessToRunningJobs(ctx: Pick<AppContext, 'fleet'>, tx: Tx, change: ReadinessChange): Promise<boolean> {
  const readyOf = new Map(change.rooms.map((room) => [room.roomId, room.ready]));
  let recorded = false;
  for (const jobId of await repository.runningJobsVisiting(tx, change.orgId, [...readyOf.keys()])) {
    const job = await repository.lockJob(tx, change.orgId, jobId);
    if (job?.status !== 'Running') continue;
    // Locked before its commands are numbered (outbox.ts recordCommand), after the job as everywhere else.
    await repository.lockRobot(tx, job.orgId, job.robotId);
    const changed = (await repository.jobRoomStates(tx, job.id)).filter((room) => readyOf.has(room.roomId));
    for (const room of changed) {
      await repository.recordJobEvent(tx, {
        orgId: job.orgId,
        jobId: job.id,
        at: change.at,
        kind: readyOf.get(room.roomId) ? 'room_ready' : 'room_not_ready',
        actor: change.actor,
        orderNo: room.orderNo,
        roomId: room.roomId,
        // By the robot's last report (written at most DOSE_WRITE_MS apart while its lamp is on).
        dose: room.doseReceived,
      });
    }
    const open = changed.filter((room) => !isFinal(room.state));
    if (open.length === 0) continue;
    // The lamp first: the instant action goes out before the order update (the outbox sends in order).
    const notReady = open.filter((room) => readyOf.get(room.roomId) === false);
    if (notReady.length > 0) {
      await recordCommand(tx, {
        orgId: job.orgId,
        robotId: job.robotId,
        jobId: job.id,
        kind: 'room_not_ready',
        body: { actions: notReady.map((room) => roomNotReadyAction(job.id, room.orderNo, room.roomId)) },
      });
    }
    // A Running job's order is recorded at its start and kept while it runs (outbox.ts pruneRobotCommands); a
    // job without one (rows written by hand) gets no update, and its robot still gets the instant action below.
    const previous = await repository.lastOrderOf(tx, job.id);
    if (previous) {
      const orderUpdateId = job.orderUpdateId + 1;
      const ready = new Map((await repository.orderRooms(tx, job.id)).map((room) => [room.roomId, room.ready]));
      const lastNode = ctx.fleet.link(job.robotId)?.lastNode;
      const reached = lastNode?.orderId === job.id ? lastNode : undefined;
      const order = buildOrderUpdate(previous, orderUpdateId, reached, ready);
      await tx.update(jobs).set({ orderUpdateId, updatedAt: change.at }).where(eq(jobs.id, job.id));
      await recordCommand(tx, { orgId: job.orgId, robotId: job.robotId, jobId: job.id, kind: 'order', body: { order } });
    }
    recorded = true;
  }
  return recorded;
}
