/**
 * Brute-force detection, Keycloak's model ("wait increment", "max wait", "failure reset time") but switched on
 * by default: from the `failureFactor`-th consecutive failure on, each failure refuses the user's
 * logins for a wait that doubles from `waitIncrementSeconds` up to `maxWaitSeconds` (60 s, 2, 4, 8 min, then
 * 15 min per failure with the defaults). A success resets the count; so does a quiet period of 12 hours.
 * Attempts made while refused are not counted, so an attacker cannot stretch a victim's lock indefinitely by
 * hammering it, and they answer exactly like a wrong password.
 */
import type { Config } from '../config.ts';

export type BruteForcePolicy = Config['bruteForce'];

/** Keycloak's default "failure reset time". */
export const FAILURE_RESET_MS = 12 * 3600 * 1000;

export const isLocked = (lockedUntil: Date | null, now: Date): boolean =>
  lockedUntil !== null && lockedUntil.getTime() > now.getTime();

/** Until when logins are refused after the `failures`-th consecutive failure, or undefined if not at all. */
export function lockAfter(failures: number, policy: BruteForcePolicy, now: Date): Date | undefined {
  if (failures < policy.failureFactor) return undefined;
  const doublings = Math.min(failures - policy.failureFactor, 30);
  const waitSeconds = Math.min(policy.maxWaitSeconds, policy.waitIncrementSeconds * 2 ** doublings);
  if (waitSeconds <= 0) return undefined;
  return new Date(now.getTime() + waitSeconds * 1000);
}
