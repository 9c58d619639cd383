import { useQuery, useQueryClient } from '@tanstack/react-query';
import { getDoses, getFloorRobots, getJob } from '@uvd/contracts';
import { useApi } from '../../../lib/api-context.tsx';
import { robotListQueryOptions } from '../../../lib/robot-list.ts';
import { robotOffline } from '../../../lib/robot-presence.ts';

export const editorJobKey = (jobId: string) => ['jobs', 'editor', 'job', jobId] as const;

/** GET /jobs/job/{id}?extra_room_data=true: the job to edit, with each room's building and floor. */
export const useEditorJob = (jobId: string) => {
  const api = useApi();
  return useQuery({
    queryKey: editorJobKey(jobId),
    queryFn: ({ signal }) => api.request(getJob, { params: { id: jobId }, query: { extra_room_data: 'true' }, signal }),
  });
};

/** A robot on the chosen floor; its name comes from the robots list (an id it does not hold shows as is). */
export interface FloorRobot {
  robot_id: string;
  name: string;
  /** Offline or never heard from; false for a robot beyond the robots list's first page, of which nothing is known. */
  offline: boolean;
}

/**
 * GET /robot/floor/robot?floor_id= gives the ids (sorted by name), the robot list their names: read once and
 * cached, not again for every floor chosen.
 */
export const useEditorFloorRobots = (floorId: string) => {
  const api = useApi();
  const queryClient = useQueryClient();
  return useQuery({
    queryKey: ['jobs', 'editor', 'floor-robots', floorId] as const,
    queryFn: async ({ signal }): Promise<FloorRobot[]> => {
      const [onFloor, robots] = await Promise.all([
        api.request(getFloorRobots, { query: { floor_id: floorId }, signal }),
        queryClient.query({ ...robotListQueryOptions(api), staleTime: 'static' }),
      ]);
      const known = new Map(robots.payload.map((robot) => [robot.robot_id, robot]));
      // Disinfection jobs go only to disinfection robots; a robot beyond the list's first page is not known to be either.
      return onFloor.robot_list.flatMap((robotId) => {
        const robot = known.get(robotId);
        if (robot?.kind === 'delivery') return [];
        return [{ robot_id: robotId, name: robot?.name ?? robotId, offline: robot !== undefined && robotOffline(robot) }];
      });
    },
    enabled: floorId !== '',
  });
};

/** GET /jobs/jobs/uvc/dose: the offered doses and the organization's default. */
export const useEditorDoses = () => {
  const api = useApi();
  return useQuery({
    queryKey: ['jobs', 'editor', 'doses'] as const,
    queryFn: ({ signal }) => api.request(getDoses, { signal }),
  });
};
