import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  createContact,
  createGroup,
  createUser,
  deleteContact,
  deleteGroup,
  deleteUser,
  getAdminRobots,
  listAdminContacts,
  listGroups,
} from '@uvd/contracts';
import type { CreateContactInput, CreateGroupInput, CreateUserInput, DeletedIds } from '@uvd/contracts';
import type { ApiClient } from '../../../lib/api-client.ts';
import { useApi } from '../../../lib/api-context.tsx';
import { usersKey, usersQueryOptions } from '../../../lib/users-query.ts';

/** One row of a dashboard list: what the search box matches and the confirmation names. */
export interface AdminItem {
  id: string;
  name: string;
}

export const ADMIN_ROBOTS_PAGE = { offset: 0, limit: 50 } as const;

export const adminKeys = {
  users: usersKey,
  groups: ['admin', 'groups'] as const,
  robots: ['admin', 'robots'] as const,
  contacts: ['admin', 'contacts'] as const,
};

const byName = (a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name, undefined, { sensitivity: 'base' });

export const groupsQueryOptions = (api: ApiClient) =>
  queryOptions({
    queryKey: adminKeys.groups,
    queryFn: async ({ signal }) => [...(await api.request(listGroups, { signal }))].sort(byName),
  });

export const adminRobotsQueryOptions = (api: ApiClient) =>
  queryOptions({
    queryKey: adminKeys.robots,
    queryFn: async ({ signal }) => (await api.request(getAdminRobots, { query: ADMIN_ROBOTS_PAGE, signal })).payload,
  });

export const contactsQueryOptions = (api: ApiClient) =>
  queryOptions({
    queryKey: adminKeys.contacts,
    queryFn: async ({ signal }) => (await api.request(listAdminContacts, { signal })).data.payload,
  });

export const useAdminUsers = () => useQuery(usersQueryOptions(useApi()));
export const useAdminGroups = () => useQuery(groupsQueryOptions(useApi()));
export const useAdminRobots = () => useQuery(adminRobotsQueryOptions(useApi()));
export const useAdminContacts = () => useQuery(contactsQueryOptions(useApi()));

/** Behaviour §7: a delete counts as done only when the reply's data holds the deleted id as a key. */
const deleted = (reply: DeletedIds, id: string): boolean => Object.hasOwn(reply.data, id);

export type AdminEntity = 'user' | 'group' | 'contact';

const keyOf: Record<AdminEntity, readonly string[]> = {
  user: adminKeys.users,
  group: adminKeys.groups,
  contact: adminKeys.contacts,
};

/** Deletes one item; rejects when the server does not confirm the id, so the caller toasts "… was not deleted". */
export const useAdminDelete = (entity: AdminEntity) => {
  const api = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (id: string): Promise<void> => {
      const params = { id };
      const reply =
        entity === 'user'
          ? await api.request(deleteUser, { params })
          : entity === 'group'
            ? await api.request(deleteGroup, { params })
            : await api.request(deleteContact, { params });
      if (!deleted(reply, id)) throw new Error(`${entity} ${id} was not deleted`);
    },
    onSuccess: () => queryClient.invalidateQueries({ queryKey: keyOf[entity] }),
  });
};

export const useCreateUser = () => {
  const api = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: CreateUserInput) => api.request(createUser, { body }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: adminKeys.users }),
  });
};

export const useCreateGroup = () => {
  const api = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: CreateGroupInput) => api.request(createGroup, { body }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: adminKeys.groups }),
  });
};

/** Behaviour §7: a contact counts as created only when the reply has an id. */
export const useCreateContact = () => {
  const api = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (body: CreateContactInput) => {
      const reply = await api.request(createContact, { body });
      if (!reply.id) throw new Error('contact was not created');
      return reply;
    },
    onSuccess: () => queryClient.invalidateQueries({ queryKey: adminKeys.contacts }),
  });
};
