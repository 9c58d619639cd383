import { useMutation, useQueryClient } from '@tanstack/react-query';
import { cancelDelivery, commandDelivery, confirmLoading, createDelivery, handoffDelivery } from '@uvd/contracts';
import type { CreatedDelivery, DeliveryDetail, DeliveryInput, DeliveryList } from '@uvd/contracts';
import { useApi } from '../../../lib/api-context.tsx';
import { commandParts } from '../../../lib/command.ts';
import { applyDeliveryChange, deliveryKey, deliveryListsKey } from './deliveries-query.ts';

/** What the detail screen asks of a delivery: its robot paused or resumed, the delivery cancelled, the loading confirmed. */
export type DeliveryActionKind = 'pause' | 'resume' | 'cancel' | 'loaded';

/** The reply of a command is the delivery as it is now: the detail and the cached list pages show it at once. */
const useShowReply = () => {
  const queryClient = useQueryClient();
  return (detail: DeliveryDetail) => {
    queryClient.setQueryData(deliveryKey(detail.delivery_id), detail);
    queryClient.setQueriesData<DeliveryList>({ queryKey: deliveryListsKey }, (list) => applyDeliveryChange(list, detail));
  };
};

/**
 * pause/resume → POST /deliveries/{id}/command?command=, cancel → POST /deliveries/{id}/cancel, loaded → POST
 * /deliveries/{id}/loaded. Each click carries its own Idempotency-Key, which its retries reuse.
 */
export const useDeliveryAction = () => {
  const api = useApi();
  const show = useShowReply();
  return useMutation({
    mutationFn: ({ deliveryId, kind }: { deliveryId: string; kind: DeliveryActionKind }): Promise<DeliveryDetail> => {
      const params = { delivery_id: deliveryId };
      const command = commandParts();
      if (kind === 'cancel') return api.request(cancelDelivery, { params, ...command });
      if (kind === 'loaded') return api.request(confirmLoading, { params, ...command });
      return api.request(commandDelivery, { params, query: { command: kind }, ...command });
    },
    onSuccess: show,
  });
};

/** POST /deliveries/{id}/handoff { pin }: the recipient's PIN; a wrong one is a 409 naming the attempts left. */
export const useHandoff = () => {
  const api = useApi();
  const show = useShowReply();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ deliveryId, pin }: { deliveryId: string; pin: string }) =>
      api.request(handoffDelivery, { params: { delivery_id: deliveryId }, body: { pin } }),
    onSuccess: show,
    // A wrong PIN changed the attempts left (the third locked it): the delivery is read again.
    onError: (_error, { deliveryId }) => queryClient.invalidateQueries({ queryKey: deliveryKey(deliveryId), exact: true }),
  });
};

/** POST /deliveries: the reply carries the hand-off PIN, shown once. */
export const useCreateDelivery = () => {
  const api = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: DeliveryInput): Promise<CreatedDelivery> => api.request(createDelivery, { body: input, ...commandParts() }),
    onSuccess: async (created) => {
      // The PIN stays out of the cache: the detail is read from the server when it opens.
      queryClient.removeQueries({ queryKey: deliveryKey(created.delivery_id) });
      await queryClient.invalidateQueries({ queryKey: deliveryListsKey });
    },
  });
};
