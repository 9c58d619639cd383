import { getAdminRooms } from '@uvd/contracts';
import type { ApiClient } from '../../../lib/api-client.ts';

/** One page of the organization's rooms (the assignment screen reads them all, get-assignment.ts). */
export const getAdminRoomsPage = async (api: ApiClient, page: { offset: number; limit: number }, signal?: AbortSignal) =>
  (await api.request(getAdminRooms, { query: page, signal })).data;
