import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ApiError, DeletedIds, Group, GroupUser } from '@uvd/contracts';
import { groups } from '../db/schema.ts';
import { isUniqueViolation } from '../db/unique-violation.ts';
import { startRouteTestServer, type TestServer } from '../testing/harness.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startRouteTestServer();
});
afterAll(async () => {
  await server.close();
});

const Groups = z.array(Group);
const Members = z.array(GroupUser);

describe('GET /api/group/groups', () => {
  it('lists every group of the organization for an admin, by name', async () => {
    const org = await server.createOrg();
    const b = await server.createGroup(org, 'Ward B');
    const a = await server.createGroup(org, 'Ward A');
    await server.createGroup(await server.createOrg(), 'Elsewhere');
    const admin = await server.createUser(org, ['done-admin']);
    const response = await server.request('GET', '/api/group/groups', { token: admin.token });
    expect(response.status).toBe(200);
    expect(Groups.parse(response.body)).toEqual([
      { id: a, name: 'Ward A' },
      { id: b, name: 'Ward B' },
    ]);
  });

  it('lists only their own groups for a teleoperator', async () => {
    const org = await server.createOrg();
    const mine = await server.createGroup(org, 'Mine');
    await server.createGroup(org, 'Not mine');
    const operator = await server.createUser(org, ['done-teleoperator'], { groupIds: [mine] });
    const response = await server.request('GET', '/api/group/groups', { token: operator.token });
    expect(Groups.parse(response.body)).toEqual([{ id: mine, name: 'Mine' }]);
  });

  it('answers 401 without a token', async () => {
    const response = await server.request('GET', '/api/group/groups');
    expect(response.status).toBe(401);
    ApiError.parse(response.body);
  });
});

describe('GET /api/group/group/{id}', () => {
  it('answers the group', async () => {
    const org = await server.createOrg();
    const id = await server.createGroup(org, 'Surgery');
    const admin = await server.createUser(org, ['done-superadmin']);
    const response = await server.request('GET', `/api/group/group/${id}`, { token: admin.token });
    expect(response.status).toBe(200);
    expect(Group.parse(response.body)).toEqual({ id, name: 'Surgery' });
  });

  it("answers a teleoperator's own group, and 404 for another group of the organization", async () => {
    const org = await server.createOrg();
    const mine = await server.createGroup(org);
    const other = await server.createGroup(org);
    const operator = await server.createUser(org, ['done-teleoperator'], { groupIds: [mine] });
    expect((await server.request('GET', `/api/group/group/${mine}`, { token: operator.token })).status).toBe(200);
    expect((await server.request('GET', `/api/group/group/${other}`, { token: operator.token })).status).toBe(404);
  });

  it('answers 400 naming the id for a malformed id', async () => {
    const admin = await server.createUser(await server.createOrg(), ['done-admin']);
    const response = await server.request('GET', '/api/group/group/not-a-uuid', { token: admin.token });
    expect(response.status).toBe(400);
    expect(ApiError.parse(response.body).message).toContain('"id"');
  });

  it("answers 404 for another organization's group", async () => {
    const foreign = await server.createGroup(await server.createOrg());
    const admin = await server.createUser(await server.createOrg(), ['done-admin']);
    const response = await server.request('GET', `/api/group/group/${foreign}`, { token: admin.token });
    expect(response.status).toBe(404);
    expect(ApiError.parse(response.body).error).toBe('not_found');
  });

  it('answers 401 without a token', async () => {
    const id = await server.createGroup(await server.createOrg());
    expect((await server.request('GET', `/api/group/group/${id}`)).status).toBe(401);
  });
});

describe('GET /api/group/group/{id}/users', () => {
  it('lists the members by username', async () => {
    const org = await server.createOrg();
    const group = await server.createGroup(org);
    const zed = await server.createUser(org, ['done-teleoperator'], { groupIds: [group], username: 'zed' });
    const amy = await server.createUser(org, ['done-teleoperator'], { groupIds: [group], username: 'amy' });
    await server.createUser(org, ['done-teleoperator'], { username: 'outsider' });
    const admin = await server.createUser(org, ['done-admin']);
    const response = await server.request('GET', `/api/group/group/${group}/users`, { token: admin.token });
    expect(response.status).toBe(200);
    expect(Members.parse(response.body)).toEqual([
      { id: amy.id, username: 'amy' },
      { id: zed.id, username: 'zed' },
    ]);
  });

  it('answers 400 for a malformed id, 401 without a token, 403 for a teleoperator', async () => {
    const org = await server.createOrg();
    const group = await server.createGroup(org);
    const admin = await server.createUser(org, ['done-admin']);
    const operator = await server.createUser(org, ['done-teleoperator'], { groupIds: [group] });
    expect((await server.request('GET', '/api/group/group/42/users', { token: admin.token })).status).toBe(400);
    expect((await server.request('GET', `/api/group/group/${group}/users`)).status).toBe(401);
    const forbidden = await server.request('GET', `/api/group/group/${group}/users`, { token: operator.token });
    expect(forbidden.status).toBe(403);
    expect(ApiError.parse(forbidden.body).error).toBe('forbidden');
  });

  it("answers 404 for another organization's group", async () => {
    const foreign = await server.createGroup(await server.createOrg());
    const admin = await server.createUser(await server.createOrg(), ['done-admin']);
    expect((await server.request('GET', `/api/group/group/${foreign}/users`, { token: admin.token })).status).toBe(404);
  });
});

describe('POST /api/group/create', () => {
  it('creates a group with the trimmed name, which then lists', async () => {
    const org = await server.createOrg();
    const admin = await server.createUser(org, ['done-admin']);
    const response = await server.request('POST', '/api/group/create', { token: admin.token, body: { name: '  ICU  ' } });
    expect(response.status).toBe(201);
    const group = Group.parse(response.body);
    expect(group.name).toBe('ICU');
    const list = await server.request('GET', '/api/group/groups', { token: admin.token });
    expect(Groups.parse(list.body)).toEqual([group]);
  });

  it('answers 400 with the documented message (behaviour §5) when the name is empty after trim, or missing', async () => {
    const org = await server.createOrg();
    const admin = await server.createUser(org, ['done-admin']);
    for (const body of [{ name: '   ' }, {}]) {
      const response = await server.request('POST', '/api/group/create', { token: admin.token, body });
      expect(response.status).toBe(400);
      const error = ApiError.parse(response.body);
      expect(error.message).toContain('"name"');
      expect(error.message).toContain('Group name is required.');
    }
    const list = await server.request('GET', '/api/group/groups', { token: admin.token });
    expect(list.body).toEqual([]);
  });

  it('answers 409 for a name the organization already uses, and allows it in another organization', async () => {
    const org = await server.createOrg();
    await server.createGroup(org, 'Ward C');
    const admin = await server.createUser(org, ['done-admin']);
    const response = await server.request('POST', '/api/group/create', { token: admin.token, body: { name: 'Ward C' } });
    expect(response.status).toBe(409);
    expect(ApiError.parse(response.body).message).toContain('Ward C');
    const elsewhere = await server.createUser(await server.createOrg(), ['done-admin']);
    expect((await server.request('POST', '/api/group/create', { token: elsewhere.token, body: { name: 'Ward C' } })).status).toBe(201);
  });

  it('recognises the database engine’s unique violation, which backs the 409 under races', async () => {
    const org = await server.createOrg();
    await server.createGroup(org, 'Twice');
    const error: unknown = await server.context.db
      .insert(groups)
      .values({ orgId: org, name: 'Twice' })
      .then(() => undefined, (caught: unknown) => caught);
    expect(isUniqueViolation(error)).toBe(true);
    expect(isUniqueViolation(new Error('other'))).toBe(false);
  });

  it('answers one 201 and otherwise 409 when admins race to create the same name', async () => {
    const admin = await server.createUser(await server.createOrg(), ['done-admin']);
    const replies = await Promise.all(
      Array.from({ length: 6 }, () => server.request('POST', '/api/group/create', { token: admin.token, body: { name: 'Race' } })),
    );
    expect(replies.map((reply) => reply.status).sort()).toEqual([201, 409, 409, 409, 409, 409]);
  });

  it('answers 401 without a token and 403 for a teleoperator', async () => {
    const operator = await server.createUser(await server.createOrg(), ['done-teleoperator']);
    expect((await server.request('POST', '/api/group/create', { body: { name: 'x' } })).status).toBe(401);
    expect((await server.request('POST', '/api/group/create', { token: operator.token, body: { name: 'x' } })).status).toBe(403);
  });
});

describe('DELETE /api/group/delete/{id}', () => {
  it('deletes the group and answers its id as a key of data; members stay users', async () => {
    const org = await server.createOrg();
    const group = await server.createGroup(org);
    const member = await server.createUser(org, ['done-teleoperator'], { groupIds: [group] });
    const admin = await server.createUser(org, ['done-admin']);
    const response = await server.request('DELETE', `/api/group/delete/${group}`, { token: admin.token });
    expect(response.status).toBe(200);
    expect(DeletedIds.parse(response.body).data[group]).toBe(true);
    expect((await server.request('GET', `/api/group/group/${group}`, { token: admin.token })).status).toBe(404);
    const username = await server.request('GET', `/api/user/user/${member.id}/username`, { token: admin.token });
    expect(username.status).toBe(200);
  });

  it('answers 400 for a malformed id, 401 without a token, 403 for a teleoperator', async () => {
    const org = await server.createOrg();
    const group = await server.createGroup(org);
    const admin = await server.createUser(org, ['done-admin']);
    const operator = await server.createUser(org, ['done-teleoperator'], { groupIds: [group] });
    const bad = await server.request('DELETE', '/api/group/delete/abc', { token: admin.token });
    expect(bad.status).toBe(400);
    expect(ApiError.parse(bad.body).message).toContain('"id"');
    expect((await server.request('DELETE', `/api/group/delete/${group}`)).status).toBe(401);
    expect((await server.request('DELETE', `/api/group/delete/${group}`, { token: operator.token })).status).toBe(403);
    expect((await server.request('GET', `/api/group/group/${group}`, { token: admin.token })).status).toBe(200);
  });

  it("answers 404 for another organization's group and leaves it", async () => {
    const foreignOrg = await server.createOrg();
    const foreign = await server.createGroup(foreignOrg);
    const admin = await server.createUser(await server.createOrg(), ['done-admin']);
    expect((await server.request('DELETE', `/api/group/delete/${foreign}`, { token: admin.token })).status).toBe(404);
    const owner = await server.createUser(foreignOrg, ['done-admin']);
    expect((await server.request('GET', `/api/group/group/${foreign}`, { token: owner.token })).status).toBe(200);
  });
});
