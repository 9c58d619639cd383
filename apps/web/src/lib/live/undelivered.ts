import type { QueryClient } from '@tanstack/react-query';
import type { CommandUndelivered, Job, JobList, RobotList } from '@uvd/contracts';
import type { i18n as I18n } from 'i18next';
import { robotListKey } from '../robot-list.ts';
import { toast } from '../toast.ts';

/** The last undelivered command of a job, for its row (null once the operator sends another command). */
export const undeliveredKey = (jobId: string) => ['undelivered', jobId] as const;

/** The robot's name as a screen already shows it (the robot list, a job list or a job), else its id. */
const robotName = (queryClient: QueryClient, robotId: string): string => {
  const robot = queryClient.getQueryData<RobotList>(robotListKey)?.payload.find((item) => item.robot_id === robotId);
  if (robot) return robot.name;
  // The jobs screen's lists and pinned jobs (its query keys start with 'jobs').
  for (const [, cached] of queryClient.getQueriesData<JobList | Job>({ queryKey: ['jobs'] })) {
    const jobs = cached === undefined ? [] : 'payload' in cached ? cached.payload : [cached];
    const job = jobs.find((item) => item.robot_id === robotId);
    if (job) return job.robot_name;
  }
  return robotId;
};

/** "Robot UVD-2 did not receive 'pause'." */
export const undeliveredMessage = (i18n: I18n, robot: string, event: CommandUndelivered): string =>
  i18n.t('commandUndelivered.message', { robot, command: i18n.t(`commandUndelivered.commands.${event.command}`) });

/**
 * Shows a command_undelivered event: an error toast naming the robot and the command, once per command (several
 * streams, or a replay after a reconnect, may bring the same event), and the job's row says so too.
 */
export const undeliveredReporter = (queryClient: QueryClient, i18n: I18n) => {
  const shown = new Set<string>();
  return (event: CommandUndelivered): void => {
    if (shown.has(event.command_id)) return;
    shown.add(event.command_id);
    const message = undeliveredMessage(i18n, robotName(queryClient, event.robot_id), event);
    toast.error(message);
    if (event.job_id !== null) queryClient.setQueryData(undeliveredKey(event.job_id), message);
  };
};
