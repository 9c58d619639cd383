import { addRobotsToGroup as addRobotsToGroupRoute } from '@uvd/contracts';
import type { ApiClient } from '../../../lib/api-client.ts';

/** Behaviour §7: a command reply with a falsy data value is a failure. */
export const addRobotsToGroup = async (api: ApiClient, groupId: string, robotIds: string[]): Promise<void> => {
  const reply = await api.request(addRobotsToGroupRoute, { query: { group_id: groupId }, body: robotIds });
  if (!reply.data) throw new Error('the server did not apply the change');
};
