/**
 * One POST of a signed event to a receiver. node:http(s) rather than fetch: only it takes a `lookup`, which is
 * where a host name's addresses are checked (url.ts). Redirects are not followed (a 3xx is an answer like any
 * other non-2xx, retried): a receiver cannot send the server elsewhere.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { hostOf, isPrivateAddress, publicOnlyLookup, RefusedAddressError } from './url.ts';

export type SendResult =
  | { kind: 'answered'; status: number; retryAfterMs: number | undefined }
  /** No answer: refused connection, DNS failure, timeout, reset. */
  | { kind: 'unreachable'; reason: string }
  /** The URL's host resolves (or was changed) to an address the rules refuse: not worth retrying. */
  | { kind: 'refused'; reason: string };

export interface SendRequest {
  url: string;
  body: string;
  headers: Record<string, string>;
  /** Hosts exempt from the public-address rule (WEBHOOK_HOSTS). */
  allowedHosts: readonly string[];
  timeoutMs: number;
}

/** A receiver's answer is not read beyond this: its status is all that counts. */
const MAX_READ_BYTES = 64 * 1024;

/** Retry-After in seconds or as an HTTP date, in milliseconds from now. */
export function retryAfterMs(header: string | undefined, now = Date.now()): number | undefined {
  if (!header) return undefined;
  if (/^\d+$/.test(header.trim())) return Number(header.trim()) * 1000;
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

const drain = (response: IncomingMessage) => {
  let read = 0;
  response.on('data', (chunk: Buffer) => {
    read += chunk.length;
    if (read > MAX_READ_BYTES) response.destroy();
  });
  response.on('error', () => undefined);
};

export function sendWebhook(input: SendRequest): Promise<SendResult> {
  const url = new URL(input.url);
  const host = hostOf(url);
  const allowed = input.allowedHosts.includes(host);
  // Checked when the URL was saved; again here, as WEBHOOK_HOSTS may have changed since.
  if (!allowed && (url.protocol !== 'https:' || isPrivateAddress(host))) {
    return Promise.resolve({ kind: 'refused', reason: `${url.protocol}//${host} is not allowed (https to a public address, or a host in WEBHOOK_HOSTS)` });
  }
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve) => {
    const req = request(
      url,
      {
        method: 'POST',
        headers: {
          ...input.headers,
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(input.body)),
          'user-agent': 'uvd-console-webhooks/1',
        },
        signal: AbortSignal.timeout(input.timeoutMs),
        ...(allowed ? {} : { lookup: publicOnlyLookup(host) }),
      },
      (response) => {
        resolve({ kind: 'answered', status: response.statusCode ?? 0, retryAfterMs: retryAfterMs(response.headers['retry-after']) });
        drain(response);
      },
    );
    req.on('error', (error) => {
      if (error instanceof RefusedAddressError) resolve({ kind: 'refused', reason: error.message });
      else resolve({ kind: 'unreachable', reason: error.name === 'AbortError' || error.name === 'TimeoutError' ? `no answer within ${input.timeoutMs} ms` : error.message });
    });
    req.end(input.body);
  });
}
