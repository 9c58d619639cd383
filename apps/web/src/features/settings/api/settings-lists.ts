import { queryOptions, useQuery } from '@tanstack/react-query';
import { listLanguages, listTimezones } from '@uvd/contracts';
import type { LanguageOption, TimezoneOption } from '@uvd/contracts';
import type { ApiClient } from '../../../lib/api-client.ts';
import { useApi } from '../../../lib/api-context.tsx';

/** The lists change only with a server release: fetched once per page. */
const FOREVER = Number.POSITIVE_INFINITY;

export const fetchLanguages = (api: ApiClient, signal?: AbortSignal): Promise<LanguageOption[]> => api.request(listLanguages, { signal });
export const fetchTimezones = (api: ApiClient, signal?: AbortSignal): Promise<TimezoneOption[]> => api.request(listTimezones, { signal });

export const languagesQueryOptions = (api: ApiClient) =>
  queryOptions({ queryKey: ['settings', 'languages'], queryFn: ({ signal }) => fetchLanguages(api, signal), staleTime: FOREVER });
export const timezonesQueryOptions = (api: ApiClient) =>
  queryOptions({ queryKey: ['settings', 'timezones'], queryFn: ({ signal }) => fetchTimezones(api, signal), staleTime: FOREVER });

export const useLanguages = () => useQuery(languagesQueryOptions(useApi()));
export const useTimezones = () => useQuery(timezonesQueryOptions(useApi()));
