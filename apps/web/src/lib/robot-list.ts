import { queryOptions, useQuery } from '@tanstack/react-query';
import { getRobots } from '@uvd/contracts';
import type { RobotList } from '@uvd/contracts';
import type { ApiClient } from './api-client.ts';
import { useApi } from './api-context.tsx';
import { useRobotStream } from './live/use-robot-stream.ts';
import { LIST_PAGE } from './site-queries.ts';

/**
 * GET /robot/robot/robots (behaviour §9: 50 from offset 0), sorted by name: one cache entry for the robots table, the
 * map, the jobs and logs filters and the job editor's robot names, kept live by the robot stream while a screen
 * watches it.
 */
export const robotListKey = ['site', 'robots', LIST_PAGE] as const;

const byName = (a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name, undefined, { sensitivity: 'base' });

/** The server sorts by name already; sorting again keeps the order a property of the console (behaviour §2). */
export const robotListQueryOptions = (api: ApiClient) =>
  queryOptions({
    queryKey: robotListKey,
    queryFn: async ({ signal }): Promise<RobotList> => {
      const list = await api.request(getRobots, { query: LIST_PAGE, signal });
      return { ...list, payload: [...list.payload].sort(byName) };
    },
  });

/** The robots the user sees, read when `enabled` (a filter dialog asks only once it opens). */
export const useRobotList = (enabled = true) => useQuery({ ...robotListQueryOptions(useApi()), enabled });

/** The robot list, with every robot in it kept live by the robot stream while the caller is mounted (behaviour §4). */
export const useLiveRobotList = () => {
  const robots = useRobotList();
  useRobotStream(robotListKey, robots.data?.payload.map((robot) => robot.robot_id) ?? []);
  return robots;
};
