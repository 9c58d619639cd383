import { useMutation } from '@tanstack/react-query';
import { SetPasswordInput, setUserPassword } from '@uvd/contracts';
import { useApi } from '../../../lib/api-context.tsx';

/** The form validates with the contract's own schema, the one the server checks the body with. */
export const setPasswordInputSchema = SetPasswordInput;

/** An admin sets a user's password; the user must change it at their next sign-in. */
export const useSetUserPassword = () => {
  const api = useApi();
  return useMutation({
    mutationFn: ({ userId, password }: { userId: string; password: string }) => api.request(setUserPassword, { params: { id: userId }, body: { password } }),
  });
};
