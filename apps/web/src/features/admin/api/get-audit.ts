import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import { listAudit } from '@uvd/contracts';
import type { AuditListQuery } from '@uvd/contracts';
import type { ApiClient } from '../../../lib/api-client.ts';
import { useApi } from '../../../lib/api-context.tsx';

export const auditKeys = {
  all: ['admin', 'audit'] as const,
  list: (query: AuditListQuery) => ['admin', 'audit', 'list', query] as const,
  verification: ['admin', 'audit', 'verify'] as const,
};

/** One page of the organization's audit trail matching the filters, newest first (the server's order). */
export const getAudit = (api: ApiClient, query: AuditListQuery, signal?: AbortSignal) => api.request(listAudit, { query, signal });

export const getAuditQueryOptions = (api: ApiClient, query: AuditListQuery) =>
  queryOptions({
    queryKey: auditKeys.list(query),
    queryFn: ({ signal }) => getAudit(api, query, signal),
    // The previous page stays on screen while the next one loads, so paging does not collapse the table.
    placeholderData: keepPreviousData,
  });

export const useAudit = (query: AuditListQuery) => useQuery(getAuditQueryOptions(useApi(), query));
