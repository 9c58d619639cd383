import { CommandRefusal } from '@uvd/contracts';
import type { ParseKeys } from 'i18next';
import { isApiRequestError } from './api-error.ts';

/** Refusals of a robot or job command that tell the user why nothing was sent (409, CommandRefusal codes). */
const REFUSAL_KEYS: Partial<Record<string, ParseKeys>> = {
  [CommandRefusal.robotIdle]: 'robotControls.refusals.robot_idle',
  [CommandRefusal.nothingToStop]: 'robotControls.refusals.nothing_to_stop',
  [CommandRefusal.robotAtHome]: 'robotControls.refusals.robot_at_home',
  [CommandRefusal.robotOffline]: 'robotControls.refusals.robot_offline',
  [CommandRefusal.robotNotAutonomous]: 'robotControls.refusals.robot_not_autonomous',
  [CommandRefusal.robotBusy]: 'robotControls.refusals.robot_busy',
  [CommandRefusal.robotBatteryLow]: 'robotControls.refusals.robot_battery_low',
  [CommandRefusal.robotError]: 'robotControls.refusals.robot_error',
  [CommandRefusal.jobState]: 'robotControls.refusals.job_state',
  [CommandRefusal.jobFinished]: 'robotControls.refusals.job_finished',
};

/** The translation key of a command's refusal the user should read, or undefined (then the command's failure toast). */
export const refusalKey = (error: unknown): ParseKeys | undefined =>
  isApiRequestError(error) && error.code !== null ? REFUSAL_KEYS[error.code] : undefined;
