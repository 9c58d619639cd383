import { useMutation, useQueryClient } from '@tanstack/react-query';
import { createGroup, type CreateGroupInput } from '@uvd/contracts';
import type { ApiClient } from '../../../lib/api-client.ts';
import { useApi } from '../../../lib/api-context.tsx';
import { groupsKey } from './get-groups.ts';

export const postGroup = (api: ApiClient, body: CreateGroupInput) => api.request(createGroup, { body });

export const useCreateGroup = () => {
  const api = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: CreateGroupInput) => postGroup(api, body),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: groupsKey }),
  });
};
