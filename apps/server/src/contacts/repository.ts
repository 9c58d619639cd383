import { and, asc, eq } from 'drizzle-orm';
import type { Contact, CreateContactInput } from '@uvd/contracts';
import type { Executor } from '../db/client.ts';
import { contacts } from '../db/schema.ts';

const contactColumns = {
  id: contacts.id,
  title: contacts.title,
  name: contacts.name,
  phone: contacts.phone,
  email: contacts.email,
};

export async function listContacts(db: Executor, orgId: string): Promise<Contact[]> {
  return db
    .select(contactColumns)
    .from(contacts)
    .where(eq(contacts.orgId, orgId))
    .orderBy(asc(contacts.name), asc(contacts.id));
}

export async function insertContact(db: Executor, orgId: string, input: CreateContactInput): Promise<Contact> {
  const [row] = await db
    .insert(contacts)
    .values({ orgId, ...input })
    .returning(contactColumns);
  if (!row) throw new Error('INSERT … RETURNING gave no row');
  return row;
}

export async function deleteContact(db: Executor, orgId: string, id: string): Promise<boolean> {
  const rows = await db
    .delete(contacts)
    .where(and(eq(contacts.orgId, orgId), eq(contacts.id, id)))
    .returning({ id: contacts.id });
  return rows.length > 0;
}
