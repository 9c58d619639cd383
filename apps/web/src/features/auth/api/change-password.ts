import { useMutation } from '@tanstack/react-query';
import { changeMyPassword, type ChangePasswordInput } from '@uvd/contracts';
import { useApi } from '../../../lib/api-context.tsx';

/** The signed-in user's new password; the server then ends every session, so the caller signs in again with it. */
export const useChangePassword = () => {
  const api = useApi();
  return useMutation({ mutationFn: (body: ChangePasswordInput) => api.request(changeMyPassword, { body }) });
};
