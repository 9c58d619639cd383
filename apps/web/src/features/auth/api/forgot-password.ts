import { useMutation } from '@tanstack/react-query';
import { forgotPassword, type ForgotPasswordInput } from '@uvd/contracts';
import { useApi } from '../../../lib/api-context.tsx';

/** Asks for a reset link by mail; the same reply whether or not the account exists. */
export const useForgotPassword = () => {
  const api = useApi();
  return useMutation({ mutationFn: (body: ForgotPasswordInput) => api.request(forgotPassword, { body }) });
};
