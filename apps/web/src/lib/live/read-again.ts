import type { QueryClient, QueryKey } from '@tanstack/react-query';

/**
 * Reads a cached query again after a live change it may not hold, so the last change wins. TanStack Query cancels a
 * read under way when the query already has data, but a first read (no data yet) is shared by the refetch instead,
 * and its answer, which may predate the change, would then stand until the next change: a delivery opened just as
 * its robot reached the pickup showed In transit while the robot waited to be loaded. That read is cancelled first.
 * A query nobody has asked for is left alone.
 */
export async function readAgain(queryClient: QueryClient, queryKey: QueryKey): Promise<void> {
  const state = queryClient.getQueryState(queryKey);
  if (!state) return;
  if (state.data === undefined && state.fetchStatus === 'fetching') await queryClient.cancelQueries({ queryKey, exact: true });
  await queryClient.invalidateQueries({ queryKey, exact: true });
}

/**
 * For a query the live change itself brought up to date (or that holds nothing to update): only a read under way,
 * which may predate the change and whose answer would replace it, is made again.
 */
export async function readAgainIfUnderWay(queryClient: QueryClient, queryKey: QueryKey): Promise<void> {
  if (queryClient.getQueryState(queryKey)?.fetchStatus === 'fetching') await readAgain(queryClient, queryKey);
}
