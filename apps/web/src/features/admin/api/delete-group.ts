import { useMutation, useQueryClient } from '@tanstack/react-query';
import { deleteGroup } from '@uvd/contracts';
import type { ApiClient } from '../../../lib/api-client.ts';
import { useApi } from '../../../lib/api-context.tsx';
import { groupsKey } from './get-groups.ts';

/** Rejects when the reply does not hold the id (behaviour §7: a delete is done only when the server names it), so the caller toasts "… was not deleted". */
export const removeGroup = async (api: ApiClient, id: string): Promise<void> => {
  const reply = await api.request(deleteGroup, { params: { id } });
  if (!Object.hasOwn(reply.data, id)) throw new Error(`group ${id} was not deleted`);
};

export const useDeleteGroup = () => {
  const api = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => removeGroup(api, id),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: groupsKey }),
  });
};
