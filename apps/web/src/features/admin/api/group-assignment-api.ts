import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  addRobotsToGroup,
  addRoomsToGroup,
  addUsersToGroup,
  getAdminGroupRooms,
  getAdminRobots,
  getAdminRooms,
  getGroup,
  getGroupRobots,
  listGroupUsers,
  listUsers,
  removeRobotsFromGroup,
  removeRoomsFromGroup,
  removeUserFromGroup,
} from '@uvd/contracts';
import type { AssignTab } from '../../../config/paths.ts';
import type { ApiClient } from '../../../lib/api-client.ts';
import { useApi } from '../../../lib/api-context.tsx';

/** Behaviour §3 assignable item. */
export interface AssignItem {
  item_id: string;
  item_name: string;
}

/** Every item of a kind, and the ids of the group's members among them. */
export interface Assignment {
  items: AssignItem[];
  memberIds: string[];
}

/** Behaviour §9 page size; the lists are read page by page from offset 0 so a site of more than 50 rooms fits. */
const PAGE_SIZE = 50;
const MAX_PAGES = 100;

const allPages = async <T,>(fetchPage: (page: { offset: number; limit: number }) => Promise<T[]>): Promise<T[]> => {
  const items: T[] = [];
  for (let page = 0; page < MAX_PAGES; page += 1) {
    const batch = await fetchPage({ offset: page * PAGE_SIZE, limit: PAGE_SIZE });
    items.push(...batch);
    if (batch.length < PAGE_SIZE) break;
  }
  return items;
};

const byName = (a: AssignItem, b: AssignItem) => a.item_name.localeCompare(b.item_name, undefined, { sensitivity: 'base' });

/** Members are added to the item list too, so every item is in exactly one column even beyond the first page. */
const assignment = (all: AssignItem[], members: AssignItem[]): Assignment => {
  const items = new Map(all.map((item) => [item.item_id, item]));
  for (const member of members) items.set(member.item_id, member);
  return { items: [...items.values()].sort(byName), memberIds: members.map((member) => member.item_id) };
};

const fetchAssignment = async (api: ApiClient, kind: AssignTab, groupId: string, signal: AbortSignal): Promise<Assignment> => {
  if (kind === 'users') {
    const [all, members] = await Promise.all([api.request(listUsers, { signal }), api.request(listGroupUsers, { params: { id: groupId }, signal })]);
    const item = (user: { id: string; username: string }) => ({ item_id: user.id, item_name: user.username });
    return assignment(all.data.map(item), members.map(item));
  }
  if (kind === 'robots') {
    const [all, members] = await Promise.all([
      allPages(async (page) => (await api.request(getAdminRobots, { query: page, signal })).payload),
      api.request(getGroupRobots, { params: { groupId }, signal }),
    ]);
    const item = (robot: { robot_id: string; name: string }) => ({ item_id: robot.robot_id, item_name: robot.name });
    return assignment(all.map(item), members.map(item));
  }
  const [all, members] = await Promise.all([
    allPages(async (page) => (await api.request(getAdminRooms, { query: page, signal })).data),
    // Behaviour §7/§2: the group's rooms are the first element's rooms field; without it, every room is unassigned.
    allPages(async (page) => (await api.request(getAdminGroupRooms, { query: { groups: [groupId], ...page }, signal })).data[0]?.rooms ?? []),
  ]);
  const item = (room: { room_id: string; room_name: string }) => ({ item_id: room.room_id, item_name: room.room_name });
  return assignment(all.map(item), members.map(item));
};

export const assignmentKey = (kind: AssignTab, groupId: string) => ['admin', 'assignment', groupId, kind] as const;

export const assignmentQueryOptions = (api: ApiClient, kind: AssignTab, groupId: string) =>
  queryOptions({ queryKey: assignmentKey(kind, groupId), queryFn: ({ signal }) => fetchAssignment(api, kind, groupId, signal) });

export const useAssignment = (kind: AssignTab, groupId: string) => useQuery(assignmentQueryOptions(useApi(), kind, groupId));

export const useGroup = (groupId: string) => {
  const api = useApi();
  return useQuery({ queryKey: ['admin', 'group', groupId], queryFn: ({ signal }) => api.request(getGroup, { params: { id: groupId }, signal }) });
};

export interface Change {
  kind: AssignTab;
  added: string[];
  removed: string[];
  /** The member ids after the change. */
  memberIds: string[];
}

const ok = (reply: { data: boolean }) => {
  // Behaviour §7: a command reply with a falsy data value is a failure.
  if (!reply.data) throw new Error('the server did not apply the change');
};

const apply = async (api: ApiClient, groupId: string, { kind, added, removed }: Change): Promise<void> => {
  if (kind === 'users') {
    if (added.length > 0) await api.request(addUsersToGroup, { params: { groupId }, body: added });
    for (const userId of removed) await api.request(removeUserFromGroup, { params: { user_id: userId, groupId } });
  } else if (kind === 'robots') {
    if (added.length > 0) ok(await api.request(addRobotsToGroup, { query: { group_id: groupId }, body: added }));
    if (removed.length > 0) ok(await api.request(removeRobotsFromGroup, { query: { group_id: groupId }, body: removed }));
  } else {
    if (added.length > 0) ok(await api.request(addRoomsToGroup, { query: { room_list: added, group: groupId } }));
    if (removed.length > 0) ok(await api.request(removeRoomsFromGroup, { query: { room_list: removed, group: groupId } }));
  }
};

/**
 * Sends every tab's moves. On success the cache takes the submitted lists (no flash back while it refetches);
 * either way the lists are read again, since a failure may have applied part of the changes.
 */
export const useSubmitAssignment = (groupId: string) => {
  const api = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (changes: Change[]) => {
      for (const change of changes) await apply(api, groupId, change);
    },
    onSuccess: (_, changes) => {
      for (const change of changes) {
        queryClient.setQueryData(assignmentKey(change.kind, groupId), (previous: Assignment | undefined) =>
          previous ? { ...previous, memberIds: change.memberIds } : previous,
        );
      }
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey: ['admin', 'assignment', groupId] }),
  });
};
