// Contracts of the contacts backend (behaviour §3, §7).
import { z } from 'zod';
import { Id, Text } from './common.ts';
import { DeletedIds } from './groups.ts';
import { RESTRICTED_ROLES } from './roles.ts';
import { defineRoute } from './route.ts';

/** Behaviour §3 contact: who to call about the robots (shown on the profile screen). */
export const Contact = z.object({
  id: Id,
  title: z.string(),
  name: z.string(),
  phone: z.string(),
  email: z.string(),
});
export type Contact = z.infer<typeof Contact>;

/** Behaviour §7: the admin list is read from `data.payload`; the profile list answers the same shape. */
export const ContactList = z.object({ data: z.object({ payload: z.array(Contact) }) });
export type ContactList = z.infer<typeof ContactList>;

/** Behaviour §5 "Add contact" messages (keys addContact.titleError … emailError). */
export const CONTACT_MESSAGES = {
  title: 'Title is required',
  name: 'Full name is required',
  phone: 'Phone Number is required',
  email: 'Invalid email format',
} as const;

const required = (message: string) => Text({ error: message }).trim().min(1, message).max(200);

export const CreateContactInput = z.object({
  title: required(CONTACT_MESSAGES.title),
  name: required(CONTACT_MESSAGES.name),
  phone: required(CONTACT_MESSAGES.phone),
  email: Text({ error: CONTACT_MESSAGES.email })
    .trim()
    .pipe(z.email(CONTACT_MESSAGES.email).max(254, CONTACT_MESSAGES.email)),
});
export type CreateContactInput = z.infer<typeof CreateContactInput>;

export const listContacts = defineRoute({
  method: 'GET',
  path: '/contact/profile/contacts',
  summary: 'Contacts of the organization, for the profile screen',
  tags: ['contacts'],
  response: { 200: ContactList },
});

export const listAdminContacts = defineRoute({
  method: 'GET',
  path: '/contact/admin/profile/contacts',
  summary: 'Contacts of the organization, for the admin dashboard',
  tags: ['contacts'],
  response: { 200: ContactList },
  roles: RESTRICTED_ROLES,
});

export const createContact = defineRoute({
  method: 'POST',
  path: '/contact/admin/profile/contacts',
  summary: 'Create a contact; the client counts it created when the reply has an id',
  tags: ['contacts'],
  body: CreateContactInput,
  response: { 201: Contact },
  roles: RESTRICTED_ROLES,
});

export const deleteContact = defineRoute({
  method: 'DELETE',
  path: '/contact/admin/profile/contacts/:id',
  summary: 'Delete a contact; the reply data holds the deleted id as a key',
  tags: ['contacts'],
  params: z.object({ id: Id }),
  response: { 200: DeletedIds },
  roles: RESTRICTED_ROLES,
});
