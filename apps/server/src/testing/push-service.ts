/**
 * A local stand-in of a browser vendor's push service (no such service exists on this machine), speaking the real
 * protocol: it takes RFC 8030 push requests over HTTP, verifies their VAPID authorization (RFC 8292, ES256 JWT
 * signed with the key in `k`), and decrypts their aes128gcm payloads (RFC 8291) with the subscription's own
 * private key and auth secret, written here from the RFCs with node:crypto, independently of the `web-push`
 * package that encrypts them. Tests and bench:push build browser subscriptions with it.
 */
import { createECDH, createDecipheriv, hkdfSync, randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { importJWK, jwtVerify } from 'jose';
import { PushMessage } from '@uvd/contracts';
import { loadConfig, type PushConfig } from '../config.ts';
import { checkDeviceToken } from '../notifications/device-token.ts';

/** Push settings for tests: the local push service's host allowed, fast retries, short give-up. */
export const testPushConfig = (overrides: Partial<PushConfig> = {}): PushConfig => ({
  ...loadConfig({}).push,
  endpointHosts: ['127.0.0.1'],
  retryBaseMs: 50,
  sendTimeoutMs: 2000,
  giveUpMs: 4000,
  ...overrides,
});

export interface TestSubscription {
  id: string;
  endpoint: string;
  /** Behaviour §7's device token: the JSON of the browser's PushSubscription. */
  token: string;
  /** The token as the server stores it (notifications/device-token.ts), for tests that read or write rows. */
  storedToken: string;
}

export interface ReceivedPush {
  subscriptionId: string;
  message: PushMessage;
  /** The VAPID public key that signed the request (base64url). */
  vapidKey: string;
  ttl: number;
  urgency: string | undefined;
  topic: string | undefined;
  receivedAt: number;
}

export interface LocalPushService {
  url: string;
  subscribe(): TestSubscription;
  received: ReceivedPush[];
  /** Requests the service refused as a real one would (bad VAPID, undecryptable, unknown subscription). */
  rejected: { subscriptionId: string; status: number; reason: string }[];
  /** Answers every later request for `subscriptionId` (or for all, with '*') with `status` instead of 201. */
  answer(subscriptionId: string, status: number | undefined): void;
  /**
   * While on, requests get no answer at all (a push service hanging mid-request); `held` counts them. Off answers
   * the waiting ones 503 (if their sender still listens) and later ones normally.
   */
  hold(on: boolean): void;
  held(): number;
  /** Calls `listener` on each accepted push (benchmarks time arrivals). */
  onPush(listener: (push: ReceivedPush) => void): void;
  waitFor(predicate: (received: ReceivedPush[]) => boolean, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

interface Keys {
  ecdh: ReturnType<typeof createECDH>;
  publicKey: Buffer;
  auth: Buffer;
}

const VAPID_HEADER = /^vapid t=([^,\s]+),\s*k=([A-Za-z0-9_-]+)$/;
const MAX_JWT_LIFETIME_SECONDS = 24 * 3600;

/** RFC 8291 §3.4 and RFC 8188 §2: one aes128gcm record, decrypted with the user agent's keys. */
export function decryptAes128gcm(body: Buffer, keys: Keys): Buffer {
  const salt = body.subarray(0, 16);
  const recordSize = body.readUInt32BE(16);
  const idLength = body.readUInt8(20);
  const senderKey = body.subarray(21, 21 + idLength);
  const record = body.subarray(21 + idLength);
  if (record.length > recordSize) throw new Error('more than one record');
  const ecdhSecret = keys.ecdh.computeSecret(senderKey);
  const keyInfo = Buffer.concat([Buffer.from('WebPush: info\0'), keys.publicKey, senderKey]);
  const ikm = Buffer.from(hkdfSync('sha256', ecdhSecret, keys.auth, keyInfo, 32));
  const cek = Buffer.from(hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: aes128gcm\0'), 16));
  const nonce = Buffer.from(hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: nonce\0'), 12));
  const decipher = createDecipheriv('aes-128-gcm', cek, nonce);
  decipher.setAuthTag(record.subarray(record.length - 16));
  const padded = Buffer.concat([decipher.update(record.subarray(0, record.length - 16)), decipher.final()]);
  // The last record ends with the delimiter 0x02 and then zero padding.
  let end = padded.length - 1;
  while (end >= 0 && padded[end] === 0) end -= 1;
  if (padded[end] !== 2) throw new Error('missing last-record delimiter');
  return padded.subarray(0, end);
}

async function verifyVapid(header: string | undefined, audience: string): Promise<string> {
  const match = VAPID_HEADER.exec(header ?? '');
  if (!match?.[1] || !match[2]) throw new Error('Authorization is not "vapid t=…, k=…"');
  const [, jwt, k] = match;
  const point = Buffer.from(k, 'base64url');
  if (point.length !== 65 || point[0] !== 4) throw new Error('k is not an uncompressed P-256 point');
  const key = await importJWK(
    { kty: 'EC', crv: 'P-256', x: point.subarray(1, 33).toString('base64url'), y: point.subarray(33).toString('base64url') },
    'ES256',
  );
  const { payload } = await jwtVerify(jwt, key, { audience, algorithms: ['ES256'] });
  if (typeof payload.exp !== 'number' || payload.exp > Date.now() / 1000 + MAX_JWT_LIFETIME_SECONDS) {
    throw new Error('exp missing or more than 24 hours ahead');
  }
  if (typeof payload.sub !== 'string' || !/^(mailto:|https:)/.test(payload.sub)) throw new Error('sub is not mailto: or https:');
  return k;
}

const readBody = async (request: IncomingMessage): Promise<Buffer> => {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
  return Buffer.concat(chunks);
};

export async function startLocalPushService(): Promise<LocalPushService> {
  const subscriptions = new Map<string, Keys>();
  const answers = new Map<string, number>();
  const received: ReceivedPush[] = [];
  const rejected: LocalPushService['rejected'] = [];
  const listeners: ((push: ReceivedPush) => void)[] = [];
  let origin = '';
  let holding = false;
  const waiting: ServerResponse[] = [];
  let heldCount = 0;

  const refuse = (response: ServerResponse, subscriptionId: string, status: number, reason: string) => {
    rejected.push({ subscriptionId, status, reason });
    response.writeHead(status, { 'content-type': 'text/plain' }).end(reason);
  };

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const id = /^\/push\/([\w-]+)$/.exec(request.url ?? '')?.[1] ?? '';
    const body = await readBody(request);
    const keys = subscriptions.get(id);
    if (request.method !== 'POST' || !keys) { refuse(response, id, 404, 'no such subscription'); return; }
    if (holding) {
      heldCount += 1;
      waiting.push(response);
      return;
    }
    const answer = answers.get(id) ?? answers.get('*');
    if (answer !== undefined) { refuse(response, id, answer, 'told to answer so'); return; }
    let vapidKey: string;
    try {
      vapidKey = await verifyVapid(request.headers.authorization, origin);
    } catch (error) {
      refuse(response, id, 401, `VAPID: ${error instanceof Error ? error.message : 'invalid'}`); return;
    }
    const ttl = Number(request.headers.ttl);
    if (request.headers['content-encoding'] !== 'aes128gcm' || !Number.isInteger(ttl) || ttl < 0) {
      refuse(response, id, 400, 'Content-Encoding aes128gcm and a TTL are required'); return;
    }
    let message: PushMessage;
    try {
      message = PushMessage.parse(JSON.parse(decryptAes128gcm(body, keys).toString('utf8')));
    } catch (error) {
      refuse(response, id, 400, `payload: ${error instanceof Error ? error.message : 'unreadable'}`); return;
    }
    const header = (name: string) => {
      const value = request.headers[name];
      return typeof value === 'string' ? value : undefined;
    };
    const push: ReceivedPush = {
      subscriptionId: id,
      message,
      vapidKey,
      ttl,
      urgency: header('urgency'),
      topic: header('topic'),
      receivedAt: performance.now(),
    };
    received.push(push);
    for (const listener of listeners) listener(push);
    response.writeHead(201, { location: `${origin}/message/${randomUUID()}` }).end();
  };

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      response.writeHead(500).end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url: origin,
    received,
    rejected,
    subscribe() {
      const ecdh = createECDH('prime256v1');
      const publicKey = ecdh.generateKeys();
      const auth = randomBytes(16);
      const id = randomUUID();
      subscriptions.set(id, { ecdh, publicKey, auth });
      const endpoint = `${origin}/push/${id}`;
      const token = JSON.stringify({
        endpoint,
        expirationTime: null,
        keys: { p256dh: publicKey.toString('base64url'), auth: auth.toString('base64url') },
      });
      const stored = checkDeviceToken(token, 'any');
      if ('error' in stored) throw new Error(stored.error);
      return { id, endpoint, token, storedToken: stored.token };
    },
    answer(subscriptionId, status) {
      if (status === undefined) answers.delete(subscriptionId);
      else answers.set(subscriptionId, status);
    },
    hold(on) {
      holding = on;
      if (on) return;
      for (const response of waiting.splice(0)) {
        if (!response.destroyed) response.writeHead(503).end();
      }
    },
    held: () => heldCount,
    onPush(listener) {
      listeners.push(listener);
    },
    async waitFor(predicate, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (!predicate(received)) {
        if (Date.now() > deadline) throw new Error(`push service: condition not met in ${timeoutMs} ms (${received.length} received)`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => { resolve(); }));
    },
  };
}
