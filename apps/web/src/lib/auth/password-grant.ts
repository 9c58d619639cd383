import { postToken } from '@uvd/contracts';
import type { TokenResponse } from '@uvd/contracts';
import { z } from 'zod';
// Types only: a value import of the API client would split it out of the first screen's bundle into a chunk of its own.
import type { HttpInstance, sendRequest } from '../api-client.ts';

/** Behaviour §5 sign-in rules; messages are translation keys. The realm is the organization, lowercase. */
export const SignInInput = z.object({
  organization: z.string().trim().toLowerCase().min(1, 'validation.required'),
  username: z.string().trim().min(1, 'validation.required'),
  password: z.string().trim().min(1, 'validation.required'),
});
export type SignInInput = z.input<typeof SignInInput>;

/**
 * Behaviour §7's password grant. Loaded with the sign-in form (which validates with the same schema), not with the
 * first screen: a stored session needs neither (auth-client.ts).
 */
export const passwordGrant = (
  send: typeof sendRequest,
  identity: HttpInstance,
  client_id: string,
  { organization, username, password }: z.output<typeof SignInInput>,
): Promise<TokenResponse> =>
  send(identity, postToken, {
    params: { organization },
    query: { scope: 'offline_access' },
    body: { client_id, username, password, grant_type: 'password', scope: 'openid' },
    form: true,
  });
