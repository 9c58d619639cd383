import { listGroupUsers } from '@uvd/contracts';
import type { ApiClient } from '../../../lib/api-client.ts';

/** GET /group/{id}/users: the group's members (read with every user for the assignment screen, get-assignment.ts). */
export const getGroupUsers = (api: ApiClient, groupId: string, signal?: AbortSignal) => api.request(listGroupUsers, { params: { id: groupId }, signal });
