import { addRoomsToGroup as addRoomsToGroupRoute } from '@uvd/contracts';
import type { ApiClient } from '../../../lib/api-client.ts';

/** Behaviour §7: a command reply with a falsy data value is a failure. */
export const addRoomsToGroup = async (api: ApiClient, groupId: string, roomIds: string[]): Promise<void> => {
  const reply = await api.request(addRoomsToGroupRoute, { query: { room_list: roomIds, group: groupId } });
  if (!reply.data) throw new Error('the server did not apply the change');
};
