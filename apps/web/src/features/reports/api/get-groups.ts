import { queryOptions, useQuery } from '@tanstack/react-query';
import { listGroups } from '@uvd/contracts';
import type { ApiClient } from '../../../lib/api-client.ts';
import { useApi } from '../../../lib/api-context.tsx';

/** GET /group/groups: a teleoperator gets their own groups, the restricted roles every group. */
export const reportGroupsQueryOptions = (api: ApiClient) =>
  queryOptions({
    queryKey: ['reports', 'groups'] as const,
    queryFn: async ({ signal }) => [...(await api.request(listGroups, { signal }))].sort((a, b) => a.name.localeCompare(b.name)),
  });

export const useReportGroups = (enabled: boolean) => useQuery({ ...reportGroupsQueryOptions(useApi()), enabled });
