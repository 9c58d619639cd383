import { useEffect } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import type { QueryClient } from '@tanstack/react-query';
import { streamRobots } from '@uvd/contracts';
import type { RobotList } from '@uvd/contracts';
import type { ApiClient } from '../../../lib/api-client.ts';
import { useApi } from '../../../lib/api-context.tsx';
import { fetchStream } from '../../../lib/live/stream-hub.ts';
import { robotsQueryKey } from '../api/robots-query.ts';
import { applyRobotUpdate, RobotStreamHub } from './robot-stream.ts';

/** Opens the robot stream with fetch, sending the session's bearer token (re-read on every reconnect). */
export const fetchRobotStream = (api: ApiClient) => fetchStream(api, () => api.baseUrl('robots'), streamRobots.path, 'robot_list');

/** One hub per query cache: every screen of one app shares its connections and feeds the same cache. */
const hubs = new WeakMap<QueryClient, RobotStreamHub>();

export const robotStreamHubFor = (queryClient: QueryClient, api: ApiClient): RobotStreamHub => {
  let hub = hubs.get(queryClient);
  if (!hub) {
    hub = new RobotStreamHub({
      connect: fetchRobotStream(api),
      onUpdate: (update) => {
        queryClient.setQueryData<RobotList>(robotsQueryKey, (list) => applyRobotUpdate(list, update));
      },
    });
    hubs.set(queryClient, hub);
  }
  return hub;
};

/** Keeps the cached robot list live for these robots while the calling component is mounted. */
export const useRobotStream = (robotIds: readonly string[], enabled = true): void => {
  const queryClient = useQueryClient();
  const api = useApi();
  // A string, so a new array with the same robots does not reopen the stream.
  const key = [...new Set(robotIds)].sort().join(',');
  useEffect(() => {
    if (!enabled || key === '') return undefined;
    return robotStreamHubFor(queryClient, api).subscribe(key.split(','));
  }, [queryClient, api, key, enabled]);
};
