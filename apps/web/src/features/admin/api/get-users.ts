import { queryOptions, useQuery } from '@tanstack/react-query';
import { listUsers } from '@uvd/contracts';
import type { ApiClient } from '../../../lib/api-client.ts';
import { useApi } from '../../../lib/api-context.tsx';

/** GET /user/users (restricted roles only): the organization's users, with their roles and groups. */
export const usersKey = ['admin', 'users'] as const;

export const getUsers = async (api: ApiClient, signal?: AbortSignal) => (await api.request(listUsers, { signal })).data;

export const getUsersQueryOptions = (api: ApiClient) =>
  queryOptions({
    queryKey: usersKey,
    queryFn: ({ signal }) => getUsers(api, signal),
  });

export const useAdminUsers = () => useQuery(getUsersQueryOptions(useApi()));
