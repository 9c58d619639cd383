import { queryOptions, useQuery } from '@tanstack/react-query';
import { getFloorMap, getFloorMapMetadata, getJob } from '@uvd/contracts';
import { useApi } from '../../../lib/api-context.tsx';

export const useFloorMapImage = (floorId: string | null) => {
  const api = useApi();
  return useQuery(
    queryOptions({
      queryKey: ['map', 'floor-image', floorId],
      queryFn: ({ signal }) => api.request(getFloorMap, { query: { floor_id: floorId ?? '', image_format: 'svg' }, signal }),
      enabled: floorId !== null,
    }),
  );
};

export const useFloorMapMetadata = (floorId: string | null) => {
  const api = useApi();
  return useQuery(
    queryOptions({
      queryKey: ['map', 'floor-metadata', floorId],
      queryFn: ({ signal }) => api.request(getFloorMapMetadata, { query: { floor_id: floorId ?? '' }, signal }),
      enabled: floorId !== null,
    }),
  );
};

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
