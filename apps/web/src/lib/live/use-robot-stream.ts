import { useEffect } from 'react';
import { hashKey, useQueryClient } from '@tanstack/react-query';
import type { QueryClient, QueryKey } from '@tanstack/react-query';
import type { i18n as I18n } from 'i18next';
import { useTranslation } from 'react-i18next';
import { streamRobots } from '@uvd/contracts';
import type { RobotList } from '@uvd/contracts';
import type { ApiClient } from '../api-client.ts';
import { useApi } from '../api-context.tsx';
import { applyRobotUpdate, RobotStreamHub } from './robot-stream.ts';
import { fetchStream } from './stream-hub.ts';
import { undeliveredReporter } from './undelivered.ts';

/** Opens the robot stream with fetch, sending the session's bearer token (re-read on every reconnect). */
export const fetchRobotStream = (api: ApiClient) => fetchStream(api, () => api.baseUrl('robots'), streamRobots.path, 'robot_list');

interface LiveRobots {
  hub: RobotStreamHub;
  /** The cached robot lists the stream writes to (the robots table's, the map's), by query hash. */
  lists: Map<string, { key: QueryKey; refs: number }>;
}

/** One hub per query cache: every screen of one app shares its connections and feeds the same cache. */
const feeds = new WeakMap<QueryClient, LiveRobots>();

const liveRobotsFor = (queryClient: QueryClient, api: ApiClient, i18n: I18n): LiveRobots => {
  let feed = feeds.get(queryClient);
  if (!feed) {
    const lists: LiveRobots['lists'] = new Map();
    const hub = new RobotStreamHub({
      connect: fetchRobotStream(api),
      onUpdate: (update) => {
        for (const { key } of lists.values()) queryClient.setQueryData<RobotList>(key, (list) => applyRobotUpdate(list, update));
      },
      // Battery, mode, status and pose are not replayed after a gap: the lists the stream keeps live are read again.
      onResync: () => {
        for (const { key } of lists.values()) void queryClient.invalidateQueries({ queryKey: key, exact: true });
      },
      onUndelivered: undeliveredReporter(queryClient, i18n),
    });
    feed = { hub, lists };
    feeds.set(queryClient, feed);
  }
  return feed;
};

/**
 * Keeps the robot list cached under `listKey` (a constant key) live for these robots while the calling component
 * is mounted, and shows the commands the server could not deliver to them (command_undelivered: a toast naming
 * the robot and the command). Screens watching the same robots share one connection (behaviour §4 live robot updates).
 */
export const useRobotStream = (listKey: QueryKey, robotIds: readonly string[], enabled = true): void => {
  const queryClient = useQueryClient();
  const api = useApi();
  const { i18n } = useTranslation();
  // A string, so a new array with the same robots does not reopen the stream.
  const ids = [...new Set(robotIds)].sort().join(',');
  useEffect(() => {
    if (!enabled || ids === '') return undefined;
    const { hub, lists } = liveRobotsFor(queryClient, api, i18n);
    const hash = hashKey(listKey);
    const list = lists.get(hash) ?? { key: listKey, refs: 0 };
    list.refs += 1;
    lists.set(hash, list);
    const release = hub.subscribe(ids.split(','));
    return () => {
      release();
      list.refs -= 1;
      if (list.refs === 0) lists.delete(hash);
    };
  }, [queryClient, api, i18n, listKey, ids, enabled]);
};
