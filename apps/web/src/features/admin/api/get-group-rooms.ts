import { getAdminGroupRooms } from '@uvd/contracts';
import type { ApiClient } from '../../../lib/api-client.ts';

/**
 * One page of the group's rooms. Behaviour §7/§2: the group's rooms are the first element's rooms field; without
 * it, every room is unassigned.
 */
export const getGroupRoomsPage = async (api: ApiClient, groupId: string, page: { offset: number; limit: number }, signal?: AbortSignal) =>
  (await api.request(getAdminGroupRooms, { query: { groups: [groupId], ...page }, signal })).data[0]?.rooms ?? [];
