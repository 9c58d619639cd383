import { queryOptions, useQuery } from '@tanstack/react-query';
import { getAction, getJob, listJobs, listWaitingActions } from '@uvd/contracts';
import type { Action, ActionChange, Job, JobList, WaitingActionList } from '@uvd/contracts';
import type { ApiClient } from '../../../lib/api-client.ts';
import { useApi } from '../../../lib/api-context.tsx';
import { useRobotList } from '../../../lib/robot-list.ts';
import { JOB_LIST_STALE_TIME_MS } from '../../../lib/query-client.ts';
import type { ListFilters } from '../../../lib/list-filters.ts';

export const jobListsKey = ['jobs', 'list'] as const;
export const jobListKey = (filters: ListFilters) => [...jobListsKey, filters] as const;
export const actionsKey = ['actions'] as const;
export const actionKey = (jobId: string) => [...actionsKey, 'job', jobId] as const;
export const focusedJobKey = (jobId: string) => ['jobs', 'focused', jobId] as const;
export const waitingActionsKey = [...actionsKey, 'waiting'] as const;

export const jobListQueryOptions = (api: ApiClient, filters: ListFilters) =>
  queryOptions({
    queryKey: jobListKey(filters),
    queryFn: ({ signal }) =>
      api.request(listJobs, {
        query: {
          offset: filters.offset,
          limit: filters.limit,
          robot_id: filters.robots,
          from_date: filters.startDate,
          to_date: filters.endDate,
        },
        signal,
      }),
    staleTime: JOB_LIST_STALE_TIME_MS,
  });

export const useJobList = (filters: ListFilters) => useQuery(jobListQueryOptions(useApi(), filters));

/**
 * The job a `/job/:jobId` link opens when it is not on the list's current page (a new job scheduled later than the
 * page's jobs, say): fetched on its own so the link still shows it expanded.
 */
export const useFocusedJob = (jobId: string | null, enabled: boolean) => {
  const api = useApi();
  return useQuery({
    queryKey: focusedJobKey(jobId ?? ''),
    queryFn: ({ signal }) => api.request(getJob, { params: { id: jobId ?? '' }, signal }),
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
export const useWaitingActions = () => {
  const api = useApi();
  return useQuery({
    queryKey: waitingActionsKey,
    queryFn: ({ signal }) => api.request(listWaitingActions, { signal }),
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

/** Whether a job change ends a job the cached lists showed as not performed (it leaves the list now). */
export const endsListedJob = (lists: readonly (JobList | undefined)[], change: Job): boolean =>
  change.performed && lists.some((list) => list?.payload.some((job) => job.job_id === change.job_id && !job.performed));

/**
 * Spec §4: a live job change replaces the matching job in the cached list by job_id, drops every job with
 * performed true, then recomputes the count (by the number of jobs dropped).
 */
export const applyJobChange = (list: JobList | undefined, change: Job): JobList | undefined => {
  if (!list) return list;
  const replaced = list.payload.map((job) => (job.job_id === change.job_id ? change : job));
  const payload = replaced.filter((job) => !job.performed);
  return { count: Math.max(0, list.count - (replaced.length - payload.length)), payload };
};

/** The robots offered by the filter's multi-select, by name, read once the dialog opens. */
export const useFilterRobots = (enabled: boolean) => useRobotList(enabled);
