import { useEffect } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import type { QueryClient } from '@tanstack/react-query';
import { Delivery, streamDeliveries } from '@uvd/contracts';
import type { DeliveryDetail, DeliveryList } from '@uvd/contracts';
import type { ApiClient } from '../../../lib/api-client.ts';
import { useApi } from '../../../lib/api-context.tsx';
import { readAgain } from '../../../lib/live/read-again.ts';
import { StreamHub, fetchStream, jsonParser } from '../../../lib/live/stream-hub.ts';
import {
  applyDeliveryChange,
  applyDeliveryChangeToDetail,
  deliveryChangeNeedsRefetch,
  deliveryKey,
  deliveryListsKey,
  deliveriesKey,
} from '../api/deliveries-query.ts';

export const DELIVERY_CHANGE_EVENT = 'delivery_change';

/** One hub per query cache: the list and the detail share the connection and feed the same cache. */
const hubs = new WeakMap<QueryClient, StreamHub<Delivery>>();

export const deliveryHubFor = (queryClient: QueryClient, api: ApiClient): StreamHub<Delivery> => {
  let hub = hubs.get(queryClient);
  if (!hub) {
    hub = new StreamHub<Delivery>({
      connect: fetchStream(api, () => api.baseUrl('logistics'), streamDeliveries.path, 'delivery_list'),
      event: DELIVERY_CHANGE_EVENT,
      resyncFirstOpen: true,
      parse: jsonParser(Delivery),
      onEvent: (change) => {
        const cached = queryClient.getQueriesData<DeliveryList>({ queryKey: deliveryListsKey });
        const stale = cached.filter(([, list]) => deliveryChangeNeedsRefetch(list, change)).map(([queryKey]) => queryKey);
        queryClient.setQueriesData<DeliveryList>({ queryKey: deliveryListsKey }, (list) => applyDeliveryChange(list, change));
        // The detail shows the new status at once; its custody record (a step per change) is read again, and so is
        // a detail whose first read is still under way (it may predate this change).
        const detail = deliveryKey(change.delivery_id);
        queryClient.setQueryData<DeliveryDetail>(detail, (current) => applyDeliveryChangeToDetail(current, change));
        void readAgain(queryClient, detail);
        // Pages that miss a new delivery or hold one whose status changed are read again, once per burst.
        for (const queryKey of stale) void queryClient.invalidateQueries({ queryKey, exact: true }, { cancelRefetch: false });
      },
      // A gap beyond the server's replay horizon (or a reconnect): every list page and open detail is read again.
      onResync: () => {
        void queryClient.invalidateQueries({ queryKey: deliveriesKey });
      },
    });
    hubs.set(queryClient, hub);
  }
  return hub;
};

/**
 * Keeps the cached deliveries (list pages, details) live while the calling component is mounted: the changes of
 * every delivery the user may see (an empty delivery_list), so a request made elsewhere appears without a reload.
 */
export const useDeliveryStream = (): void => {
  const queryClient = useQueryClient();
  const api = useApi();
  useEffect(() => deliveryHubFor(queryClient, api).subscribe([]), [queryClient, api]);
};
