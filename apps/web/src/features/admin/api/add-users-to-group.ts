import { addUsersToGroup as addUsersToGroupRoute } from '@uvd/contracts';
import type { ApiClient } from '../../../lib/api-client.ts';

/** Replies the group's members (submit-assignment.ts sends it). */
export const addUsersToGroup = (api: ApiClient, groupId: string, userIds: string[]) =>
  api.request(addUsersToGroupRoute, { params: { groupId }, body: userIds });
