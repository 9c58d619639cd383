/**
 * Standard Webhooks signing (https://www.standardwebhooks.com), by its reference library `standardwebhooks`:
 * `webhook-signature: v1,<base64 HMAC-SHA256 of "{webhook-id}.{webhook-timestamp}.{body}">` keyed with the
 * secret's bytes (the base64 after `whsec_`). Receivers verify with the same library or the few lines in README.md.
 */
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { WEBHOOK_SIGNATURE_HEADERS } from '@uvd/contracts';

const SECRET_PREFIX = 'whsec_';
/** The specification asks for 24 to 64 random bytes. */
const SECRET_BYTES = 32;

export const newWebhookSecret = (): string => `${SECRET_PREFIX}${randomBytes(SECRET_BYTES).toString('base64')}`;

export type SignatureHeaders = Record<(typeof WEBHOOK_SIGNATURE_HEADERS)[keyof typeof WEBHOOK_SIGNATURE_HEADERS], string>;

/**
 * The headers of one attempt. The id stays the same on every retry (a receiver drops a copy it has seen); the
 * timestamp is the attempt's, since receivers refuse a signature older than a few minutes (the library's
 * tolerance is 5), and a retry may come hours after the event.
 */
export function signatureHeaders(secret: string, messageId: string, body: string, at: Date = new Date()): SignatureHeaders {
  return {
    [WEBHOOK_SIGNATURE_HEADERS.id]: messageId,
    [WEBHOOK_SIGNATURE_HEADERS.timestamp]: String(Math.floor(at.getTime() / 1000)),
    [WEBHOOK_SIGNATURE_HEADERS.signature]: new Webhook(secret).sign(messageId, at, body),
  };
}
