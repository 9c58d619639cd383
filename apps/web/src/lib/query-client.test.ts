import { describe, expect, it } from 'vitest';
import { JOB_LIST_STALE_TIME_MS, QUERY_GC_TIME_MS, createQueryClient } from './query-client.ts';

describe('query client (behaviour §9)', () => {
  it('keeps data an hour, never refetches on focus, never retries; the job list is fresh 10 s', () => {
    const { queries, mutations } = createQueryClient().getDefaultOptions();
    expect(queries).toMatchObject({ gcTime: 3_600_000, refetchOnWindowFocus: false, retry: false });
    expect(mutations).toMatchObject({ retry: false });
    expect(QUERY_GC_TIME_MS).toBe(3_600_000);
    expect(JOB_LIST_STALE_TIME_MS).toBe(10_000);
  });
});
