import { queryOptions, useQuery } from '@tanstack/react-query';
import { listGroups } from '@uvd/contracts';
import type { ApiClient } from '../../../lib/api-client.ts';
import { useApi } from '../../../lib/api-context.tsx';

export const groupsKey = ['admin', 'groups'] as const;

const byName = (a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name, undefined, { sensitivity: 'base' });

export const getGroups = async (api: ApiClient, signal?: AbortSignal) => [...(await api.request(listGroups, { signal }))].sort(byName);

export const getGroupsQueryOptions = (api: ApiClient) =>
  queryOptions({
    queryKey: groupsKey,
    queryFn: ({ signal }) => getGroups(api, signal),
  });

export const useAdminGroups = () => useQuery(getGroupsQueryOptions(useApi()));
