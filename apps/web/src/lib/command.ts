import { IDEMPOTENCY_KEY_HEADER } from '@uvd/contracts';

/**
 * The request parts of one command (a robot or job command, start now, a prompt's answer): a new Idempotency-Key
 * per user intent (a click), and `retry`, so the API client sends the same request, same key, again when its reply
 * is lost or the server asks to come back (503 Retry-After). The server gives every retry the first one's effect.
 * Apart from the API client so the contract module holding the header name stays out of the first page load.
 */
export const commandParts = (key: string = crypto.randomUUID()) => ({ headers: { [IDEMPOTENCY_KEY_HEADER]: key }, retry: true });
