import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { getLog, listLogs, updateLogNotes } from '@uvd/contracts';
import type { LogEntry } from '@uvd/contracts';
import type { ApiClient } from '../../../lib/api-client.ts';
import { useApi } from '../../../lib/api-context.tsx';
import { useRobotList } from '../../../lib/robot-list.ts';
import type { ListFilters } from '../../../lib/list-filters.ts';

export const logsKeys = {
  all: ['logs'] as const,
  list: (filters: ListFilters) => ['logs', 'list', filters] as const,
  detail: (id: string) => ['logs', 'detail', id] as const,
};

export const logsQueryOptions = (api: ApiClient, filters: ListFilters) =>
  queryOptions({
    queryKey: logsKeys.list(filters),
    queryFn: ({ signal }) =>
      api.request(listLogs, {
        query: {
          offset: filters.offset,
          limit: filters.limit,
          robot_id: filters.robots.length > 0 ? filters.robots : undefined,
          from_date: filters.startDate,
          to_date: filters.endDate,
        },
        signal,
      }),
  });

/** GET /log with robot_id repeated and from_date/to_date (behaviour §7). */
// No previous-page placeholder: every new filter shows the 10 placeholder rows of behaviour §2 until its page arrives.
export const useLogs = (filters: ListFilters) => useQuery(logsQueryOptions(useApi(), filters));

/** GET /log/{id}: the expanded row reads the log afresh, with its recorded path for the trajectory map. */
export const useLog = (id: string) => {
  const api = useApi();
  return useQuery({
    queryKey: logsKeys.detail(id),
    queryFn: ({ signal }) => api.request(getLog, { params: { id }, query: { extra_navigation_data: 'true' }, signal }),
  });
};

/** The robots offered by the filter dialog, by name, read once it opens. */
export const useFilterRobots = (enabled: boolean) => useRobotList(enabled);

/** PATCH /log/{id}/notes; the reply replaces the cached detail and the lists reload. */
export const useUpdateLogNotes = () => {
  const api = useApi();
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ id, notes }: { id: string; notes: string }) => api.request(updateLogNotes, { params: { id }, body: { notes } }),
    onSuccess: (entry: LogEntry) => {
      // The reply carries no path: the one already shown stays.
      client.setQueryData(logsKeys.detail(entry.job_id), (shown: LogEntry | undefined) =>
        shown?.trajectory ? { ...entry, trajectory: shown.trajectory } : entry,
      );
      void client.invalidateQueries({ queryKey: ['logs', 'list'] });
    },
  });
};
