import { useMutation } from '@tanstack/react-query';
import { resetPassword, type ResetPasswordInput } from '@uvd/contracts';
import { useApi } from '../../../lib/api-context.tsx';

/** Sets a new password with the token of a mailed link; answers whom it was for. */
export const useResetPassword = () => {
  const api = useApi();
  return useMutation({ mutationFn: (body: ResetPasswordInput) => api.request(resetPassword, { body }) });
};
