import { RobotMode, type Robot } from '@uvd/contracts';

/**
 * What the console needs of a robot to tell whether it is there. `signal` is nullable: the server has no signal
 * for a robot that is not online (never heard from, not since the server started, or disconnected).
 */
export type RobotPresenceFields = Pick<Robot, 'mode' | 'battery' | 'signal'>;

/**
 * Offline for the operator: mode 0 (behaviour §3 Offline), which is also what the server reports for a robot that has
 * not spoken since it started. The table, map and job editor say so; its controls stay disabled (behaviour §4 allows
 * them in Autonomous mode only).
 */
export const robotOffline = (robot: RobotPresenceFields): boolean => robot.mode === RobotMode.offline;

/** Offline and silent (no signal to measure): the console has nothing live of it, only what it last reported. */
export const robotNotReporting = (robot: RobotPresenceFields): boolean => robotOffline(robot) && robot.signal === null;

/**
 * Never heard from: not reporting and no battery ever reported (every VDA 5050 state carries one). Its status is
 * the server's placeholder, not a report, so the console shows none.
 */
export const robotNeverReported = (robot: RobotPresenceFields): boolean => robotNotReporting(robot) && robot.battery === null;
