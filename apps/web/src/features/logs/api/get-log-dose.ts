import { queryOptions, useQuery } from '@tanstack/react-query';
import { getLogDose } from '@uvd/contracts';
import type { ApiClient } from '../../../lib/api-client.ts';
import { useApi } from '../../../lib/api-context.tsx';
import { isApiRequestError } from '../../../lib/api-error.ts';

export const logDoseKey = (id: string) => ['logs', 'dose', id] as const;

/** GET /log/{id}/dose: the dose field of every room of the log; null when the log has none (404). */
export const getLogDoseOrNone = async (api: ApiClient, id: string, signal?: AbortSignal) => {
  try {
    return await api.request(getLogDose, { params: { id }, signal });
  } catch (error) {
    // A log written before the dose model, or without a recorded path, has no dose map: a state, not a failure.
    if (isApiRequestError(error) && error.status === 404) return null;
    throw error;
  }
};

export const logDoseQueryOptions = (api: ApiClient, id: string) =>
  queryOptions({
    queryKey: logDoseKey(id),
    queryFn: ({ signal }) => getLogDoseOrNone(api, id, signal),
    // A finished log's dose does not change.
    staleTime: Infinity,
  });

export const useLogDose = (id: string) => useQuery(logDoseQueryOptions(useApi(), id));
