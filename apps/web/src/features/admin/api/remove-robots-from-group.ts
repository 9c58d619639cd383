import { removeRobotsFromGroup as removeRobotsFromGroupRoute } from '@uvd/contracts';
import type { ApiClient } from '../../../lib/api-client.ts';

/** Behaviour §7: a command reply with a falsy data value is a failure. */
export const removeRobotsFromGroup = async (api: ApiClient, groupId: string, robotIds: string[]): Promise<void> => {
  const reply = await api.request(removeRobotsFromGroupRoute, { query: { group_id: groupId }, body: robotIds });
  if (!reply.data) throw new Error('the server did not apply the change');
};
