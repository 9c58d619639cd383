import { useMutation, useQueryClient } from '@tanstack/react-query';
import { testWebhook } from '@uvd/contracts';
import type { ApiClient } from '../../../lib/api-client.ts';
import { useApi } from '../../../lib/api-context.tsx';
import { webhookKeys } from './get-webhooks.ts';

/** Queues a signed test event for the webhook now; its outcome shows later as the row's last delivery. */
export const sendWebhookTest = (api: ApiClient, id: string) => api.request(testWebhook, { params: { id } });

export const useTestWebhook = () => {
  const api = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => sendWebhookTest(api, id),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: webhookKeys.all }),
  });
};
