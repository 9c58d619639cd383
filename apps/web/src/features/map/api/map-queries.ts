import { queryOptions, useQuery } from '@tanstack/react-query';
import { getBuildings, getFloorMap, getFloorMapMetadata, getFloors, getJob, getRobots } from '@uvd/contracts';
import { useApi } from '../../../lib/api-context.tsx';

/** Spec §9: buildings, floors and robots are listed 50 at a time from offset 0. */
const PAGE = { offset: 0, limit: 50 } as const;

/**
 * The robots feature keeps a live stream hub of its own, and features do not import each other; until the hub
 * moves to a shared layer the map polls the robots list this often.
 */
export const ROBOT_POLL_MS = 2000;

export const useBuildings = () => {
  const api = useApi();
  return useQuery(
    queryOptions({
      queryKey: ['map', 'buildings', PAGE],
      queryFn: ({ signal }) => api.request(getBuildings, { query: PAGE, signal }),
    }),
  );
};

/** Floors of one building; without a building, every floor (to find the building of a job's floor). */
export const useFloors = (buildingId: string | null, enabled = true) => {
  const api = useApi();
  return useQuery(
    queryOptions({
      queryKey: ['map', 'floors', buildingId, PAGE],
      queryFn: ({ signal }) =>
        api.request(getFloors, { query: buildingId === null ? PAGE : { ...PAGE, building_id: buildingId }, signal }),
      enabled,
    }),
  );
};

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

export const useMapRobots = () => {
  const api = useApi();
  return useQuery(
    queryOptions({
      queryKey: ['map', 'robots', PAGE],
      queryFn: ({ signal }) => api.request(getRobots, { query: PAGE, signal }),
      refetchInterval: ROBOT_POLL_MS,
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
