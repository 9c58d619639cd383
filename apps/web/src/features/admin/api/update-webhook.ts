import { useMutation, useQueryClient } from '@tanstack/react-query';
import { updateWebhook, WebhookUpdate } from '@uvd/contracts';
import type { ApiClient } from '../../../lib/api-client.ts';
import { useApi } from '../../../lib/api-context.tsx';
import { webhookKeys } from './get-webhooks.ts';

export const updateWebhookInputSchema = WebhookUpdate;
export type UpdateWebhookInput = WebhookUpdate;

export const patchWebhook = (api: ApiClient, id: string, body: UpdateWebhookInput) => api.request(updateWebhook, { params: { id }, body });

/** Changes a webhook (here: enables or disables it); the list is read again so its row shows what the server kept. */
export const useUpdateWebhook = () => {
  const api = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ id, body }: { id: string; body: UpdateWebhookInput }) => patchWebhook(api, id, body),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: webhookKeys.all }),
  });
};
