/**
 * A local receiver of webhooks over real HTTP, as an integrator would run one: it verifies each request's
 * Standard Webhooks signature twice, with the reference library (`standardwebhooks`) and with the few lines of
 * node:crypto that webhooks/README.md shows, and parses the body with the contract. A path's answers can be set
 * (500 then 200, …), or held unanswered (a receiver hanging mid-request).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { WebhookPayload } from '@uvd/contracts';

export interface ReceivedWebhook {
  path: string;
  /** The `webhook-id` header: the same on every attempt of one delivery. */
  id: string;
  timestamp: string;
  signature: string;
  body: string;
  /** The body as the contract reads it; undefined when it does not match. */
  payload: WebhookPayload | undefined;
  /** Verified by the library against the path's secret (false without one). */
  verifiedByLibrary: boolean;
  /** Verified by README.md's node:crypto code. */
  verifiedByHand: boolean;
  /** What the receiver answered (0: held, never answered). */
  answered: number;
}

export interface WebhookReceiver {
  /** An address of this receiver: http://127.0.0.1:{port}/{path}. */
  url(path: string): string;
  /** The secret requests to `path` are verified with. */
  expectSecret(path: string, secret: string): void;
  /** The statuses the next requests to `path` get, in turn; 200 after them. */
  answer(path: string, statuses: readonly number[], headers?: Record<string, string>): void;
  /** While on, requests get no answer at all; they are not counted as received. */
  hold(on: boolean): void;
  held(): number;
  /** Every request answered, oldest first. */
  readonly received: ReceivedWebhook[];
  /** Requests answered 2xx to `path`. */
  delivered(path: string): ReceivedWebhook[];
  waitFor(check: (received: readonly ReceivedWebhook[]) => boolean, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

const header = (headers: IncomingHttpHeaders, name: string): string => {
  const value = headers[name];
  return Array.isArray(value) ? (value[0] ?? '') : (value ?? '');
};

/**
 * webhooks/README.md's verification, word for word: the HMAC-SHA256 of `id.timestamp.body` under the secret's
 * bytes, compared in constant time with each `v1,` signature of the header; the timestamp within 5 minutes.
 */
export function verifyWebhook(secret: string, headers: Record<string, string>, body: string): boolean {
  const id = headers['webhook-id'] ?? '';
  const timestamp = headers['webhook-timestamp'] ?? '';
  if (Math.abs(Date.now() / 1000 - Number(timestamp)) > 300) return false;
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest();
  return (headers['webhook-signature'] ?? '').split(' ').some((signature) => {
    const [version, value = ''] = signature.split(',');
    const given = Buffer.from(value, 'base64');
    return version === 'v1' && given.length === expected.length && timingSafeEqual(given, expected);
  });
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const received: ReceivedWebhook[] = [];
  const secrets = new Map<string, string>();
  const answers = new Map<string, { statuses: number[]; headers: Record<string, string> }>();
  let holding = false;
  let heldCount = 0;

  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (holding) {
        heldCount += 1;
        return;
      }
      const path = (request.url ?? '/').replace(/^\//, '');
      const body = Buffer.concat(chunks).toString('utf8');
      const headers = {
        'webhook-id': header(request.headers, 'webhook-id'),
        'webhook-timestamp': header(request.headers, 'webhook-timestamp'),
        'webhook-signature': header(request.headers, 'webhook-signature'),
      };
      const secret = secrets.get(path);
      let verifiedByLibrary = false;
      if (secret) {
        try {
          new Webhook(secret).verify(body, headers);
          verifiedByLibrary = true;
        } catch {
          verifiedByLibrary = false;
        }
      }
      let payload: WebhookPayload | undefined;
      try {
        payload = WebhookPayload.safeParse(JSON.parse(body)).data;
      } catch {
        payload = undefined;
      }
      const planned = answers.get(path);
      const status = planned?.statuses.shift() ?? 200;
      received.push({
        path,
        id: headers['webhook-id'],
        timestamp: headers['webhook-timestamp'],
        signature: headers['webhook-signature'],
        body,
        payload,
        verifiedByLibrary,
        verifiedByHand: secret ? verifyWebhook(secret, headers, body) : false,
        answered: status,
      });
      response.writeHead(status, status >= 300 ? (planned?.headers ?? {}) : {}).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: (path) => `http://127.0.0.1:${port}/${path}`,
    expectSecret: (path, secret) => {
      secrets.set(path, secret);
    },
    answer: (path, statuses, headers = {}) => {
      answers.set(path, { statuses: [...statuses], headers });
    },
    hold: (on) => {
      holding = on;
    },
    held: () => heldCount,
    received,
    delivered: (path) => received.filter((request) => request.path === path && request.answered >= 200 && request.answered < 300),
    async waitFor(check, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      while (!check(received)) {
        if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for webhooks (received ${received.length}).`);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  };
}
