import { removeUserFromGroup as removeUserFromGroupRoute } from '@uvd/contracts';
import type { ApiClient } from '../../../lib/api-client.ts';

/** Replies the group's members (submit-assignment.ts sends it once per user). */
export const removeUserFromGroup = (api: ApiClient, groupId: string, userId: string) =>
  api.request(removeUserFromGroupRoute, { params: { user_id: userId, groupId } });
