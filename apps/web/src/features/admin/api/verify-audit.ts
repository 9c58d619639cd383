import { queryOptions, useQuery } from '@tanstack/react-query';
import { verifyAudit } from '@uvd/contracts';
import type { ApiClient } from '../../../lib/api-client.ts';
import { useApi } from '../../../lib/api-context.tsx';
import { auditKeys } from './get-audit.ts';

/** Whether the organization's audit chain holds: every entry unchanged and none removed. */
export const getAuditVerification = (api: ApiClient, signal?: AbortSignal) => api.request(verifyAudit, { signal });

export const getAuditVerificationQueryOptions = (api: ApiClient) =>
  queryOptions({
    queryKey: auditKeys.verification,
    queryFn: ({ signal }) => getAuditVerification(api, signal),
  });

export const useAuditVerification = () => useQuery(getAuditVerificationQueryOptions(useApi()));
