import { queryOptions, useQuery } from '@tanstack/react-query';
import { getFloorMap, getFloorMapMetadata, getJob, getRobots } from '@uvd/contracts';
import { useApi } from '../../../lib/api-context.tsx';
import { useRobotStream } from '../../../lib/live/use-robot-stream.ts';
import { LIST_PAGE } from '../../../lib/site-queries.ts';


export const mapRobotsQueryKey = ['map', 'robots', LIST_PAGE] as const;

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

/** The robots and where they are, moved by the robot stream's pose updates while the map is open (spec §4). */
export const useMapRobots = () => {
  const api = useApi();
  const robots = useQuery(
    queryOptions({
      queryKey: mapRobotsQueryKey,
      queryFn: ({ signal }) => api.request(getRobots, { query: LIST_PAGE, signal }),
    }),
  );
  useRobotStream(mapRobotsQueryKey, robots.data?.payload.map((robot) => robot.robot_id) ?? []);
  return robots;
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
