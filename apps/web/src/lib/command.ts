import { IDEMPOTENCY_KEY_HEADER } from '@uvd/contracts';

/**
 * A new key: `crypto.randomUUID()`, which browsers offer only in secure contexts (HTTPS, localhost); a console
 * opened over plain HTTP on a local network gets 128 random bits in hex instead.
 */
export const newCommandKey = (source: Pick<Crypto, 'getRandomValues'> & Partial<Pick<Crypto, 'randomUUID'>> = crypto): string =>
  source.randomUUID
    ? source.randomUUID()
    : Array.from(source.getRandomValues(new Uint8Array(16)), (byte) => byte.toString(16).padStart(2, '0')).join('');

/**
 * The request parts of one command (a robot or job command, start now, a prompt's answer): a new Idempotency-Key
 * per user intent (a click), and `retry`, so the API client sends the same request, same key, again when its reply
 * is lost or the server asks to come back (503 Retry-After). The server gives every retry the first one's effect.
 * Apart from the API client so the contract module holding the header name stays out of the first page load.
 */
export const commandParts = (key: string = newCommandKey()) => ({ headers: { [IDEMPOTENCY_KEY_HEADER]: key }, retry: true });
