/**
 * What a robot is told, in one place: the check that a robot may be commanded, and the VDA 5050 instant
 * action of every command (behaviour §3 robot commands play/resume, pause, stop, home; a job's pause, resume and
 * stop; an operator's decision on a prompt). Orders are built in order.ts. Both are recorded in the outbox
 * (outbox.ts) by the transaction that decides them, and sent after it commits.
 */
import { randomUUID } from 'node:crypto';
import { CommandRefusal, DeliveryRefusal, LOW_BATTERY_PERCENT, RobotMode, UvdActionType, VdaInstantAction, type RobotCommand, type VdaAction } from '@uvd/contracts';
import { conflict } from '../lib/http-error.ts';
import type { Fleet } from './fleet.ts';
import { cancelActionPrefix } from './order.ts';

export interface CommandedRobot {
  id: string;
  name: string;
  /** The robot row's mode, used while the gateway has not heard of the robot since start. */
  mode?: number;
  /** disinfection or delivery; a robot of unknown kind is taken as a disinfection robot. */
  kind?: string;
}

/**
 * Behaviour §4: robot controls only when the robot is online and in Autonomous mode, refused with 409 `robot_offline`
 * or `robot_not_autonomous`. `mode` 'any' (a stop: it only turns the lamp off and cancels; an operator's answer
 * to the robot's own question) needs the robot online only: a robot in Manual or Semi-automatic mode with its
 * lamp on must still be stoppable.
 */
export function checkControllable(fleet: Pick<Fleet, 'isOnline' | 'link'>, robot: CommandedRobot, mode: 'autonomous' | 'any' = 'autonomous'): void {
  if (!fleet.isOnline(robot.id)) {
    throw conflict(`Robot "${robot.name}" is offline: it cannot take commands.`, CommandRefusal.robotOffline);
  }
  if (mode === 'any') return;
  // The gateway's view is current to the last message; the row may lag by a few seconds behind it.
  const current = fleet.link(robot.id)?.mode ?? robot.mode;
  if (current !== RobotMode.autonomous) {
    throw conflict(
      `Robot "${robot.name}" is not in Autonomous mode: only Stop is accepted in other modes.`,
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
  if (robot.kind !== undefined && robot.kind !== 'disinfection') {
    throw conflict(`Robot "${robot.name}" is a ${robot.kind} robot: it does not run disinfection jobs.`, DeliveryRefusal.wrongRobotKind, { kind: robot.kind });
  }
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

/**
 * A robot command must mean something to the robot as its last state tells it: a pause of a robot with no work
 * would only stop its charging, and a stop or home with nothing to do would answer "Command sent" and change
 * nothing. A robot not heard since start is given the command (a stop must never be refused on a guess).
 */
export function checkMeaningful(fleet: Pick<Fleet, 'link'>, robot: CommandedRobot, command: RobotCommand): void {
  const work = fleet.link(robot.id)?.work;
  if (!work) return;
  if (command === 'pause' && !work.order && !work.goingHome) {
    throw conflict(`Robot "${robot.name}" has no work to pause.`, CommandRefusal.robotIdle);
  }
  if (command === 'stop' && !work.order && !work.goingHome && !work.paused) {
    throw conflict(`Robot "${robot.name}" has nothing to stop.`, CommandRefusal.nothingToStop);
  }
  if (command === 'home' && work.charging) {
    throw conflict(`Robot "${robot.name}" is at home already.`, CommandRefusal.robotAtHome);
  }
}

/** A command as it is told to the robot: a behaviour §3 robot command, or one of a job or a prompt. */
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
 * The instant actions of a command. Each actionId is new for every command and kept on every resend, so a robot
 * that got it already ignores the copy (VDA 5050: an instant action is identified by its actionId). A job's
 * actions carry the job id, so a state tells which job they were for. A stop is cancelOrder then stopPause: a
 * paused robot whose order is cancelled would otherwise stay paused, and block the next job.
 */
export function instantActionsOf(command: InstantCommand): VdaAction[] {
  if (command.kind === 'decision') {
    return [
      {
        actionType: UvdActionType.operatorDecision,
        actionId: `decision-${command.actionId}-${randomUUID()}`,
        blockingType: 'NONE',
        actionParameters: [
          { key: 'prompt_id', value: command.promptId },
          { key: 'confirm', value: command.confirm },
        ],
      },
    ];
  }
  const jobId = 'jobId' in command ? command.jobId : undefined;
  const unique = randomUUID();
  const actionId =
    jobId === undefined
      ? `${command.kind}-${unique}`
      : command.kind === 'stop'
        ? `${cancelActionPrefix(jobId)}${unique}`
        : `${command.kind}-${jobId}-${unique}`;
  // cancelOrder and pause act on the whole robot, which is what an operator's button means.
  const action: VdaAction = { actionType: ACTION_OF[command.kind], actionId, blockingType: 'HARD' };
  if (command.kind !== 'stop') return [action];
  const unpauseId = jobId === undefined ? `unpause-${unique}` : `unpause-${jobId}-${unique}`;
  return [action, { actionType: VdaInstantAction.resume, actionId: unpauseId, blockingType: 'HARD' }];
}
