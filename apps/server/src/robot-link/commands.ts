/**
 * What a robot is told, in one place: the check that a robot may be commanded, and the VDA 5050 instant
 * action of every command (spec §3 robot commands play/resume, pause, stop, home; a job's pause, resume and
 * stop; an operator's decision on a prompt). Orders are built in order.ts. Both are recorded in the outbox
 * (outbox.ts) by the transaction that decides them, and sent after it commits.
 */
import { randomUUID } from 'node:crypto';
import { CommandRefusal, LOW_BATTERY_PERCENT, RobotMode, UvdActionType, VdaInstantAction, type RobotCommand, type VdaAction } from '@uvd/contracts';
import { conflict } from '../lib/http-error.ts';
import type { Fleet } from './fleet.ts';
import { cancelActionPrefix } from './order.ts';

export interface CommandedRobot {
  id: string;
  name: string;
  /** The robot row's mode, used while the gateway has not heard of the robot since start. */
  mode?: number;
}

/**
 * Spec §4: robot controls only when the robot is online and (unless `autonomous` is false: an operator's
 * answer to the robot's own question) in Autonomous mode. Refused with 409 `robot_offline` or
 * `robot_not_autonomous`.
 */
export function checkControllable(fleet: Pick<Fleet, 'isOnline' | 'link'>, robot: CommandedRobot, autonomous = true): void {
  if (!fleet.isOnline(robot.id)) {
    throw conflict(`Robot "${robot.name}" is offline: it cannot take commands.`, CommandRefusal.robotOffline);
  }
  if (!autonomous) return;
  // The gateway's view is current to the last message; the row may lag by a few seconds behind it.
  const mode = fleet.link(robot.id)?.mode ?? robot.mode;
  if (mode !== RobotMode.autonomous) {
    throw conflict(
      `Robot "${robot.name}" is not in Autonomous mode: commands are accepted only in Autonomous mode.`,
      CommandRefusal.robotNotAutonomous,
    );
  }
}

/**
 * Whether the robot can run a job now, from what it reported last (the gateway's view): not with a FATAL error
 * (409 `robot_error`: it cannot run an order), nor below LOW_BATTERY_PERCENT (409 `robot_battery_low`: it would
 * give up the rooms and go home to charge at once). A robot that never reported a battery is not refused here.
 */
export function checkCanRunJob(fleet: Pick<Fleet, 'link'>, robot: CommandedRobot): void {
  const link = fleet.link(robot.id);
  if (!link) return;
  const fatal = link.errors.find((error) => error.errorLevel === 'FATAL');
  if (fatal) {
    throw conflict(`Robot "${robot.name}" reports an error (${fatal.errorType}): it cannot start a job.`, CommandRefusal.robotError);
  }
  if (link.battery !== null && link.battery < LOW_BATTERY_PERCENT) {
    throw conflict(
      `Robot "${robot.name}" is at ${Math.round(link.battery)} % battery, below ${LOW_BATTERY_PERCENT} %: it cannot start a job.`,
      CommandRefusal.robotBatteryLow,
    );
  }
}

/** A command as it is told to the robot: a spec §3 robot command, or one of a job or a prompt. */
export type InstantCommand =
  | { kind: RobotCommand }
  | { kind: 'pause' | 'resume' | 'stop'; jobId: string }
  | { kind: 'decision'; actionId: string; promptId: string; confirm: boolean };

const ACTION_OF: Record<RobotCommand, string> = {
  play: VdaInstantAction.resume,
  resume: VdaInstantAction.resume,
  pause: VdaInstantAction.pause,
  stop: VdaInstantAction.cancel,
  home: UvdActionType.goHome,
};

/**
 * The instant action of a command. Its actionId is new for every command and kept on every resend, so a
 * robot that got it already ignores the copy (VDA 5050: an instant action is identified by its actionId). A
 * job's actions carry the job id, so a state tells which job they were for.
 */
export function instantActionOf(command: InstantCommand): VdaAction {
  if (command.kind === 'decision') {
    return {
      actionType: UvdActionType.operatorDecision,
      actionId: `decision-${command.actionId}-${randomUUID()}`,
      blockingType: 'NONE',
      actionParameters: [
        { key: 'prompt_id', value: command.promptId },
        { key: 'confirm', value: command.confirm },
      ],
    };
  }
  const jobId = 'jobId' in command ? command.jobId : undefined;
  const actionId =
    jobId === undefined
      ? `${command.kind}-${randomUUID()}`
      : command.kind === 'stop'
        ? `${cancelActionPrefix(jobId)}${randomUUID()}`
        : `${command.kind}-${jobId}-${randomUUID()}`;
  // cancelOrder and pause act on the whole robot, which is what an operator's button means.
  return { actionType: ACTION_OF[command.kind], actionId, blockingType: 'HARD' };
}
