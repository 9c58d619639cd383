import { CommandRefusal, ErrorCode } from '@uvd/contracts';
import type { ParseKeys, TFunction } from 'i18next';
import { isApiRequestError } from './api-error.ts';

/**
 * The server's refusals and the transport's failures the user can act on, by the reply's code: each says why
 * nothing happened and what to do next, in the user's language. Anything else falls back to the caller's message
 * (the messages of behaviour §8).
 */
const CODE_KEYS: Partial<Record<string, ParseKeys>> = {
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
  [ErrorCode.jobRunning]: 'jobControls.errorJobRunning',
  [ErrorCode.duplicateRoom]: 'jobEditor.duplicateRoom',
  [ErrorCode.cannotDeleteSelf]: 'adminView.cannotDeleteSelf',
  [ErrorCode.cannotSetOwnPassword]: 'setPassword.ownRefused',
  [ErrorCode.forbidden]: 'errors.forbidden',
  [ErrorCode.notFound]: 'errors.notFound',
  [ErrorCode.rateLimited]: 'errors.rateLimited',
  [ErrorCode.overloaded]: 'errors.overloaded',
};

/** A call that got no reply says so: the user checks the network rather than the robot. */
const TRANSPORT_KEYS: Partial<Record<string, ParseKeys>> = {
  network: 'errors.network',
  timeout: 'errors.timeout',
};

/**
 * A prompt's answer: a 409 (job_state) or 404 means it was answered elsewhere (another tab, the banner, the robot)
 * or the robot no longer asks, not that the job is in a wrong state.
 */
export const PROMPT_ANSWER_KEYS: Partial<Record<string, ParseKeys>> = {
  [CommandRefusal.jobState]: 'push.alreadyAnswered',
  [CommandRefusal.jobFinished]: 'push.alreadyAnswered',
  [ErrorCode.notFound]: 'push.alreadyAnswered',
};

/** The translation key of an error the user should read, or undefined when it names nothing the console knows. */
export const errorKey = (error: unknown, overrides: Partial<Record<string, ParseKeys>> = {}): ParseKeys | undefined => {
  if (!isApiRequestError(error)) return undefined;
  if (error.code !== null) return overrides[error.code] ?? CODE_KEYS[error.code];
  return TRANSPORT_KEYS[error.kind];
};

/** The one place an API error becomes the text the user reads: its reason and what to do, else `fallback`. */
export const errorMessage = (t: TFunction, error: unknown, fallback: ParseKeys, overrides?: Partial<Record<string, ParseKeys>>): string =>
  t(errorKey(error, overrides) ?? fallback);
