import { useEffect } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import type { QueryClient } from '@tanstack/react-query';
import { ActionChange, Job, streamActions, streamJobs } from '@uvd/contracts';
import type { Action, JobList, WaitingActionList } from '@uvd/contracts';
import type { ApiClient } from '../../../lib/api-client.ts';
import { useApi } from '../../../lib/api-context.tsx';
import { readAgain, readAgainIfUnderWay } from '../../../lib/live/read-again.ts';
import { StreamHub, fetchStream, jsonParser } from '../../../lib/live/stream-hub.ts';
import {
  actionKey,
  actionsKey,
  applyActionChange,
  applyJobChange,
  applyPromptToJob,
  endsListedJob,
  focusedJobKey,
  jobChangeNeedsRefetch,
  jobListsKey,
  waitingActionsKey,
} from '../api/jobs-query.ts';

interface JobHubs {
  jobs: StreamHub<Job>;
  actions: StreamHub<ActionChange>;
  /** Told of every job that ends while a list shows it (the list then drops it): the finished-job toast. */
  finished: Set<(job: Job) => void>;
}

/** One pair of hubs per query cache: every screen of one app shares the connections and feeds the same cache. */
const hubs = new WeakMap<QueryClient, JobHubs>();

export const jobHubsFor = (queryClient: QueryClient, api: ApiClient): JobHubs => {
  let found = hubs.get(queryClient);
  if (!found) {
    const finished = new Set<(job: Job) => void>();
    found = {
      finished,
      jobs: new StreamHub<Job>({
        connect: fetchStream(api, () => api.baseUrl('jobs'), streamJobs.path, 'job_list'),
        event: 'job_change',
        resyncFirstOpen: true,
        parse: jsonParser(Job),
        onEvent: (change) => {
          const cached = queryClient.getQueriesData<JobList>({ queryKey: jobListsKey });
          if (endsListedJob(cached.map(([, list]) => list), change)) for (const listener of finished) listener(change);
          const stale = cached.filter(([, list]) => jobChangeNeedsRefetch(list, change)).map(([queryKey]) => queryKey);
          queryClient.setQueriesData<JobList>({ queryKey: jobListsKey }, (list) => applyJobChange(list, change));
          // A job a link opened off the list's page: the change replaces it, and a read of it under way is made again.
          const focused = focusedJobKey(change.job_id);
          queryClient.setQueryData<Job>(focused, (job) => (job ? change : job));
          void readAgainIfUnderWay(queryClient, focused);
          // Pages that lost a job or miss a new one are read again; a burst of changes costs one read per page.
          for (const queryKey of stale) void queryClient.invalidateQueries({ queryKey, exact: true }, { cancelRefetch: false });
        },
        // A gap beyond the server's replay horizon: the list pages and the pinned jobs are read again.
        onResync: (jobIds) => {
          void queryClient.invalidateQueries({ queryKey: jobListsKey });
          for (const jobId of jobIds) void queryClient.invalidateQueries({ queryKey: focusedJobKey(jobId), exact: true });
        },
      }),
      actions: new StreamHub<ActionChange>({
        connect: fetchStream(api, () => api.baseUrl('action'), streamActions.path, 'job_list'),
        event: 'action_change',
        resyncFirstOpen: true,
        parse: jsonParser(ActionChange),
        onEvent: (change) => {
          // A resolved action is no longer asked: the job has no open action.
          const action: Action | null = change.resolved
            ? null
            : { action_id: change.action_id, job_id: change.job_id, button: change.button };
          const jobAction = actionKey(change.job_id);
          queryClient.setQueryData<Action | null>(jobAction, action);
          void readAgainIfUnderWay(queryClient, jobAction);
          queryClient.setQueriesData<JobList>({ queryKey: jobListsKey }, (list) =>
            list ? { ...list, payload: list.payload.map((job) => applyPromptToJob(job, change)) } : list,
          );
          queryClient.setQueryData<Job>(focusedJobKey(change.job_id), (job) => (job ? applyPromptToJob(job, change) : job));
          const waiting = queryClient.getQueryData<WaitingActionList>(waitingActionsKey);
          const next = applyActionChange(waiting, change);
          if (next) queryClient.setQueryData(waitingActionsKey, next);
          // Also when the list has no data: a first read that failed (a 503 under load) is read again now, and one
          // still under way (it may predate this prompt) is made again.
          else void readAgain(queryClient, waitingActionsKey);
        },
        onResync: (jobIds) => {
          // The stream of every job (no ids): every job's action, and the waiting prompts, are read again.
          if (jobIds.length === 0) void queryClient.invalidateQueries({ queryKey: actionsKey });
          for (const jobId of jobIds) void queryClient.invalidateQueries({ queryKey: actionKey(jobId), exact: true });
          void queryClient.invalidateQueries({ queryKey: waitingActionsKey, exact: true });
        },
      }),
    };
    hubs.set(queryClient, found);
  }
  return found;
};

/**
 * Keeps the jobs list live while the calling component is mounted: the changes of every job the user may see
 * (an empty job_list), so a job created elsewhere (another tab, another user, the API) appears without a reload,
 * and the prompts of every job, on the same actions connection the banner on every screen holds, so the console
 * keeps one actions stream whatever the screen.
 */
export const useJobStreams = (): void => {
  const queryClient = useQueryClient();
  const api = useApi();
  useEffect(() => {
    const { jobs, actions } = jobHubsFor(queryClient, api);
    const releaseJobs = jobs.subscribe([]);
    const releaseActions = actions.subscribe([]);
    return () => {
      releaseJobs();
      releaseActions();
    };
  }, [queryClient, api]);
};
