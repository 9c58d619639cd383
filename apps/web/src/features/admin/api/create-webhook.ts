import { useMutation, useQueryClient } from '@tanstack/react-query';
import { createWebhook, WebhookInput } from '@uvd/contracts';
import type { ApiClient } from '../../../lib/api-client.ts';
import { useApi } from '../../../lib/api-context.tsx';
import { webhookKeys } from './get-webhooks.ts';

/** The form validates with the contract's own schema, the one the server checks the body with. */
export const createWebhookInputSchema = WebhookInput;
export type CreateWebhookInput = WebhookInput;

/** The reply holds the signing secret: the only time it is ever shown. */
export const postWebhook = (api: ApiClient, body: CreateWebhookInput) => api.request(createWebhook, { body });

export const useCreateWebhook = () => {
  const api = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: CreateWebhookInput) => postWebhook(api, body),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: webhookKeys.all }),
  });
};
