import { queryOptions, useQuery } from '@tanstack/react-query';
import { getAction, getJob, listJobs, listWaitingActions, ListedJobStatus } from '@uvd/contracts';
import type { Action, ActionChange, Job, JobList, WaitingActionList } from '@uvd/contracts';
import type { ApiClient } from '../../../lib/api-client.ts';
import { useApi } from '../../../lib/api-context.tsx';
import { useRobotList } from '../../../lib/robot-list.ts';
import { JOB_LIST_STALE_TIME_MS } from '../../../lib/query-client.ts';
import { listQuery, readFilters, readStatuses } from '../../../lib/list-filters.ts';
import type { ListFilters } from '../../../lib/list-filters.ts';

/** The jobs list's filters: those of every list, and the statuses (`status=Running,Scheduled`). */
export interface JobListFilters extends ListFilters {
  statuses: ListedJobStatus[];
}

/** Reads the jobs list's filters from the address; a status the list does not hold is left out. */
export const readJobFilters = (search: URLSearchParams, timeZone: string, now?: Date): JobListFilters => ({
  ...readFilters(search, now, timeZone),
  statuses: readStatuses(search).flatMap((status) => {
    const parsed = ListedJobStatus.safeParse(status);
    return parsed.success ? [parsed.data] : [];
  }),
});

export const jobListsKey = ['jobs', 'list'] as const;
export const jobListKey = (filters: JobListFilters) => [...jobListsKey, filters] as const;
export const actionsKey = ['actions'] as const;
export const actionKey = (jobId: string) => [...actionsKey, 'job', jobId] as const;
export const focusedJobKey = (jobId: string) => ['jobs', 'focused', jobId] as const;
export const waitingActionsKey = [...actionsKey, 'waiting'] as const;

export const jobListQueryOptions = (api: ApiClient, filters: JobListFilters) =>
  queryOptions({
    queryKey: jobListKey(filters),
    queryFn: ({ signal }) =>
      api.request(listJobs, { query: { ...listQuery(filters), status: filters.statuses }, signal }),
    staleTime: JOB_LIST_STALE_TIME_MS,
  });

export const useJobList = (filters: JobListFilters) => useQuery(jobListQueryOptions(useApi(), filters));

/**
 * The job a `/job/:jobId` link opens when it is not on the list's current page (a new job scheduled later than the
 * page's jobs, say): fetched on its own, with its rooms' names and readiness (behaviour §7 `extra_room_data=true`, what
 * the expanded row shows), so the link still shows it expanded.
 */
export const useFocusedJob = (jobId: string | null, enabled: boolean) => {
  const api = useApi();
  return useQuery({
    queryKey: focusedJobKey(jobId ?? ''),
    queryFn: ({ signal }) => api.request(getJob, { params: { id: jobId ?? '' }, query: { extra_room_data: 'true' }, signal }),
    enabled: enabled && jobId !== null,
  });
};

/** GET /action/action?job_id=: the job's open action, or null for 204 (no action). */
export const useJobAction = (jobId: string, enabled: boolean) => {
  const api = useApi();
  return useQuery({
    queryKey: actionKey(jobId),
    queryFn: async ({ signal }): Promise<Action | null> => {
      const reply = await api.request(getAction, { query: { job_id: jobId }, signal });
      return reply ?? null;
    },
    enabled,
  });
};

/** GET /action/actions/waiting: every prompt waiting for an answer, for the banner on every screen. */
export const useWaitingActions = (enabled = true) => {
  const api = useApi();
  return useQuery({
    queryKey: waitingActionsKey,
    queryFn: ({ signal }) => api.request(listWaitingActions, { signal }),
    enabled,
  });
};

/**
 * A live action change in the waiting prompts: one answered or no longer asked leaves at once; a new one is
 * fetched (the change does not name its robot and room), so `undefined` asks for a refetch.
 */
export const applyActionChange = (list: WaitingActionList | undefined, change: ActionChange): WaitingActionList | undefined => {
  if (!list) return list;
  if (change.resolved || change.button.disabled) {
    return { payload: list.payload.filter((action) => action.action_id !== change.action_id) };
  }
  return list.payload.some((action) => action.action_id === change.action_id) ? list : undefined;
};

/**
 * A prompt's opening or end moves its job's robot between waiting at the current room's door and on its way: the
 * server publishes these as action changes, not job changes, and a room the robot entered stays `in_room`.
 */
export const applyPromptToJob = (job: Job, change: ActionChange): Job => {
  const room = job.progress?.current_room;
  if (job.job_id !== change.job_id || !job.progress || !room || room.phase === 'in_room') return job;
  const phase = change.resolved ? 'on_the_way' : 'waiting';
  return room.phase === phase ? job : { ...job, progress: { ...job.progress, current_room: { ...room, phase } } };
};

/** Whether a job change ends a job the cached lists showed as not performed (it leaves the list now). */
export const endsListedJob = (lists: readonly (JobList | undefined)[], change: Job): boolean =>
  change.performed && lists.some((list) => list?.payload.some((job) => job.job_id === change.job_id && !job.performed));

/**
 * Behaviour §4: a live job change replaces the matching job in the cached list by job_id, drops every job with
 * performed true, then recomputes the count (by the number of jobs dropped). The server's list holds only jobs
 * not yet performed and counts only them (apps/server/src/jobs/README.md "What the jobs list holds"), so the rule
 * never drops a job the server would list: a page only loses the job that just ended, and is refetched to fill up
 * (`jobChangeNeedsRefetch`).
 */
export const applyJobChange = (list: JobList | undefined, change: Job): JobList | undefined => {
  if (!list) return list;
  const replaced = list.payload.map((job) => (job.job_id === change.job_id ? change : job));
  const payload = replaced.filter((job) => !job.performed);
  return { count: Math.max(0, list.count - (replaced.length - payload.length)), payload };
};

/**
 * Whether a page must be read again after `change`: it dropped a job while the list has jobs on other pages (the
 * next page's first job moves up), it holds the job and the job's place in the server's order changed (it started,
 * or was rescheduled: Running first, then the next due), or the change is of a job it does not hold that the list
 * would (a job created elsewhere, one rescheduled into range).
 */
export const jobChangeNeedsRefetch = (list: JobList | undefined, change: Job): boolean => {
  if (!list) return false;
  const held = list.payload.find((job) => job.job_id === change.job_id);
  if (!held) return !change.performed;
  if (change.performed) return list.count > list.payload.length;
  return held.status !== change.status || held.start_time !== change.start_time;
};

/** The robots offered by the filter's multi-select, by name, read once the dialog opens. */
export const useFilterRobots = (enabled: boolean) => useRobotList(enabled);
