/**
 * The stored copy of a refresh exchange's reply, for the grace window (REFRESH_TOKEN_GRACE_SECONDS): the same
 * refresh token presented again shortly after is answered with the very tokens it got the first time.
 *
 * Why a sealed copy rather than signing again: access and ID tokens are ES256, whose signatures are randomized, so
 * the same pair cannot be derived again; and the database holds no usable token today (refresh tokens are kept
 * only by their jti). The copy is therefore sealed with AES-256-GCM under a key derived from the presented refresh
 * token itself, which the database never holds: a copy of the table (a backup, a read-only leak) opens nothing,
 * and whoever can open it already held the token that was just exchanged. The copies are dropped by the sweep
 * once no grace window can still need them.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { TokenResponse } from '@uvd/contracts';

const INFO = 'uvd refresh reply v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

const keyOf = (refreshToken: string, secret: Uint8Array) =>
  Buffer.from(hkdfSync('sha256', Buffer.from(refreshToken, 'utf8'), secret, INFO, 32));

export function sealReply(reply: TokenResponse, refreshToken: string, secret: Uint8Array): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', keyOf(refreshToken, secret), iv);
  const sealed = Buffer.concat([cipher.update(JSON.stringify(reply), 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64url');
}

/** The reply sealed for `refreshToken`, or undefined when it was sealed for another token (or is damaged). */
export function openReply(sealed: string, refreshToken: string, secret: Uint8Array): TokenResponse | undefined {
  try {
    const bytes = Buffer.from(sealed, 'base64url');
    const decipher = createDecipheriv('aes-256-gcm', keyOf(refreshToken, secret), bytes.subarray(0, IV_BYTES));
    decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    const text = Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
    const reply = TokenResponse.safeParse(JSON.parse(text));
    return reply.success ? reply.data : undefined;
  } catch {
    return undefined;
  }
}
