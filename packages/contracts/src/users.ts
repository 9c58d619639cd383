// Contracts of the users backend (behaviour §3, §7).
import { z } from 'zod';
import { Id, Text } from './common.ts';
import { DeletedIds, Group, GroupUser } from './groups.ts';
import { RESTRICTED_ROLES, Role } from './roles.ts';
import { defineRoute } from './route.ts';

/** Behaviour §3 user (id, username) with the directory fields the admin screens show: name, email, roles, groups. */
export const User = z.object({
  id: Id,
  username: z.string(),
  firstName: z.string(),
  lastName: z.string(),
  email: z.string(),
  roles: z.array(Role),
  /** The groups the user is a member of, by name. */
  groups: z.array(Group),
});
export type User = z.infer<typeof User>;

/** Behaviour §7: "users lists in data". */
export const UserList = z.object({ data: z.array(User) });
export type UserList = z.infer<typeof UserList>;

/** Behaviour §3 language default, stored uppercase. */
export const DEFAULT_LANGUAGE = 'EN';
/** Behaviour §3 timezone default. */
export const DEFAULT_TIMEZONE = 'Europe/Helsinki';

/**
 * Behaviour §3 session user, the reply of GET /user/my-profile. Roles are those of the presented token (what the
 * API enforces for this session); names, language, timezone and groups (names) are the directory's current
 * values, so a settings save shows at once. `given_name`/`family_name` are Keycloak's claim names.
 */
export const SessionUser = z.object({
  sub: z.string(),
  roles: z.array(Role),
  realm_access: z.object({ roles: z.array(Role) }),
  language: z.string(),
  timezone: z.string(),
  name: z.string(),
  given_name: z.string(),
  family_name: z.string(),
  email: z.string(),
  groups: z.array(z.string()),
  username: z.string(),
  realm: z.string(),
  /** An admin set this user's password; the console asks for a new one before anything else. */
  must_change_password: z.boolean().default(false),
});
export type SessionUser = z.infer<typeof SessionUser>;

export const Username = z.object({ username: z.string() });
export type Username = z.infer<typeof Username>;

/** Behaviour §5 "Add user" rules and messages (keys addUser.firstNameError … passwordError). */
export const USER_MESSAGES = {
  firstName: 'First name is required',
  lastName: 'Last name is required',
  email: 'Invalid email format',
  password: 'Password should be at least 8 characters long',
} as const;
export const PASSWORD_MIN_LENGTH = 8;

/**
 * A new password, wherever one is set (a new user, a reset by mail, an admin's, the user's own change): the rule of
 * behaviour §5 and §9 (at least 8 characters). Not trimmed: spaces may be part of a password. 1024 bounds the hashing work
 * an anonymous body can cause.
 */
export const NewPassword = Text({ error: USER_MESSAGES.password }).min(PASSWORD_MIN_LENGTH, USER_MESSAGES.password).max(1024);

/** An email, trimmed and lowercased before it is checked (addresses are compared case-insensitively). */
export const EmailInput = Text({ error: USER_MESSAGES.email })
  .trim()
  .toLowerCase()
  .pipe(z.email(USER_MESSAGES.email).max(254, USER_MESSAGES.email));

/** The role of a new user when the create payload names none. */
export const NEW_USER_DEFAULT_ROLE = 'done-teleoperator' satisfies Role;

/**
 * Behaviour §3 create payload (firstName, lastName, email, password). The new user signs in with their email
 * (lowercased) as username. Optional: `role` (done-teleoperator when left out; done-superadmin
 * only when the caller is one) and `groupIds`, groups of the organization the user joins at once.
 */
export const CreateUserInput = z.object({
  firstName: Text({ error: USER_MESSAGES.firstName }).trim().min(1, USER_MESSAGES.firstName).max(200),
  lastName: Text({ error: USER_MESSAGES.lastName }).trim().min(1, USER_MESSAGES.lastName).max(200),
  email: EmailInput,
  password: NewPassword,
  role: Role.optional(),
  groupIds: z.array(Id).max(1000).optional(),
});
export type CreateUserInput = z.infer<typeof CreateUserInput>;

export const UserIdParams = z.object({ id: Id });

export const listUsers = defineRoute({
  method: 'GET',
  path: '/user/users',
  summary: 'Users of the organization, by username',
  tags: ['users'],
  response: { 200: UserList },
  roles: RESTRICTED_ROLES,
});

export const getMyProfile = defineRoute({
  method: 'GET',
  path: '/user/my-profile',
  summary: 'The signed-in user (behaviour §3 session user)',
  tags: ['users'],
  response: { 200: SessionUser },
});

export const getUsername = defineRoute({
  method: 'GET',
  path: '/user/user/:id/username',
  summary: 'The username of a user of the organization',
  tags: ['users'],
  params: UserIdParams,
  response: { 200: Username },
});

export const createUser = defineRoute({
  method: 'POST',
  path: '/user/create',
  summary: 'Create a user named by their email (409 when taken), with an optional role and groups',
  tags: ['users'],
  body: CreateUserInput,
  response: { 201: User },
  roles: RESTRICTED_ROLES,
});

export const deleteUser = defineRoute({
  method: 'DELETE',
  path: '/user/delete/:id',
  summary:
    'Delete a user and end their sessions. Deleting yourself answers 409; only a done-superadmin deletes a done-superadmin (403)',
  tags: ['users'],
  params: UserIdParams,
  response: { 200: DeletedIds },
  roles: RESTRICTED_ROLES,
});

/** Body of the add-users-to-group call: the ids of the users to add. */
export const GroupUserIds = z.array(Id).min(1, 'At least one user id is required').max(1000);

/**
 * The add/remove group user calls of behaviour §7, paths of our own. Both reply the group's
 * members after the change, the shape of GET /group/group/{id}/users, so the client can reconcile its lists.
 */
export const addUsersToGroup = defineRoute({
  method: 'PATCH',
  path: '/user/update/group/:groupId',
  summary: 'Add users to a group (body: list of user ids); members already in it stay',
  tags: ['users', 'groups'],
  params: z.object({ groupId: Id }),
  body: GroupUserIds,
  response: { 200: z.array(GroupUser) },
  roles: RESTRICTED_ROLES,
});

export const removeUserFromGroup = defineRoute({
  method: 'DELETE',
  path: '/user/delete/group/:user_id/:groupId',
  summary: 'Remove a user from a group. Clients may send it with a body (behaviour §7): a body is accepted and ignored',
  tags: ['users', 'groups'],
  params: z.object({ user_id: Id, groupId: Id }),
  response: { 200: z.array(GroupUser) },
  roles: RESTRICTED_ROLES,
});
