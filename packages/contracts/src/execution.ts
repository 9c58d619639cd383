// Contracts of job execution (behaviour §4, §7): starting a job now and the job commands.
import { z } from 'zod';
import { DataFlag, Id } from './common.ts';
import { defineRoute } from './route.ts';

/** Behaviour §4 commands to jobs. */
export const JobCommand = z.enum(['start', 'resume', 'pause', 'stop']);
export type JobCommand = z.infer<typeof JobCommand>;

/**
 * Error codes of refused commands (409) of every command call (robot and job commands, job start, prompt
 * decisions), beside the behaviour §8 toast keys the client shows for them. Commands accept the `Idempotency-Key`
 * header (IDEMPOTENCY_KEY_HEADER in fleet.ts).
 */
export const CommandRefusal = {
  /** The job already runs or has ended. */
  jobState: 'job_state',
  /** The job has ended (Completed): it matches its log, so it is never edited, deleted, started or commanded again. */
  jobFinished: 'job_finished',
  /** The robot's connection is not ONLINE. */
  robotOffline: 'robot_offline',
  /** Behaviour §4: robot controls other than stop are enabled only in Autonomous mode (stop works in every mode). */
  robotNotAutonomous: 'robot_not_autonomous',
  /** Pause of a robot with no work: no order, not driving home (a pause would only stop its charging). */
  robotIdle: 'robot_idle',
  /** Stop of a robot with nothing to stop: no order, not driving home, not paused. */
  nothingToStop: 'nothing_to_stop',
  /** Home of a robot that is docked (charging) already. */
  robotAtHome: 'robot_at_home',
  /** The robot already runs another job. */
  robotBusy: 'robot_busy',
  /** The robot's battery is below LOW_BATTERY_PERCENT: it would give up the rooms and go home to charge. */
  robotBatteryLow: 'robot_battery_low',
  /** The robot reports a FATAL error: it cannot run an order until it is cleared. */
  robotError: 'robot_error',
  /** The Idempotency-Key was already used for another command (another robot, job, prompt or command). */
  keyReused: 'idempotency_key_reused',
} as const;
export type CommandRefusal = (typeof CommandRefusal)[keyof typeof CommandRefusal];

/**
 * A stop the robot has not acknowledged this long after it was decided is alerted (`stop_unconfirmed`); the
 * server's COMMAND_STOP_ALERT_MS defaults to it, and the console shows a job's pending stop as unconfirmed after it.
 */
export const DEFAULT_STOP_ALERT_MS = 5000;

export const startJobNow = defineRoute({
  method: 'POST',
  path: '/jobs/job/start',
  summary:
    'Start a Scheduled job now ({data: true}); 409 when it runs or ended, its robot is offline, not Autonomous, busy with another job, below the low-battery threshold or in a FATAL error',
  tags: ['jobs', 'execution'],
  querystring: z.object({ job_id: Id }),
  response: { 200: DataFlag },
});

export const commandJob = defineRoute({
  method: 'POST',
  path: '/command/job/:job_id',
  summary:
    'start, pause, resume or stop a job ({data: true}); stop of a Scheduled job ends it unstarted; stop of a Running job whose robot is offline ends it interrupted at once (the cancel waits for the robot); 409 when the job state or robot does not allow it',
  tags: ['execution'],
  params: z.object({ job_id: Id }),
  querystring: z.object({ command: JobCommand }),
  response: { 200: DataFlag },
});
