/**
 * When a client tries again: the one schedule of the web console's live streams, shared with the server's tests
 * that play many consoles at once (apps/server/src/live/reconnect-storm.test.ts), so a test reconnects exactly as
 * the console does.
 */

export interface ReconnectBackoff {
  /** The window of the first retry; each failed attempt doubles it. */
  initialMs: number;
  /** The largest window. */
  maxMs: number;
}

/**
 * The wait before retry number `attempt` (0 for the first): "full jitter", a uniform draw from zero to the
 * exponential window min(maxMs, initialMs · 2^attempt). A server restart drops every console at the same moment;
 * waits of exactly 1, 2, 4 s would bring them back at the same moments too, while a draw over the window spreads
 * them over it. `random` is a number in [0, 1) (Math.random); a test passes its own.
 */
export const reconnectDelayMs = (attempt: number, { initialMs, maxMs }: ReconnectBackoff, random: () => number = Math.random): number => {
  const window = Math.min(maxMs, initialMs * 2 ** Math.max(0, attempt));
  return Math.round(window * Math.min(1, Math.max(0, random())));
};

/** Retry-After in seconds or as an HTTP date (RFC 9110 §10.2.3), in ms from `now`; null when absent or unreadable. */
export const retryAfterMs = (value: string | null | undefined, now: number = Date.now()): number | null => {
  if (value === null || value === undefined || value.trim() === '') return null;
  const ms = /^\d+$/.test(value.trim()) ? Number(value) * 1000 : Date.parse(value) - now;
  return Number.isNaN(ms) ? null : Math.max(0, ms);
};

/**
 * The wait after a refusal that carried Retry-After: at least what the server asked for, plus the attempt's jitter,
 * so consoles refused together do not all come back together. A wait beyond `capMs` is cut to it (a server's
 * mistake must not stop a console for hours).
 */
export const refusedDelayMs = (retryAfter: number, attempt: number, backoff: ReconnectBackoff, random: () => number = Math.random, capMs = 300_000): number =>
  Math.min(capMs, retryAfter) + reconnectDelayMs(attempt, backoff, random);
