import { queryOptions, useQuery } from '@tanstack/react-query';
import { getAdminRobots } from '@uvd/contracts';
import type { ApiClient } from '../../../lib/api-client.ts';
import { useApi } from '../../../lib/api-context.tsx';

/** Behaviour §9 page size; the robots tab shows the first page. */
export const ADMIN_ROBOTS_PAGE = { offset: 0, limit: 50 } as const;

export const adminRobotsKey = ['admin', 'robots'] as const;

export const getAdminRobotsPage = async (api: ApiClient, page: { offset: number; limit: number }, signal?: AbortSignal) =>
  (await api.request(getAdminRobots, { query: page, signal })).payload;

export const getAdminRobotsQueryOptions = (api: ApiClient) =>
  queryOptions({
    queryKey: adminRobotsKey,
    queryFn: ({ signal }) => getAdminRobotsPage(api, ADMIN_ROBOTS_PAGE, signal),
  });

export const useAdminRobots = () => useQuery(getAdminRobotsQueryOptions(useApi()));
