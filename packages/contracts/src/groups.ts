// Contracts of the groups backend (behaviour §3, §7).
import { z } from 'zod';
import { Id, Text } from './common.ts';
import { RESTRICTED_ROLES } from './roles.ts';
import { defineRoute } from './route.ts';

/** Behaviour §3 group. Membership of robots and rooms is read through the robots and rooms backends. */
export const Group = z.object({ id: Id, name: z.string() });
export type Group = z.infer<typeof Group>;

/** A member of a group as the group-assignment screen lists it (behaviour §3 user: id, username). */
export const GroupUser = z.object({ id: Id, username: z.string() });
export type GroupUser = z.infer<typeof GroupUser>;

const GROUP_NAME_REQUIRED = 'Group name is required.'; // behaviour §5, key addGroup.nameError
export const CreateGroupInput = z.object({
  name: Text({ error: GROUP_NAME_REQUIRED }).trim().min(1, GROUP_NAME_REQUIRED).max(200),
});
export type CreateGroupInput = z.infer<typeof CreateGroupInput>;

/**
 * Reply of the people deletes (group, user, contact): behaviour §7 counts a delete as done when "the reply's
 * data holds the deleted id as a key", the same rule for groups, users and contacts.
 */
export const DeletedIds = z.object({ data: z.record(Id, z.literal(true)) });
export type DeletedIds = z.infer<typeof DeletedIds>;

export const GroupIdParams = z.object({ id: Id });

export const listGroups = defineRoute({
  method: 'GET',
  path: '/group/groups',
  summary: 'Groups of the organization (a done-teleoperator gets only their own groups)',
  tags: ['groups'],
  response: { 200: z.array(Group) },
});

export const getGroup = defineRoute({
  method: 'GET',
  path: '/group/group/:id',
  summary: 'One group (a done-teleoperator only one of their own groups)',
  tags: ['groups'],
  params: GroupIdParams,
  response: { 200: Group },
});

export const listGroupUsers = defineRoute({
  method: 'GET',
  path: '/group/group/:id/users',
  summary: 'Members of a group, by username',
  tags: ['groups'],
  params: GroupIdParams,
  response: { 200: z.array(GroupUser) },
  roles: RESTRICTED_ROLES,
});

export const createGroup = defineRoute({
  method: 'POST',
  path: '/group/create',
  summary: 'Create a group; its name is unique in the organization (409 otherwise)',
  tags: ['groups'],
  body: CreateGroupInput,
  response: { 201: Group },
  roles: RESTRICTED_ROLES,
});

export const deleteGroup = defineRoute({
  method: 'DELETE',
  path: '/group/delete/:id',
  summary: 'Delete a group; its users, robots and rooms leave it, nothing else is deleted',
  tags: ['groups'],
  params: GroupIdParams,
  response: { 200: DeletedIds },
  roles: RESTRICTED_ROLES,
});
