import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ApiError, DeletedIds, GroupUser, SessionUser, User, UserList, Username } from '@uvd/contracts';
import { sessions, users } from '../db/schema.ts';
import { verifyPassword } from '../identity/passwords.ts';
import { startRouteTestServer, type TestServer } from '../testing/harness.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startRouteTestServer();
});
afterAll(async () => {
  await server.close();
});

const Members = z.array(GroupUser);
const errorOf = (body: unknown) => ApiError.parse(body);

describe('GET /api/user/users', () => {
  it('lists the users of the organization in data, by username, with name, email, roles and groups', async () => {
    const org = await server.createOrg();
    const wardB = await server.createGroup(org, 'Ward B');
    const wardA = await server.createGroup(org, 'Ward A');
    const admin = await server.createUser(org, ['done-admin'], { username: 'b-admin' });
    const operator = await server.createUser(org, ['done-teleoperator'], { username: 'a-operator', groupIds: [wardB, wardA] });
    await server.createUser(await server.createOrg(), ['done-admin'], { username: 'a-foreigner' });
    const response = await server.request('GET', '/api/user/users', { token: admin.token });
    expect(response.status).toBe(200);
    const { data } = UserList.parse(response.body);
    expect(data.map((user) => user.username)).toEqual(['a-operator', 'b-admin']);
    expect(data[0]).toEqual({
      id: operator.id,
      username: 'a-operator',
      firstName: 'Test',
      lastName: 'a-operator',
      email: 'a-operator@example.test',
      roles: ['done-teleoperator'],
      groups: [
        { id: wardA, name: 'Ward A' },
        { id: wardB, name: 'Ward B' },
      ],
    });
    expect(data[1]?.groups).toEqual([]);
  });

  it('answers 401 without a token and 403 for a teleoperator', async () => {
    const operator = await server.createUser(await server.createOrg(), ['done-teleoperator']);
    expect((await server.request('GET', '/api/user/users')).status).toBe(401);
    expect((await server.request('GET', '/api/user/users', { token: 'not-a-jwt' })).status).toBe(401);
    expect((await server.request('GET', '/api/user/users', { token: operator.token })).status).toBe(403);
  });
});

describe('GET /api/user/my-profile', () => {
  it('answers the session user of behaviour §3 with the defaults EN and Europe/Helsinki', async () => {
    const org = await server.createOrg();
    const wardA = await server.createGroup(org, 'Ward A');
    const wardB = await server.createGroup(org, 'Ward B');
    await server.createGroup(org, 'Ward C');
    const operator = await server.createUser(org, ['done-teleoperator'], { groupIds: [wardB, wardA], username: 'nurse' });
    const response = await server.request('GET', '/api/user/my-profile', { token: operator.token });
    expect(response.status).toBe(200);
    expect(SessionUser.parse(response.body)).toEqual({
      sub: operator.id,
      roles: ['done-teleoperator'],
      realm_access: { roles: ['done-teleoperator'] },
      language: 'EN',
      timezone: 'Europe/Helsinki',
      name: 'Test nurse',
      given_name: 'Test',
      family_name: 'nurse',
      email: 'nurse@example.test',
      groups: ['Ward A', 'Ward B'],
      username: 'nurse',
      realm: org,
      must_change_password: false,
    });
  });

  it('shows saved settings and current groups at once, without a new token', async () => {
    const org = await server.createOrg();
    const admin = await server.createUser(org, ['done-superadmin']);
    const group = await server.createGroup(org, 'Joined later');
    const saved = await server.request('POST', '/api/settings/settings', {
      token: admin.token,
      body: { language: 'fi', timezone: 'America/New_York' },
    });
    expect(saved.status).toBe(200);
    expect((await server.request('PATCH', `/api/user/update/group/${group}`, { token: admin.token, body: [admin.id] })).status).toBe(200);
    const profile = SessionUser.parse((await server.request('GET', '/api/user/my-profile', { token: admin.token })).body);
    expect(profile).toMatchObject({ language: 'FI', timezone: 'America/New_York', groups: ['Joined later'], roles: ['done-superadmin'] });
  });

  it('answers 401 without a token and with a tampered token', async () => {
    const user = await server.createUser(await server.createOrg(), ['done-admin']);
    expect((await server.request('GET', '/api/user/my-profile')).status).toBe(401);
    const [header, payload, signature = ''] = user.token.split('.');
    const tampered = `${header}.${payload}.${signature.slice(0, -4)}AAAA`;
    const response = await server.request('GET', '/api/user/my-profile', { token: tampered });
    expect(response.status).toBe(401);
    expect(errorOf(response.body).error).toBe('unauthorized');
  });

  it('answers 401 once the user of the token was deleted', async () => {
    const org = await server.createOrg();
    const admin = await server.createUser(org, ['done-admin']);
    const gone = await server.createUser(org, ['done-teleoperator']);
    expect((await server.request('DELETE', `/api/user/delete/${gone.id}`, { token: admin.token })).status).toBe(200);
    const response = await server.request('GET', '/api/user/my-profile', { token: gone.token });
    expect(response.status).toBe(401);
    expect(errorOf(response.body).message).toBe('The user of this token no longer exists.');
  });

  it('accepts a token from the password grant of the built-in identity provider', async () => {
    const org = await server.createOrg();
    const user = await server.createUser(org, ['done-admin']);
    const grant = await server.request<{ access_token?: string }>('POST', `/idp/realms/${org}/protocol/openid-connect/token`, {
      query: { scope: 'offline_access' },
      form: { client_id: 'uvd-console', username: user.username, password: user.password, grant_type: 'password', scope: 'openid' },
    });
    expect(grant.status).toBe(200);
    const response = await server.request('GET', '/api/user/my-profile', { token: grant.body.access_token });
    expect(response.status).toBe(200);
    expect(SessionUser.parse(response.body)).toMatchObject({ sub: user.id, username: user.username, realm: org });
  });
});

describe('GET /api/user/user/{id}/username', () => {
  it('answers the username to any role of the organization', async () => {
    const org = await server.createOrg();
    const admin = await server.createUser(org, ['done-admin'], { username: 'the-admin' });
    const operator = await server.createUser(org, ['done-teleoperator']);
    const response = await server.request('GET', `/api/user/user/${admin.id}/username`, { token: operator.token });
    expect(response.status).toBe(200);
    expect(Username.parse(response.body)).toEqual({ username: 'the-admin' });
  });

  it('answers 400 naming the id, 401 without a token, 404 for another organization’s user', async () => {
    const admin = await server.createUser(await server.createOrg(), ['done-admin']);
    const foreign = await server.createUser(await server.createOrg(), ['done-admin']);
    const bad = await server.request('GET', '/api/user/user/nope/username', { token: admin.token });
    expect(bad.status).toBe(400);
    expect(errorOf(bad.body).message).toContain('"id"');
    expect((await server.request('GET', `/api/user/user/${admin.id}/username`)).status).toBe(401);
    const missing = await server.request('GET', `/api/user/user/${foreign.id}/username`, { token: admin.token });
    expect(missing.status).toBe(404);
    expect(errorOf(missing.body).error).toBe('not_found');
  });
});

describe('POST /api/user/create', () => {
  const input = { firstName: ' Ada ', lastName: ' Lovelace ', email: ' Ada.Lovelace@Example.COM ', password: 'correct horse' };

  it('creates a done-teleoperator whose username is the lowercased email, with an argon2id hash', async () => {
    const org = await server.createOrg();
    const admin = await server.createUser(org, ['done-admin']);
    const response = await server.request('POST', '/api/user/create', { token: admin.token, body: input });
    expect(response.status).toBe(201);
    const user = User.parse(response.body);
    expect(user).toEqual({
      id: user.id,
      username: 'ada.lovelace@example.com',
      firstName: 'Ada',
      lastName: 'Lovelace',
      email: 'ada.lovelace@example.com',
      roles: ['done-teleoperator'],
      groups: [],
    });
    const [row] = await server.context.db.select().from(users).where(eq(users.id, user.id));
    expect(row?.orgId).toBe(org);
    expect(row?.passwordHash).toMatch(/^\$argon2id\$/);
    expect(await verifyPassword(row?.passwordHash ?? '', 'correct horse')).toBe(true);
    const list = UserList.parse((await server.request('GET', '/api/user/users', { token: admin.token })).body);
    expect(list.data.map((u) => u.id)).toContain(user.id);
  });

  it('answers 400 with the documented messages (behaviour §5) naming the field, and writes nothing', async () => {
    const org = await server.createOrg();
    const admin = await server.createUser(org, ['done-admin']);
    const cases: [Record<string, unknown>, string, string][] = [
      [{ ...input, firstName: '  ' }, 'firstName', 'First name is required'],
      [{ ...input, lastName: '' }, 'lastName', 'Last name is required'],
      [{ ...input, email: 'not-an-email' }, 'email', 'Invalid email format'],
      [{ ...input, password: 'short' }, 'password', 'Password should be at least 8 characters long'],
      [{ firstName: 'A', lastName: 'B', password: 'long enough' }, 'email', 'Invalid email format'],
    ];
    for (const [body, field, message] of cases) {
      const response = await server.request('POST', '/api/user/create', { token: admin.token, body });
      expect(response.status).toBe(400);
      const error = errorOf(response.body);
      expect(error.message).toBe(`Invalid body field "${field}": ${message}`);
    }
    const list = UserList.parse((await server.request('GET', '/api/user/users', { token: admin.token })).body);
    expect(list.data).toHaveLength(1);
  });

  it('answers 409 when the email is taken in the organization, whatever its case', async () => {
    const org = await server.createOrg();
    const admin = await server.createUser(org, ['done-admin']);
    expect((await server.request('POST', '/api/user/create', { token: admin.token, body: input })).status).toBe(201);
    const again = await server.request('POST', '/api/user/create', {
      token: admin.token,
      body: { ...input, email: 'ADA.LOVELACE@example.com' },
    });
    expect(again.status).toBe(409);
    expect(errorOf(again.body).error).toBe('conflict');
    const elsewhere = await server.createUser(await server.createOrg(), ['done-admin']);
    expect((await server.request('POST', '/api/user/create', { token: elsewhere.token, body: input })).status).toBe(201);
  });

  it('answers one 201 and otherwise 409 when admins race to create the same user', async () => {
    const org = await server.createOrg();
    const admin = await server.createUser(org, ['done-admin']);
    const replies = await Promise.all(
      Array.from({ length: 4 }, () => server.request('POST', '/api/user/create', { token: admin.token, body: input })),
    );
    expect(replies.map((reply) => reply.status).sort()).toEqual([201, 409, 409, 409]);
  });

  it('gives the new user the chosen role and groups, in one go', async () => {
    const org = await server.createOrg();
    const admin = await server.createUser(org, ['done-admin']);
    const wardA = await server.createGroup(org, 'Ward A');
    const wardB = await server.createGroup(org, 'Ward B');
    const response = await server.request('POST', '/api/user/create', {
      token: admin.token,
      body: { ...input, role: 'done-admin', groupIds: [wardB, wardA, wardB] },
    });
    expect(response.status).toBe(201);
    const created = User.parse(response.body);
    const expected = {
      roles: ['done-admin'],
      groups: [
        { id: wardA, name: 'Ward A' },
        { id: wardB, name: 'Ward B' },
      ],
    };
    expect(created).toMatchObject(expected);
    const list = UserList.parse((await server.request('GET', '/api/user/users', { token: admin.token })).body);
    expect(list.data.find((user) => user.id === created.id)).toMatchObject(expected);
    const members = Members.parse((await server.request('GET', `/api/group/group/${wardA}/users`, { token: admin.token })).body);
    expect(members.map((member) => member.id)).toContain(created.id);
    // The role and groups are those the new user's session carries.
    const login = await server.request<{ access_token?: string }>('POST', `/idp/realms/${org}/protocol/openid-connect/token`, {
      form: { client_id: 'uvd-console', grant_type: 'password', username: created.username, password: input.password, scope: 'openid' },
    });
    expect(login.status).toBe(200);
    const profile = SessionUser.parse((await server.request('GET', '/api/user/my-profile', { token: login.body.access_token })).body);
    expect(profile).toMatchObject({ roles: ['done-admin'], groups: ['Ward A', 'Ward B'] });
  });

  it('lets only a done-superadmin make a done-superadmin (403, nothing written)', async () => {
    const org = await server.createOrg();
    const admin = await server.createUser(org, ['done-admin']);
    const refused = await server.request('POST', '/api/user/create', { token: admin.token, body: { ...input, role: 'done-superadmin' } });
    expect(refused.status).toBe(403);
    expect(errorOf(refused.body).message).toMatch(/done-superadmin/);
    expect(UserList.parse((await server.request('GET', '/api/user/users', { token: admin.token })).body).data).toHaveLength(1);
    const superadmin = await server.createUser(org, ['done-superadmin']);
    const made = await server.request('POST', '/api/user/create', { token: superadmin.token, body: { ...input, role: 'done-superadmin' } });
    expect(made.status).toBe(201);
    expect(User.parse(made.body).roles).toEqual(['done-superadmin']);
  });

  it("answers 404 naming an unknown or another organization's group, and writes nothing", async () => {
    const org = await server.createOrg();
    const admin = await server.createUser(org, ['done-admin']);
    const ward = await server.createGroup(org, 'Ward A');
    const foreign = await server.createGroup(await server.createOrg(), 'Ward A');
    const response = await server.request('POST', '/api/user/create', { token: admin.token, body: { ...input, groupIds: [ward, foreign] } });
    expect(response.status).toBe(404);
    const error = errorOf(response.body);
    expect(error.message).toBe(`Group was not found: ${foreign}.`);
    expect(error.details).toEqual({ field: 'groupIds', ids: [foreign] });
    expect(UserList.parse((await server.request('GET', '/api/user/users', { token: admin.token })).body).data).toHaveLength(1);
    const badRole = await server.request('POST', '/api/user/create', { token: admin.token, body: { ...input, role: 'root' } });
    expect(badRole.status).toBe(400);
    expect(errorOf(badRole.body).message).toMatch(/role/);
  });

  it('answers 401 without a token and 403 for a teleoperator', async () => {
    const operator = await server.createUser(await server.createOrg(), ['done-teleoperator']);
    expect((await server.request('POST', '/api/user/create', { body: input })).status).toBe(401);
    expect((await server.request('POST', '/api/user/create', { token: operator.token, body: input })).status).toBe(403);
  });
});

describe('DELETE /api/user/delete/{id}', () => {
  it('deletes the user, answers the id as a key of data, and ends their sessions', async () => {
    const org = await server.createOrg();
    const admin = await server.createUser(org, ['done-admin']);
    const operator = await server.createUser(org, ['done-teleoperator']);
    await server.context.db.insert(sessions).values({ orgId: org, userId: operator.id, expiresAt: new Date(Date.now() + 60_000) });
    const response = await server.request('DELETE', `/api/user/delete/${operator.id}`, { token: admin.token });
    expect(response.status).toBe(200);
    expect(DeletedIds.parse(response.body).data[operator.id]).toBe(true);
    expect((await server.request('GET', `/api/user/user/${operator.id}/username`, { token: admin.token })).status).toBe(404);
    expect(await server.context.db.select().from(sessions).where(eq(sessions.userId, operator.id))).toEqual([]);
  });

  it('refuses to delete yourself with 409 cannot_delete_self and a clear message, and keeps the account', async () => {
    const admin = await server.createUser(await server.createOrg(), ['done-admin']);
    const response = await server.request('DELETE', `/api/user/delete/${admin.id}`, { token: admin.token });
    expect(response.status).toBe(409);
    expect(errorOf(response.body)).toEqual({ error: 'cannot_delete_self', message: 'You cannot delete your own account.' });
    expect((await server.request('GET', '/api/user/my-profile', { token: admin.token })).status).toBe(200);
  });

  it('lets only a done-superadmin delete a done-superadmin', async () => {
    const org = await server.createOrg();
    const admin = await server.createUser(org, ['done-admin']);
    const superadmin = await server.createUser(org, ['done-superadmin']);
    const otherSuper = await server.createUser(org, ['done-superadmin']);
    expect((await server.request('DELETE', `/api/user/delete/${superadmin.id}`, { token: admin.token })).status).toBe(403);
    expect((await server.request('DELETE', `/api/user/delete/${superadmin.id}`, { token: otherSuper.token })).status).toBe(200);
  });

  it('answers 400 for a malformed id, 401 without a token, 403 for a teleoperator', async () => {
    const org = await server.createOrg();
    const admin = await server.createUser(org, ['done-admin']);
    const operator = await server.createUser(org, ['done-teleoperator']);
    const bad = await server.request('DELETE', '/api/user/delete/123', { token: admin.token });
    expect(bad.status).toBe(400);
    expect(errorOf(bad.body).message).toContain('"id"');
    expect((await server.request('DELETE', `/api/user/delete/${admin.id}`)).status).toBe(401);
    expect((await server.request('DELETE', `/api/user/delete/${admin.id}`, { token: operator.token })).status).toBe(403);
  });

  it("answers 404 for another organization's user and leaves them", async () => {
    const foreign = await server.createUser(await server.createOrg(), ['done-teleoperator']);
    const admin = await server.createUser(await server.createOrg(), ['done-admin']);
    expect((await server.request('DELETE', `/api/user/delete/${foreign.id}`, { token: admin.token })).status).toBe(404);
    expect(await server.context.db.select({ id: users.id }).from(users).where(eq(users.id, foreign.id))).toHaveLength(1);
  });
});

describe('PATCH /api/user/update/group/{groupId}', () => {
  it('adds users to the group and answers its members; members already in it stay', async () => {
    const org = await server.createOrg();
    const group = await server.createGroup(org);
    const admin = await server.createUser(org, ['done-admin'], { username: 'admin' });
    const already = await server.createUser(org, ['done-teleoperator'], { groupIds: [group], username: 'already' });
    const joining = await server.createUser(org, ['done-teleoperator'], { username: 'joining' });
    const response = await server.request('PATCH', `/api/user/update/group/${group}`, {
      token: admin.token,
      body: [joining.id, already.id, joining.id],
    });
    expect(response.status).toBe(200);
    expect(Members.parse(response.body)).toEqual([
      { id: already.id, username: 'already' },
      { id: joining.id, username: 'joining' },
    ]);
    const groups = await server.request('GET', '/api/group/groups', { token: joining.token });
    expect(groups.body).toEqual([{ id: group, name: expect.any(String) as string }]);
  });

  it('answers 400 for an empty list or a malformed id, writing nothing', async () => {
    const org = await server.createOrg();
    const group = await server.createGroup(org);
    const admin = await server.createUser(org, ['done-admin']);
    const empty = await server.request('PATCH', `/api/user/update/group/${group}`, { token: admin.token, body: [] });
    expect(empty.status).toBe(400);
    expect(errorOf(empty.body).message).toContain('At least one user id is required');
    const malformed = await server.request('PATCH', `/api/user/update/group/${group}`, { token: admin.token, body: [admin.id, 'x'] });
    expect(malformed.status).toBe(400);
    expect(errorOf(malformed.body).message).toContain('"1"');
    const badGroup = await server.request('PATCH', '/api/user/update/group/x', { token: admin.token, body: [admin.id] });
    expect(badGroup.status).toBe(400);
    expect(errorOf(badGroup.body).message).toContain('"groupId"');
    expect((await server.request('GET', `/api/group/group/${group}/users`, { token: admin.token })).body).toEqual([]);
  });

  it('answers 401 without a token and 403 for a teleoperator', async () => {
    const org = await server.createOrg();
    const group = await server.createGroup(org);
    const operator = await server.createUser(org, ['done-teleoperator']);
    expect((await server.request('PATCH', `/api/user/update/group/${group}`, { body: [operator.id] })).status).toBe(401);
    expect(
      (await server.request('PATCH', `/api/user/update/group/${group}`, { token: operator.token, body: [operator.id] })).status,
    ).toBe(403);
  });

  it("answers 404 for another organization's group or user, adding no one", async () => {
    const org = await server.createOrg();
    const group = await server.createGroup(org);
    const admin = await server.createUser(org, ['done-admin']);
    const foreignOrg = await server.createOrg();
    const foreignGroup = await server.createGroup(foreignOrg);
    const foreignUser = await server.createUser(foreignOrg, ['done-teleoperator']);
    expect((await server.request('PATCH', `/api/user/update/group/${foreignGroup}`, { token: admin.token, body: [admin.id] })).status).toBe(404);
    const mixed = await server.request('PATCH', `/api/user/update/group/${group}`, { token: admin.token, body: [admin.id, foreignUser.id] });
    expect(mixed.status).toBe(404);
    expect(errorOf(mixed.body).details).toEqual({ ids: [foreignUser.id] });
    expect((await server.request('GET', `/api/group/group/${group}/users`, { token: admin.token })).body).toEqual([]);
  });
});

describe('DELETE /api/user/delete/group/{user_id}/{groupId}', () => {
  it('removes the user from the group, with or without a body, and answers the remaining members', async () => {
    const org = await server.createOrg();
    const group = await server.createGroup(org);
    const admin = await server.createUser(org, ['done-admin']);
    const stays = await server.createUser(org, ['done-teleoperator'], { groupIds: [group], username: 'stays' });
    const leaves = await server.createUser(org, ['done-teleoperator'], { groupIds: [group], username: 'leaves' });
    const response = await server.request('DELETE', `/api/user/delete/group/${leaves.id}/${group}`, {
      token: admin.token,
      body: [leaves.id],
    });
    expect(response.status).toBe(200);
    expect(Members.parse(response.body)).toEqual([{ id: stays.id, username: 'stays' }]);
    const again = await server.request('DELETE', `/api/user/delete/group/${stays.id}/${group}`, { token: admin.token });
    expect(again.status).toBe(200);
    expect(again.body).toEqual([]);
  });

  it('answers 400 naming the malformed id, 401 without a token, 403 for a teleoperator', async () => {
    const org = await server.createOrg();
    const group = await server.createGroup(org);
    const admin = await server.createUser(org, ['done-admin']);
    const operator = await server.createUser(org, ['done-teleoperator'], { groupIds: [group] });
    const bad = await server.request('DELETE', `/api/user/delete/group/zzz/${group}`, { token: admin.token });
    expect(bad.status).toBe(400);
    expect(errorOf(bad.body).message).toContain('"user_id"');
    const path = `/api/user/delete/group/${operator.id}/${group}`;
    expect((await server.request('DELETE', path)).status).toBe(401);
    expect((await server.request('DELETE', path, { token: operator.token })).status).toBe(403);
  });

  it("answers 404 for another organization's user or group", async () => {
    const org = await server.createOrg();
    const group = await server.createGroup(org);
    const admin = await server.createUser(org, ['done-admin'], { groupIds: [group] });
    const foreignOrg = await server.createOrg();
    const foreignGroup = await server.createGroup(foreignOrg);
    const foreignUser = await server.createUser(foreignOrg, ['done-teleoperator'], { groupIds: [foreignGroup] });
    expect((await server.request('DELETE', `/api/user/delete/group/${foreignUser.id}/${group}`, { token: admin.token })).status).toBe(404);
    expect((await server.request('DELETE', `/api/user/delete/group/${admin.id}/${foreignGroup}`, { token: admin.token })).status).toBe(404);
    const owner = await server.createUser(foreignOrg, ['done-admin']);
    expect((await server.request('GET', `/api/group/group/${foreignGroup}/users`, { token: owner.token })).body).toHaveLength(1);
  });
});

describe('OpenAPI document', () => {
  it('describes the people calls from their contracts', async () => {
    const response = await server.request<{ paths: Record<string, Record<string, unknown>> }>('GET', '/api/docs/json');
    expect(response.status).toBe(200);
    const paths = Object.keys(response.body.paths);
    for (const path of [
      '/user/my-profile',
      '/user/create',
      '/user/update/group/{groupId}',
      '/user/delete/group/{user_id}/{groupId}',
      '/group/create',
      '/contact/admin/profile/contacts/{id}',
      '/settings/timezones',
      '/remove',
    ]) {
      expect(paths.some((documented) => documented.endsWith(path))).toBe(true);
    }
  });
});
