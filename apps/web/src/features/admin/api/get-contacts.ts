import { queryOptions, useQuery } from '@tanstack/react-query';
import { listAdminContacts } from '@uvd/contracts';
import type { ApiClient } from '../../../lib/api-client.ts';
import { useApi } from '../../../lib/api-context.tsx';

export const contactsKey = ['admin', 'contacts'] as const;

export const getContacts = async (api: ApiClient, signal?: AbortSignal) => (await api.request(listAdminContacts, { signal })).data.payload;

export const getContactsQueryOptions = (api: ApiClient) =>
  queryOptions({
    queryKey: contactsKey,
    queryFn: ({ signal }) => getContacts(api, signal),
  });

export const useAdminContacts = () => useQuery(getContactsQueryOptions(useApi()));
