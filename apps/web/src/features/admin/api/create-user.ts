import { useMutation, useQueryClient } from '@tanstack/react-query';
import { createUser, type CreateUserInput } from '@uvd/contracts';
import type { ApiClient } from '../../../lib/api-client.ts';
import { useApi } from '../../../lib/api-context.tsx';
import { usersKey } from './get-users.ts';

export const postUser = (api: ApiClient, body: CreateUserInput) => api.request(createUser, { body });

export const useCreateUser = () => {
  const api = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: CreateUserInput) => postUser(api, body),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: usersKey }),
  });
};
