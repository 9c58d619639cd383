import { QueryClient } from '@tanstack/react-query';

/** Behaviour §9: the query cache keeps data 1 hour. */
export const QUERY_GC_TIME_MS = 60 * 60 * 1000;
/** Behaviour §4, §9: the job list is fresh for 10 seconds (the jobs feature sets it as its staleTime). */
export const JOB_LIST_STALE_TIME_MS = 10_000;

/** Behaviour §8, §9: no refetch on focus, queries do not retry (live streams keep lists current instead). */
export const createQueryClient = (): QueryClient =>
  new QueryClient({
    defaultOptions: {
      queries: { gcTime: QUERY_GC_TIME_MS, refetchOnWindowFocus: false, retry: false },
      mutations: { retry: false },
    },
  });
