import { postLogout, postRevoke } from '@uvd/contracts';
// Types only: a value import of the API client would split it out of the first screen's bundle into a chunk of its own.
import type { HttpInstance, sendRequest } from '../api-client.ts';
import type { SessionTokens } from '../storage.ts';

const quietly = (promise: Promise<unknown>): Promise<void> => promise.then(
  () => undefined,
  () => undefined,
);

/**
 * Revokes the access token and ends the session at the identity provider (behaviour §7), each step best effort: the
 * session ends on this device even when the provider cannot be reached. Loaded with the first logout, not with
 * the first screen (auth-client.ts).
 */
export const endSessionAtProvider = async (
  send: typeof sendRequest,
  identity: HttpInstance,
  client_id: string,
  stored: SessionTokens,
): Promise<void> => {
  const organization = stored.realm;
  await quietly(
    send(identity, postRevoke, {
      params: { organization },
      body: { client_id, token: stored.accessToken, token_type_hint: 'access_token' },
      form: true,
    }),
  );
  await quietly(
    send(identity, postLogout, {
      params: { organization },
      body: { client_id, refresh_token: stored.refreshToken },
      form: true,
      bearer: stored.accessToken,
    }),
  );
};
