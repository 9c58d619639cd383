import { useMutation } from '@tanstack/react-query';
import { subscribe, unsubscribe } from '@uvd/contracts';
import type { ApiClient } from '../../../lib/api-client.ts';
import { useApi } from '../../../lib/api-context.tsx';
import { deviceToken } from '../notifications.ts';

/** Spec §7: a device is subscribed twice, to its user's topic (sub) and its organization's (realm). */
export const setSubscriptions = async (api: ApiClient, enabled: boolean, topics: readonly string[]): Promise<void> => {
  const token = deviceToken();
  const contract = enabled ? subscribe : unsubscribe;
  const replies = await Promise.all(topics.map((topic) => api.request(contract, { body: { token, topic } })));
  // Spec §7: a command response with a falsy data value is a failure.
  if (replies.some((reply) => !reply.data)) throw new Error(enabled ? 'subscribe refused' : 'unsubscribe refused');
};

export const useSetSubscriptions = (topics: readonly string[]) => {
  const api = useApi();
  return useMutation({ mutationFn: (enabled: boolean) => setSubscriptions(api, enabled, topics) });
};
