import { queryOptions, useQuery } from '@tanstack/react-query';
import { getJob } from '@uvd/contracts';
import { useApi } from '../../../lib/api-context.tsx';

export const useTrajectoryJob = (jobId: string | null) => {
  const api = useApi();
  return useQuery(
    queryOptions({
      queryKey: ['map', 'job', jobId],
      queryFn: ({ signal }) => api.request(getJob, { params: { id: jobId ?? '' }, query: { extra_navigation_data: 'true' }, signal }),
      enabled: jobId !== null,
    }),
  );
};
