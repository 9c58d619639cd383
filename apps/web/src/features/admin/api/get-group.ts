import { queryOptions, useQuery } from '@tanstack/react-query';
import { getGroup } from '@uvd/contracts';
import type { ApiClient } from '../../../lib/api-client.ts';
import { useApi } from '../../../lib/api-context.tsx';

export const fetchGroup = (api: ApiClient, groupId: string, signal?: AbortSignal) => api.request(getGroup, { params: { id: groupId }, signal });

export const getGroupQueryOptions = (api: ApiClient, groupId: string) =>
  queryOptions({ queryKey: ['admin', 'group', groupId] as const, queryFn: ({ signal }) => fetchGroup(api, groupId, signal) });

export const useGroup = (groupId: string) => useQuery(getGroupQueryOptions(useApi(), groupId));
