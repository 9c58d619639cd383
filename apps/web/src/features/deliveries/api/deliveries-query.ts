import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import { DeliveryStatus, getDelivery, listDeliveries, listDeliveryRecipients } from '@uvd/contracts';
import type { Delivery, DeliveryDetail, DeliveryList } from '@uvd/contracts';
import type { ApiClient } from '../../../lib/api-client.ts';
import { useApi } from '../../../lib/api-context.tsx';
import { JOB_LIST_STALE_TIME_MS } from '../../../lib/query-client.ts';
import { listQuery, readFilters, readStatuses } from '../../../lib/list-filters.ts';
import type { ListFilters } from '../../../lib/list-filters.ts';

/** Every delivery status, in the order of behaviour §3 (0 Queued … 6 Blocked). */
export const DELIVERY_STATUSES: readonly DeliveryStatus[] = Object.values(DeliveryStatus);

const isDeliveryStatus = (value: number): value is DeliveryStatus => DELIVERY_STATUSES.some((status) => status === value);

/** The deliveries list's filters: those of every list, and the statuses (`status=0,3`). */
export interface DeliveryListFilters extends ListFilters {
  statuses: DeliveryStatus[];
}

/** Reads the deliveries list's filters from the address; a status that is not one of 0–6 is left out. */
export const readDeliveryFilters = (search: URLSearchParams, timeZone: string, now?: Date): DeliveryListFilters => ({
  ...readFilters(search, now, timeZone),
  statuses: readStatuses(search).flatMap((text) => {
    const value = /^\d$/.test(text) ? Number(text) : Number.NaN;
    return isDeliveryStatus(value) ? [value] : [];
  }),
});

export const deliveriesKey = ['deliveries'] as const;
export const deliveryListsKey = [...deliveriesKey, 'list'] as const;
export const deliveryListKey = (filters: DeliveryListFilters) => [...deliveryListsKey, filters] as const;
export const deliveryKey = (deliveryId: string) => [...deliveriesKey, 'detail', deliveryId] as const;

export const deliveryListQueryOptions = (api: ApiClient, filters: DeliveryListFilters) =>
  queryOptions({
    queryKey: deliveryListKey(filters),
    queryFn: ({ signal }) =>
      api.request(listDeliveries, { query: { ...listQuery(filters), status: filters.statuses }, signal }),
    staleTime: JOB_LIST_STALE_TIME_MS,
  });

export const useDeliveryList = (filters: DeliveryListFilters) => useQuery(deliveryListQueryOptions(useApi(), filters));

/** How many recipients the form offers at once; typing narrows the list. */
export const RECIPIENTS_SHOWN = 50;

/** GET /deliveries/recipients: the enabled users of the organization whose name or username holds `search`, by name. */
export const useDeliveryRecipients = (search: string) => {
  const api = useApi();
  const q = search.trim();
  return useQuery({
    queryKey: [...deliveriesKey, 'recipients', q] as const,
    queryFn: ({ signal }) => api.request(listDeliveryRecipients, { query: { limit: RECIPIENTS_SHOWN, ...(q ? { q } : {}) }, signal }),
    placeholderData: keepPreviousData,
  });
};

/** GET /deliveries/{id}: the delivery with its chain of custody and route. */
export const useDelivery = (deliveryId: string) => {
  const api = useApi();
  return useQuery({
    queryKey: deliveryKey(deliveryId),
    queryFn: ({ signal }) => api.request(getDelivery, { params: { delivery_id: deliveryId }, signal }),
  });
};

/** A live delivery_change replaces the matching delivery of a cached page by delivery_id. */
export const applyDeliveryChange = (list: DeliveryList | undefined, change: Delivery): DeliveryList | undefined => {
  if (!list?.payload.some((delivery) => delivery.delivery_id === change.delivery_id)) return list;
  return { ...list, payload: list.payload.map((delivery) => (delivery.delivery_id === change.delivery_id ? change : delivery)) };
};

/**
 * Whether a page must be read again after `change`: a delivery it does not hold (a new request, one that now
 * matches its filters), or one whose status changed (it may leave the page's status filter, or move between the
 * open deliveries and the finished ones, which the server orders apart).
 */
export const deliveryChangeNeedsRefetch = (list: DeliveryList | undefined, change: Delivery): boolean => {
  if (!list) return false;
  const held = list.payload.find((delivery) => delivery.delivery_id === change.delivery_id);
  return held === undefined || held.status !== change.status;
};

/** The detail's list fields from a change; its custody and route stay until the detail is read again. */
export const applyDeliveryChangeToDetail = (detail: DeliveryDetail | undefined, change: Delivery): DeliveryDetail | undefined =>
  detail && detail.delivery_id === change.delivery_id ? { ...detail, ...change } : detail;
