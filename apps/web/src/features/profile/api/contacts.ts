import { queryOptions, useQuery } from '@tanstack/react-query';
import { listContacts } from '@uvd/contracts';
import type { Contact } from '@uvd/contracts';
import type { ApiClient } from '../../../lib/api-client.ts';
import { useApi } from '../../../lib/api-context.tsx';

export const PROFILE_CONTACTS_QUERY_KEY = ['contacts', 'profile'] as const;

/** Behaviour §7: the list is read from `data.payload`. */
export const fetchProfileContacts = async (api: ApiClient, signal?: AbortSignal): Promise<Contact[]> =>
  (await api.request(listContacts, { signal })).data.payload;

export const profileContactsQueryOptions = (api: ApiClient) =>
  queryOptions({ queryKey: PROFILE_CONTACTS_QUERY_KEY, queryFn: ({ signal }) => fetchProfileContacts(api, signal) });

export const useProfileContacts = () => useQuery(profileContactsQueryOptions(useApi()));
