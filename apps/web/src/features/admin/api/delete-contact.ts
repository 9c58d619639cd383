import { useMutation, useQueryClient } from '@tanstack/react-query';
import { deleteContact } from '@uvd/contracts';
import type { ApiClient } from '../../../lib/api-client.ts';
import { useApi } from '../../../lib/api-context.tsx';
import { contactsKey } from './get-contacts.ts';

/** Rejects when the reply does not hold the id (behaviour §7: a delete is done only when the server names it), so the caller toasts "… was not deleted". */
export const removeContact = async (api: ApiClient, id: string): Promise<void> => {
  const reply = await api.request(deleteContact, { params: { id } });
  if (!Object.hasOwn(reply.data, id)) throw new Error(`contact ${id} was not deleted`);
};

export const useDeleteContact = () => {
  const api = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => removeContact(api, id),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: contactsKey }),
  });
};
