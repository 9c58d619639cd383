import { useMutation, useQueryClient } from '@tanstack/react-query';
import { deleteUser } from '@uvd/contracts';
import type { ApiClient } from '../../../lib/api-client.ts';
import { useApi } from '../../../lib/api-context.tsx';
import { usersKey } from './get-users.ts';

/** Rejects when the reply does not hold the id (behaviour §7: a delete is done only when the server names it), so the caller toasts "… was not deleted". */
export const removeUser = async (api: ApiClient, id: string): Promise<void> => {
  const reply = await api.request(deleteUser, { params: { id } });
  if (!Object.hasOwn(reply.data, id)) throw new Error(`user ${id} was not deleted`);
};

export const useDeleteUser = () => {
  const api = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => removeUser(api, id),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: usersKey }),
  });
};
