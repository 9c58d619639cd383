import { queryOptions } from '@tanstack/react-query';
import { listUsers } from '@uvd/contracts';
import type { ApiClient } from './api-client.ts';

/** GET /user/users (restricted roles only): the organization's users, for the admin screens. */
export const usersKey = ['admin', 'users'] as const;

export const usersQueryOptions = (api: ApiClient) =>
  queryOptions({
    queryKey: usersKey,
    queryFn: async ({ signal }) => (await api.request(listUsers, { signal })).data,
  });
