/**
 * Moves a tracked robot to new fields: a robot_update event per visible change at once, on the bus's transient
 * path, and a write of its robots row when a reader would notice (robot-fields.ts `needsWrite`), behind the
 * robot's message chain.
 */
import type { RobotUpdate } from '@uvd/contracts';
import type { Database } from '../../db/client.ts';
import type { EventBus } from '../../live/bus.ts';
import type { FleetLogger } from '../fleet.ts';
import { needsWrite, POSE_WRITE_MS, rowStateChanged, updatesBetween, type RobotFields } from '../robot-fields.ts';
import { createRobotRowWriter } from '../robot-rows.ts';
import type { Tracked } from './robot-cache.ts';

export interface RowWriter {
  /** Publishes one robot_update of the robot (not stored, not replayed). */
  publishUpdate: (tracked: Tracked, update: RobotUpdate) => void;
  /** Moves the robot to `next`; `force` writes the row even when `needsWrite` says no reader would notice. */
  commit: (tracked: Tracked, next: RobotFields, now: number, force?: boolean) => void;
}

export function createRowWriter({ database, bus, log }: { database: Database; bus: EventBus; log: FleetLogger }): RowWriter {
  const publishUpdate = (tracked: Tracked, update: RobotUpdate) => {
    bus.publishTransient({ orgId: tracked.robot.orgId, stream: 'robots', key: tracked.robot.robotId, type: 'robot_update', payload: update });
  };

  const rows = createRobotRowWriter(database);
  const rowValues = (tracked: Tracked, next: RobotFields, pose: RobotFields['pose']) => ({
    ...next,
    battery: next.battery ?? undefined,
    pose,
    lastStateHeaderId: tracked.lastHeaderId ?? null,
    lastSeenAt: tracked.lastHeardAt > 0 ? new Date(tracked.lastHeardAt) : null,
  });
  /**
   * Writes the robot's current fields to its row; one write at a time per robot, the latest fields last. A change
   * of the row's state goes at once, telemetry alone in the next batch (robot-rows.ts).
   */
  const writeRow = (tracked: Tracked): void => {
    if (tracked.writing) {
      tracked.writeAgain = true;
      return;
    }
    const run = async () => {
      for (;;) {
        const now = Date.now();
        const next = tracked.current;
        const poseDue = now - tracked.poseWrittenAt >= POSE_WRITE_MS || next.floorId !== tracked.written.floorId;
        const pose = poseDue ? next.pose : tracked.written.pose;
        const write = rowStateChanged(tracked.written, next) ? rows.writeNow : rows.write;
        try {
          await write(tracked.robot.robotId, rowValues(tracked, next, pose));
          tracked.written = { ...next, pose };
          if (poseDue) tracked.poseWrittenAt = now;
          tracked.seenWrittenAt = now;
        } catch (error) {
          log.warn({ err: error, robotId: tracked.robot.robotId }, 'fleet gateway could not write a robot row');
        }
        // Decided in the same step as the end, so a change after it starts a new write.
        if (!tracked.writeAgain) {
          tracked.writing = undefined;
          return;
        }
        tracked.writeAgain = false;
      }
    };
    tracked.writing = run();
  };

  /**
   * Moves the robot to `next`: events for what changed at once, a row write when it matters. The write is not
   * awaited: the robot's next message does not wait for the database (a busy database, job transactions), and
   * writes of one robot never overlap, the last one carrying its latest fields.
   */
  const commit = (tracked: Tracked, next: RobotFields, now: number, force = false): void => {
    for (const update of updatesBetween(tracked.robot.robotId, tracked.current, next)) publishUpdate(tracked, update);
    tracked.current = next;
    const since = { poseMs: now - tracked.poseWrittenAt, seenMs: now - tracked.seenWrittenAt };
    if (!force && !needsWrite(tracked.written, next, since)) return;
    // A telemetry write of the robot may be waiting for its batch: the state change goes now, with it, and the
    // loop writes the fields once more after it so that `written` is what the row holds.
    if (tracked.writing && rowStateChanged(tracked.written, next)) rows.hurry(tracked.robot.robotId, rowValues(tracked, next, next.pose));
    writeRow(tracked);
  };

  return { publishUpdate, commit };
}
