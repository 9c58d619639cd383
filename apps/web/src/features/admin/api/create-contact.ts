import { useMutation, useQueryClient } from '@tanstack/react-query';
import { createContact, type CreateContactInput } from '@uvd/contracts';
import type { ApiClient } from '../../../lib/api-client.ts';
import { useApi } from '../../../lib/api-context.tsx';
import { contactsKey } from './get-contacts.ts';

/** Behaviour §7: a contact counts as created only when the reply has an id. */
export const postContact = async (api: ApiClient, body: CreateContactInput) => {
  const reply = await api.request(createContact, { body });
  if (!reply.id) throw new Error('contact was not created');
  return reply;
};

export const useCreateContact = () => {
  const api = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: CreateContactInput) => postContact(api, body),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: contactsKey }),
  });
};
