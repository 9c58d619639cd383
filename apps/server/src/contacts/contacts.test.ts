import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, Contact, ContactList, DeletedIds } from '@uvd/contracts';
import { contacts } from '../db/schema.ts';
import { startRouteTestServer, type TestServer } from '../testing/harness.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startRouteTestServer();
});
afterAll(async () => {
  await server.close();
});

const input = { title: 'Head nurse', name: 'Maija Meikäläinen', phone: '+358 40 123 4567', email: 'maija@hospital.test' };

async function insertContact(orgId: string, name = 'Someone') {
  const [row] = await server.context.db
    .insert(contacts)
    .values({ orgId, title: 'Technician', name, phone: '123', email: 'tech@hospital.test' })
    .returning({ id: contacts.id });
  if (!row) throw new Error('contact not inserted');
  return row.id;
}

describe('GET /api/contact/profile/contacts and /api/contact/admin/profile/contacts', () => {
  it('list the contacts of the organization in data.payload, by name', async () => {
    const org = await server.createOrg();
    const zoe = await insertContact(org, 'Zoe');
    const adam = await insertContact(org, 'Adam');
    await insertContact(await server.createOrg(), 'Foreign');
    const operator = await server.createUser(org, ['done-teleoperator']);
    const admin = await server.createUser(org, ['done-admin']);
    const mine = await server.request('GET', '/api/contact/profile/contacts', { token: operator.token });
    expect(mine.status).toBe(200);
    const list = ContactList.parse(mine.body).data.payload;
    expect(list.map((contact) => contact.id)).toEqual([adam, zoe]);
    expect(list[0]).toEqual({ id: adam, title: 'Technician', name: 'Adam', phone: '123', email: 'tech@hospital.test' });
    const adminList = await server.request('GET', '/api/contact/admin/profile/contacts', { token: admin.token });
    expect(adminList.status).toBe(200);
    expect(ContactList.parse(adminList.body)).toEqual(ContactList.parse(mine.body));
  });

  it('answer 401 without a token; the admin list answers 403 to a teleoperator', async () => {
    const operator = await server.createUser(await server.createOrg(), ['done-teleoperator']);
    expect((await server.request('GET', '/api/contact/profile/contacts')).status).toBe(401);
    expect((await server.request('GET', '/api/contact/admin/profile/contacts')).status).toBe(401);
    const forbidden = await server.request('GET', '/api/contact/admin/profile/contacts', { token: operator.token });
    expect(forbidden.status).toBe(403);
    expect(ApiError.parse(forbidden.body).error).toBe('forbidden');
  });
});

describe('POST /api/contact/admin/profile/contacts', () => {
  it('creates a contact and answers it with its id', async () => {
    const org = await server.createOrg();
    const admin = await server.createUser(org, ['done-superadmin']);
    const response = await server.request('POST', '/api/contact/admin/profile/contacts', {
      token: admin.token,
      body: { ...input, name: `  ${input.name}  ` },
    });
    expect(response.status).toBe(201);
    const contact = Contact.parse(response.body);
    expect(contact).toEqual({ id: contact.id, ...input });
    const list = ContactList.parse((await server.request('GET', '/api/contact/profile/contacts', { token: admin.token })).body);
    expect(list.data.payload).toEqual([contact]);
  });

  it('answers 400 with the documented messages (behaviour §5) naming the field, and writes nothing', async () => {
    const org = await server.createOrg();
    const admin = await server.createUser(org, ['done-admin']);
    const cases: [Record<string, unknown>, string, string][] = [
      [{ ...input, title: ' ' }, 'title', 'Title is required'],
      [{ ...input, name: '' }, 'name', 'Full name is required'],
      [{ ...input, phone: '' }, 'phone', 'Phone Number is required'],
      [{ ...input, email: 'maija@' }, 'email', 'Invalid email format'],
      [{ name: 'x', phone: '1', email: 'a@b.fi' }, 'title', 'Title is required'],
    ];
    for (const [body, field, message] of cases) {
      const response = await server.request('POST', '/api/contact/admin/profile/contacts', { token: admin.token, body });
      expect(response.status).toBe(400);
      expect(ApiError.parse(response.body).message).toBe(`Invalid body field "${field}": ${message}`);
    }
    const list = ContactList.parse((await server.request('GET', '/api/contact/profile/contacts', { token: admin.token })).body);
    expect(list.data.payload).toEqual([]);
  });

  it('answers 401 without a token and 403 for a teleoperator', async () => {
    const operator = await server.createUser(await server.createOrg(), ['done-teleoperator']);
    expect((await server.request('POST', '/api/contact/admin/profile/contacts', { body: input })).status).toBe(401);
    expect(
      (await server.request('POST', '/api/contact/admin/profile/contacts', { token: operator.token, body: input })).status,
    ).toBe(403);
  });
});

describe('DELETE /api/contact/admin/profile/contacts/{id}', () => {
  it('deletes the contact; the reply data holds the deleted id as a key', async () => {
    const org = await server.createOrg();
    const id = await insertContact(org);
    const admin = await server.createUser(org, ['done-admin']);
    const response = await server.request('DELETE', `/api/contact/admin/profile/contacts/${id}`, { token: admin.token });
    expect(response.status).toBe(200);
    expect(Object.keys(DeletedIds.parse(response.body).data)).toEqual([id]);
    const list = ContactList.parse((await server.request('GET', '/api/contact/profile/contacts', { token: admin.token })).body);
    expect(list.data.payload).toEqual([]);
    expect((await server.request('DELETE', `/api/contact/admin/profile/contacts/${id}`, { token: admin.token })).status).toBe(404);
  });

  it('answers 400 naming the id, 401 without a token, 403 for a teleoperator', async () => {
    const org = await server.createOrg();
    const id = await insertContact(org);
    const admin = await server.createUser(org, ['done-admin']);
    const operator = await server.createUser(org, ['done-teleoperator']);
    const bad = await server.request('DELETE', '/api/contact/admin/profile/contacts/1', { token: admin.token });
    expect(bad.status).toBe(400);
    expect(ApiError.parse(bad.body).message).toContain('"id"');
    expect((await server.request('DELETE', `/api/contact/admin/profile/contacts/${id}`)).status).toBe(401);
    expect((await server.request('DELETE', `/api/contact/admin/profile/contacts/${id}`, { token: operator.token })).status).toBe(403);
  });

  it("answers 404 for another organization's contact and leaves it", async () => {
    const foreignOrg = await server.createOrg();
    const foreign = await insertContact(foreignOrg);
    const admin = await server.createUser(await server.createOrg(), ['done-admin']);
    const response = await server.request('DELETE', `/api/contact/admin/profile/contacts/${foreign}`, { token: admin.token });
    expect(response.status).toBe(404);
    expect(ApiError.parse(response.body).error).toBe('not_found');
    const owner = await server.createUser(foreignOrg, ['done-teleoperator']);
    const list = ContactList.parse((await server.request('GET', '/api/contact/profile/contacts', { token: owner.token })).body);
    expect(list.data.payload.map((contact) => contact.id)).toEqual([foreign]);
  });
});
