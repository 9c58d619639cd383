import { queryOptions, useQuery } from '@tanstack/react-query';
import { getMyProfile } from '@uvd/contracts';
import type { SessionUser } from '@uvd/contracts';
import type { ApiClient } from '../../../lib/api-client.ts';
import { useApi } from '../../../lib/api-context.tsx';

export const MY_PROFILE_QUERY_KEY = ['user', 'my-profile'] as const;

export const fetchMyProfile = (api: ApiClient, signal?: AbortSignal): Promise<SessionUser> => api.request(getMyProfile, { signal });

export const myProfileQueryOptions = (api: ApiClient) =>
  queryOptions({ queryKey: MY_PROFILE_QUERY_KEY, queryFn: ({ signal }) => fetchMyProfile(api, signal) });

export const useMyProfile = () => useQuery(myProfileQueryOptions(useApi()));
