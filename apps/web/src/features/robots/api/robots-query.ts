import { queryOptions, useQuery } from '@tanstack/react-query';
import { getRobots } from '@uvd/contracts';
import type { RobotList } from '@uvd/contracts';
import type { ApiClient } from '../../../lib/api-client.ts';
import { useApi } from '../../../lib/api-context.tsx';

/** Spec §9: robots are listed 50 at a time from offset 0. */
export const ROBOTS_PAGE = { offset: 0, limit: 50 } as const;

export const robotsQueryKey = ['robots', 'list', ROBOTS_PAGE] as const;

const byName = (a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name, undefined, { sensitivity: 'base' });

/** The server sorts by name already; sorting again keeps the table's order a property of the screen (spec §2). */
export const fetchRobots = async (api: ApiClient, signal?: AbortSignal): Promise<RobotList> => {
  const list = await api.request(getRobots, { query: ROBOTS_PAGE, signal });
  return { ...list, payload: [...list.payload].sort(byName) };
};

export const robotsQueryOptions = (api: ApiClient) =>
  queryOptions({ queryKey: robotsQueryKey, queryFn: ({ signal }) => fetchRobots(api, signal) });

export const useRobots = () => useQuery(robotsQueryOptions(useApi()));
