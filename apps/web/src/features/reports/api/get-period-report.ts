import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import { getPeriodReport } from '@uvd/contracts';
import type { PeriodReportQuery } from '@uvd/contracts';
import type { ApiClient } from '../../../lib/api-client.ts';
import { useApi } from '../../../lib/api-context.tsx';

export const periodReportKey = (query: PeriodReportQuery) => ['reports', 'period', query] as const;

/** GET /reports/period: the compliance figures of a period and scope. */
export const periodReportQueryOptions = (api: ApiClient, query: PeriodReportQuery) =>
  queryOptions({
    queryKey: periodReportKey(query),
    queryFn: ({ signal }) => api.request(getPeriodReport, { query, signal }),
  });

/** Read only for a period the form accepts (null otherwise); the last figures stay shown while the next load. */
export const usePeriodReport = (query: PeriodReportQuery | null) => {
  const api = useApi();
  return useQuery({
    ...periodReportQueryOptions(api, query ?? { from_date: '', to_date: '' }),
    enabled: query !== null,
    placeholderData: keepPreviousData,
  });
};
