import { useMutation, useQueryClient } from '@tanstack/react-query';
import { deleteWebhook } from '@uvd/contracts';
import type { ApiClient } from '../../../lib/api-client.ts';
import { useApi } from '../../../lib/api-context.tsx';
import { webhookKeys } from './get-webhooks.ts';

/** Rejects when the reply does not hold the id (behaviour §7: a delete is done only when the server names it). */
export const removeWebhook = async (api: ApiClient, id: string): Promise<void> => {
  const reply = await api.request(deleteWebhook, { params: { id } });
  if (!Object.hasOwn(reply.data, id)) throw new Error(`webhook ${id} was not deleted`);
};

export const useDeleteWebhook = () => {
  const api = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => removeWebhook(api, id),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: webhookKeys.all }),
  });
};
