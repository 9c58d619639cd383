import { queryOptions, useQuery } from '@tanstack/react-query';
import { listWebhooks } from '@uvd/contracts';
import type { ApiClient } from '../../../lib/api-client.ts';
import { useApi } from '../../../lib/api-context.tsx';

export const webhookKeys = { all: ['admin', 'webhooks'] as const };

export const getWebhooks = async (api: ApiClient, signal?: AbortSignal) => (await api.request(listWebhooks, { signal })).data;

export const getWebhooksQueryOptions = (api: ApiClient) =>
  queryOptions({
    queryKey: webhookKeys.all,
    queryFn: ({ signal }) => getWebhooks(api, signal),
  });

export const useWebhooks = () => useQuery(getWebhooksQueryOptions(useApi()));
