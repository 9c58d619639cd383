import { queryOptions, useQuery } from '@tanstack/react-query';
import type { AssignTab } from '../../../config/paths.ts';
import type { ApiClient } from '../../../lib/api-client.ts';
import { useApi } from '../../../lib/api-context.tsx';
import { getAdminRobotsPage } from './get-admin-robots.ts';
import { getAdminRoomsPage } from './get-admin-rooms.ts';
import { getGroupRobots } from './get-group-robots.ts';
import { getGroupRoomsPage } from './get-group-rooms.ts';
import { getGroupUsers } from './get-group-users.ts';
import { getUsers } from './get-users.ts';

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

/** One tab of the group assignment screen: every user, robot or room, and the group's members among them. */
export const getAssignment = async (api: ApiClient, kind: AssignTab, groupId: string, signal: AbortSignal): Promise<Assignment> => {
  if (kind === 'users') {
    const [all, members] = await Promise.all([getUsers(api, signal), getGroupUsers(api, groupId, signal)]);
    const item = (user: { id: string; username: string }) => ({ item_id: user.id, item_name: user.username });
    return assignment(all.map(item), members.map(item));
  }
  if (kind === 'robots') {
    const [all, members] = await Promise.all([
      allPages((page) => getAdminRobotsPage(api, page, signal)),
      getGroupRobots(api, groupId, signal),
    ]);
    const item = (robot: { robot_id: string; name: string }) => ({ item_id: robot.robot_id, item_name: robot.name });
    return assignment(all.map(item), members.map(item));
  }
  const [all, members] = await Promise.all([
    allPages((page) => getAdminRoomsPage(api, page, signal)),
    allPages((page) => getGroupRoomsPage(api, groupId, page, signal)),
  ]);
  const item = (room: { room_id: string; room_name: string }) => ({ item_id: room.room_id, item_name: room.room_name });
  return assignment(all.map(item), members.map(item));
};

export const assignmentKey = (kind: AssignTab, groupId: string) => ['admin', 'assignment', groupId, kind] as const;

export const getAssignmentQueryOptions = (api: ApiClient, kind: AssignTab, groupId: string) =>
  queryOptions({ queryKey: assignmentKey(kind, groupId), queryFn: ({ signal }) => getAssignment(api, kind, groupId, signal) });

export const useAssignment = (kind: AssignTab, groupId: string) => useQuery(getAssignmentQueryOptions(useApi(), kind, groupId));
