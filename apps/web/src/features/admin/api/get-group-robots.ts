import { getGroupRobots as getGroupRobotsRoute } from '@uvd/contracts';
import type { ApiClient } from '../../../lib/api-client.ts';

/** The group's robots (read with every robot for the assignment screen, get-assignment.ts). */
export const getGroupRobots = (api: ApiClient, groupId: string, signal?: AbortSignal) => api.request(getGroupRobotsRoute, { params: { groupId }, signal });
