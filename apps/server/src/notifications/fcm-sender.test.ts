/**
 * The FCM sender against a local stand-in of Google's two services it talks to, over the real protocol: TLS with a
 * certificate for the real host names, HTTP/1.1, the OAuth2 JWT-bearer grant and FCM HTTP v1's JSON. The sends reach
 * the stand-in through firebase-admin's public `httpAgent` option; the token exchange ignores that option (see
 * fcm-sender.ts) and goes through `https.globalAgent`, which the suite swaps for the same loopback agent.
 */
import { generateKeyPairSync, randomBytes, randomUUID, sign, X509Certificate, type KeyObject } from 'node:crypto';
import https from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import net from 'node:net';
import tls from 'node:tls';
import { jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it, vi, type MockInstance } from 'vitest';
import { z } from 'zod';
import { fromFcmData, toFcmData, type PushMessage } from '@uvd/contracts';
import { createFcmSender, FcmConfigError, type FcmSender } from './fcm-sender.ts';
import type { SendOptions } from './sender.ts';

const OAUTH_HOST = 'oauth2.googleapis.com';
const FCM_HOST = 'fcm.googleapis.com';
const GOOGLE_TOKEN_URL = `https://${OAUTH_HOST}/token`;
const FCM_SCOPE = 'https://www.googleapis.com/auth/firebase.messaging';
const PROJECT_ID = 'uvd-stand-in';

// --- A self-signed certificate for Google's host names, written in DER with node:crypto alone -----------------

const derLength = (length: number): Buffer => {
  if (length < 0x80) return Buffer.from([length]);
  const bytes: number[] = [];
  for (let rest = length; rest > 0; rest >>= 8) bytes.unshift(rest & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
};
const der = (tag: number, ...content: Buffer[]): Buffer => {
  const body = Buffer.concat(content);
  return Buffer.concat([Buffer.from([tag]), derLength(body.length), body]);
};
const sequence = (...items: Buffer[]) => der(0x30, ...items);
const objectId = (dotted: string): Buffer => {
  const [first = 0, second = 0, ...rest] = dotted.split('.').map(Number);
  const bytes = [first * 40 + second];
  for (const arc of rest) {
    const group = [arc & 0x7f];
    for (let value = arc >> 7; value > 0; value >>= 7) group.unshift((value & 0x7f) | 0x80);
    bytes.push(...group);
  }
  return der(0x06, Buffer.from(bytes));
};
const utcTime = (date: Date) => der(0x17, Buffer.from(`${date.toISOString().slice(2, 19).replace(/[-:T]/g, '')}Z`));
const commonName = (name: string) => sequence(der(0x31, sequence(objectId('2.5.4.3'), der(0x0c, Buffer.from(name)))));

/**
 * `random` is the serial's 16 random bytes. DER writes an INTEGER in as few bytes as it can, and a positive one with
 * its top bit clear: the first byte is kept between 0x40 and 0x7f, so that it is neither a zero OpenSSL refuses as
 * padding nor a sign bit.
 */
function selfSignedCertificate(hosts: string[], random = randomBytes(16)): { key: string; cert: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const ecdsaWithSha256 = sequence(objectId('1.2.840.10045.4.3.2'));
  const serial = Buffer.from(random);
  serial[0] = ((serial[0] ?? 0) & 0x3f) | 0x40;
  const name = commonName('FCM stand-in');
  const now = Date.now();
  const subjectAltName = sequence(objectId('2.5.29.17'), der(0x04, sequence(...hosts.map((host) => der(0x82, Buffer.from(host))))));
  const tbs = sequence(
    der(0xa0, der(0x02, Buffer.from([2]))),
    der(0x02, serial),
    ecdsaWithSha256,
    name,
    sequence(utcTime(new Date(now - 60_000)), utcTime(new Date(now + 3_600_000))),
    name,
    publicKey.export({ type: 'spki', format: 'der' }),
    der(0xa3, sequence(subjectAltName)),
  );
  const certificate = sequence(tbs, ecdsaWithSha256, der(0x03, Buffer.from([0]), sign('sha256', tbs, privateKey)));
  const lines = certificate.toString('base64').match(/.{1,64}/g) ?? [];
  return {
    key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    cert: `-----BEGIN CERTIFICATE-----\n${lines.join('\n')}\n-----END CERTIFICATE-----\n`,
  };
}

// --- The stand-in: Google's OAuth2 token endpoint and FCM HTTP v1 on one HTTPS server ---------------------------

/** What FCM answers for one device token, in FCM HTTP v1's error format. */
interface FcmReply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}
const fcmError = (status: number, grpcStatus: string, message: string, errorCode?: string): FcmReply => ({
  status,
  body: {
    error: {
      code: status,
      message,
      status: grpcStatus,
      details: errorCode ? [{ '@type': 'type.googleapis.com/google.firebase.fcm.v1.FcmError', errorCode }] : [],
    },
  },
});

const TokenGrant = z.object({ grant_type: z.literal('urn:ietf:params:oauth:grant-type:jwt-bearer'), assertion: z.string() });
const AssertionClaims = z.object({ scope: z.string(), iat: z.number(), exp: z.number() });

/**
 * FCM HTTP v1's `messages:send` body, as strict as FCM: an unknown field is a 400 there ("Invalid JSON payload
 * received. Unknown name"), and `data` takes strings only.
 */
const FcmSendBody = z.strictObject({
  validate_only: z.boolean().optional(),
  message: z.strictObject({
    token: z.string().min(1),
    notification: z.strictObject({ title: z.string(), body: z.string() }),
    data: z.record(z.string(), z.string()),
    android: z.strictObject({
      priority: z.enum(['normal', 'high']),
      ttl: z.string().regex(/^\d+(\.\d{1,9})?s$/),
      collapse_key: z.string(),
      notification: z.strictObject({ tag: z.string(), channel_id: z.string().optional() }),
    }),
    apns: z.strictObject({
      headers: z.record(z.string(), z.string()),
      payload: z.strictObject({ aps: z.strictObject({ category: z.string().optional(), sound: z.string().optional() }) }),
    }),
  }),
});
type FcmSendBody = z.infer<typeof FcmSendBody>;

interface StandIn {
  port: number;
  ca: string;
  /** Every accepted message, with the headers it came with. */
  sends: { path: string; authorization: string | undefined; body: FcmSendBody }[];
  tokenGrants: { iss: string; scope: string }[];
  /** The peer address of every TLS connection the stand-in accepted. */
  peers: string[];
  replies: Map<string, FcmReply>;
  close(): Promise<void>;
}

const readBody = async (request: IncomingMessage): Promise<string> => {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
  return Buffer.concat(chunks).toString('utf8');
};
const answer = (response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  response.writeHead(status, { 'content-type': 'application/json; charset=UTF-8', ...headers });
  response.end(JSON.stringify(body));
};

async function startStandIn(accounts: Map<string, KeyObject>): Promise<StandIn> {
  const certificate = selfSignedCertificate([OAUTH_HOST, FCM_HOST]);
  const accessTokens = new Set<string>();
  const standIn: Omit<StandIn, 'port' | 'close'> = { ca: certificate.cert, sends: [], tokenGrants: [], peers: [], replies: new Map() };

  const token = async (request: IncomingMessage, response: ServerResponse) => {
    const grant = TokenGrant.safeParse(Object.fromEntries(new URLSearchParams(await readBody(request))));
    if (request.method !== 'POST' || !grant.success) {
      answer(response, 400, { error: 'invalid_request', error_description: 'Invalid grant_type or assertion.' });
      return;
    }
    // Google checks the assertion's signature with the account's registered public key.
    try {
      const unverified = JSON.parse(Buffer.from(grant.data.assertion.split('.')[1] ?? '', 'base64url').toString('utf8')) as unknown;
      const issuer = z.object({ iss: z.string() }).parse(unverified).iss;
      const publicKey = accounts.get(issuer);
      if (!publicKey) throw new Error(`unknown service account ${issuer}`);
      const { payload } = await jwtVerify(grant.data.assertion, publicKey, { algorithms: ['RS256'], issuer, audience: GOOGLE_TOKEN_URL });
      const claims = AssertionClaims.parse(payload);
      if (claims.exp - claims.iat > 3600) throw new Error('assertion lives longer than an hour');
      standIn.tokenGrants.push({ iss: issuer, scope: claims.scope });
    } catch {
      answer(response, 400, { error: 'invalid_grant', error_description: 'Invalid JWT Signature.' });
      return;
    }
    const accessToken = `ya29.stand-in-${randomUUID()}`;
    accessTokens.add(accessToken);
    answer(response, 200, { access_token: accessToken, expires_in: 3599, token_type: 'Bearer' });
  };

  const send = async (request: IncomingMessage, response: ServerResponse) => {
    const path = request.url ?? '';
    const authorization = request.headers.authorization;
    if (!authorization?.startsWith('Bearer ') || !accessTokens.has(authorization.slice('Bearer '.length))) {
      answer(response, 401, fcmError(401, 'UNAUTHENTICATED', 'Request is missing required authentication credential.').body);
      return;
    }
    if (request.method !== 'POST' || path !== `/v1/projects/${PROJECT_ID}/messages:send`) {
      answer(response, 404, fcmError(404, 'NOT_FOUND', 'Requested entity was not found.').body);
      return;
    }
    let json: unknown;
    try {
      json = JSON.parse(await readBody(request));
    } catch {
      answer(response, 400, fcmError(400, 'INVALID_ARGUMENT', 'Invalid JSON payload received.').body);
      return;
    }
    const body = FcmSendBody.safeParse(json);
    if (!body.success) {
      answer(response, 400, fcmError(400, 'INVALID_ARGUMENT', `Invalid JSON payload received. ${body.error.message}`, 'INVALID_ARGUMENT').body);
      return;
    }
    standIn.sends.push({ path, authorization, body: body.data });
    const reply = standIn.replies.get(body.data.message.token) ?? {
      status: 200,
      body: { name: `projects/${PROJECT_ID}/messages/${standIn.sends.length}` },
    };
    answer(response, reply.status, reply.body, reply.headers);
  };

  const server = https.createServer({ key: certificate.key, cert: certificate.cert }, (request, response) => {
    const host = request.headers.host;
    const handle = host === OAUTH_HOST && request.url === '/token' ? token : host === FCM_HOST ? send : undefined;
    if (!handle) {
      answer(response, 404, { error: `the stand-in serves no ${host ?? '?'}${request.url ?? ''}` });
      return;
    }
    handle(request, response).catch((error: unknown) => {
      answer(response, 500, { error: String(error) });
    });
  });
  server.on('secureConnection', (socket) => standIn.peers.push(socket.remoteAddress ?? '?'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the stand-in has no port');
  return {
    ...standIn,
    port: address.port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  };
}

/**
 * Sends each host's connections to a loopback port instead of the internet, while TLS still checks the real host
 * name (SNI and certificate) against the stand-in's certificate. A host it does not know fails to connect.
 */
class LoopbackAgent extends https.Agent {
  readonly hosts: string[] = [];
  constructor(
    private readonly ports: Record<string, number>,
    private readonly trusted: string,
  ) {
    super({ keepAlive: true });
  }
  override createConnection(options: https.RequestOptions): net.Socket {
    const host = options.servername ?? options.hostname ?? options.host ?? '';
    this.hosts.push(host);
    const port = this.ports[host];
    if (port === undefined) {
      const refused = new net.Socket();
      process.nextTick(() => refused.destroy(new Error(`${host} is not a stand-in: no connection leaves this machine`)));
      return refused;
    }
    return tls.connect({ host: '127.0.0.1', port, servername: host, ca: this.trusted, ALPNProtocols: ['http/1.1'] });
  }
}

// --- Fixtures -------------------------------------------------------------------------------------------------

const serviceAccount = (clientEmail: string) => {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const json = JSON.stringify({
    type: 'service_account',
    project_id: PROJECT_ID,
    private_key_id: randomBytes(20).toString('hex'),
    private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    client_email: clientEmail,
    client_id: '100000000000000000000',
    token_uri: GOOGLE_TOKEN_URL,
  });
  return { json, publicKey };
};

const prompt: PushMessage = {
  title: 'UVD-3 waits at Room 204',
  body: 'Is the room empty? Confirm to start disinfection.',
  icon: '/icons/icon-192.png',
  type: 'job',
  related_id: randomUUID(),
  kind: 'prompt',
  push_id: randomUUID(),
  url: '/job/1',
  realm: 'demo',
  action_id: randomUUID(),
  choices: ['confirm', 'skip'],
  choice_labels: { confirm: 'Confirm', skip: 'Skip' },
  sent_at: '2026-03-02T10:15:00.000+02:00',
};
const finished: PushMessage = {
  title: 'Job finished',
  body: 'UVD-3 finished Ward A.',
  icon: '/icons/icon-192.png',
  type: 'job',
  related_id: randomUUID(),
  kind: 'job_finished',
  push_id: randomUUID(),
  url: '/job/2',
  realm: 'demo',
  sent_at: '2026-03-02T10:45:00.000Z',
};
const HIGH: SendOptions = { ttlSeconds: 600, urgency: 'high', collapseKey: 'push-prompt-1' };
const NORMAL: SendOptions = { ttlSeconds: 86_400, urgency: 'normal', collapseKey: 'push-finished-1' };
const deviceToken = (label: string) => `${label}:APA91b${randomBytes(48).toString('base64url')}`;

// --- No connection may leave the machine ------------------------------------------------------------------------

const originalGlobalAgent = https.globalAgent;
const isLoopback = (host: string) => host === '127.0.0.1' || host === '::1' || host === 'localhost';
const ConnectTarget = z.union([z.object({ host: z.string().nullish(), path: z.string().nullish() }), z.number()]);
/**
 * Where a `socket.connect(...)` call went: its options' host (or a local pipe), or `(port, host)`. Node's own
 * callers (http, tls) pass their already normalized arguments as one array.
 */
const targetOf = (call: unknown[]): string => {
  const args: unknown[] = Array.isArray(call[0]) ? call[0] : call;
  const target = ConnectTarget.safeParse(args[0]);
  if (!target.success) return '?';
  if (typeof target.data === 'number') return typeof args[1] === 'string' ? args[1] : 'localhost';
  return target.data.path ? 'ipc' : (target.data.host ?? 'localhost');
};

describe("FCM sender against a local stand-in of FCM HTTP v1 and Google's OAuth token endpoint", () => {
  const accounts = new Map<string, KeyObject>();
  const main = serviceAccount('push@uvd-stand-in.iam.gserviceaccount.com');
  let standIn: StandIn;
  let agent: LoopbackAgent;
  let sender: FcmSender;
  const senders: FcmSender[] = [];
  let connects: MockInstance<typeof net.Socket.prototype.connect>;

  beforeAll(async () => {
    // Every socket this process opens while the suite runs is recorded (and still connects); all must go to loopback.
    connects = vi.spyOn(net.Socket.prototype, 'connect');
    accounts.set('push@uvd-stand-in.iam.gserviceaccount.com', main.publicKey);
    standIn = await startStandIn(accounts);
    agent = new LoopbackAgent({ [OAUTH_HOST]: standIn.port, [FCM_HOST]: standIn.port }, standIn.ca);
    Reflect.set(https, 'globalAgent', agent);
    sender = createFcmSender({ serviceAccount: main.json, httpAgent: agent });
    senders.push(sender);
  });

  afterAll(async () => {
    for (const each of senders) await each.close();
    Reflect.set(https, 'globalAgent', originalGlobalAgent);
    agent.destroy();
    await standIn.close();
    const targets = connects.mock.calls.map((call: unknown[]) => targetOf(call));
    connects.mockRestore();
    expect(targets.length).toBeGreaterThan(0);
    expect(targets.filter((host) => !isLoopback(host) && host !== 'ipc')).toEqual([]);
    expect(standIn.peers.every((peer) => isLoopback(peer.replace(/^::ffff:/, '')))).toBe(true);
  });

  it('sends a prompt with the bearer token of a verified JWT-bearer grant, every field where FCM wants it', async () => {
    const token = deviceToken('prompt');
    await expect(sender.send(token, prompt, HIGH)).resolves.toEqual({ kind: 'sent', status: 200 });

    expect(standIn.tokenGrants).toEqual([{ iss: 'push@uvd-stand-in.iam.gserviceaccount.com', scope: expect.stringContaining(FCM_SCOPE) as string }]);
    const sent = standIn.sends.find((each) => each.body.message.token === token);
    expect(sent?.path).toBe(`/v1/projects/${PROJECT_ID}/messages:send`);
    const message = sent?.body.message;
    expect(message?.notification).toEqual({ title: prompt.title, body: prompt.body });
    expect(message?.data).toEqual(toFcmData(prompt));
    // What the phone gets back is the push message itself.
    expect(message && fromFcmData(message.data)).toEqual(prompt);
    expect(message?.android).toEqual({
      priority: 'high',
      ttl: '600s',
      collapse_key: 'push-prompt-1',
      notification: { tag: prompt.push_id, channel_id: 'prompts' },
    });
    expect(message?.apns.headers).toMatchObject({ 'apns-priority': '10', 'apns-collapse-id': 'push-prompt-1' });
    const expiration = Number(message?.apns.headers['apns-expiration']);
    expect(Math.abs(expiration - (Date.now() / 1000 + 600))).toBeLessThan(30);
    expect(message?.apns.payload.aps).toEqual({ category: 'PROMPT', sound: 'default' });
    expect(standIn.peers.length).toBeGreaterThan(0);
    expect(new Set(agent.hosts)).toEqual(new Set([OAUTH_HOST, FCM_HOST]));
  });

  it('sends a normal push without prompt buttons, reusing the access token', async () => {
    const grantsBefore = standIn.tokenGrants.length;
    const token = deviceToken('finished');
    await expect(sender.send(token, finished, NORMAL)).resolves.toEqual({ kind: 'sent', status: 200 });
    const message = standIn.sends.find((each) => each.body.message.token === token)?.body.message;
    expect(message?.android).toEqual({ priority: 'normal', ttl: '86400s', collapse_key: 'push-finished-1', notification: { tag: finished.push_id } });
    expect(message?.apns.headers['apns-priority']).toBe('5');
    expect(message?.apns.payload.aps).toEqual({});
    expect(message?.data.choices).toBeUndefined();
    expect(standIn.tokenGrants.length).toBe(grantsBefore);
  });

  it('forgets a device FCM no longer knows: 404 UNREGISTERED is gone', async () => {
    const token = deviceToken('uninstalled');
    standIn.replies.set(token, fcmError(404, 'NOT_FOUND', 'Requested entity was not found.', 'UNREGISTERED'));
    const outcome = await sender.send(token, finished, NORMAL);
    expect(outcome).toMatchObject({ kind: 'gone', status: 404 });
    expect(outcome.kind === 'gone' && outcome.reason).toContain('messaging/registration-token-not-registered');
  });

  it('forgets a token FCM never issued (400 INVALID_ARGUMENT naming the token), but keeps the device when the message is at fault', async () => {
    const foreign = deviceToken('apns-hex');
    standIn.replies.set(foreign, fcmError(400, 'INVALID_ARGUMENT', 'The registration token is not a valid FCM registration token', 'INVALID_ARGUMENT'));
    await expect(sender.send(foreign, finished, NORMAL)).resolves.toMatchObject({ kind: 'gone', status: 400 });

    const tooBig = deviceToken('too-big');
    standIn.replies.set(tooBig, fcmError(400, 'INVALID_ARGUMENT', 'Android message is too big', 'INVALID_ARGUMENT'));
    const outcome = await sender.send(tooBig, finished, NORMAL);
    expect(outcome).toMatchObject({ kind: 'failed', status: 400 });
    expect(outcome.kind === 'failed' && outcome.reason).toContain('messaging/invalid-argument');
  });

  it('retries later on 503 UNAVAILABLE, 500 INTERNAL and 429 QUOTA_EXCEEDED', async () => {
    const unavailable = deviceToken('unavailable');
    // A Retry-After beyond a minute makes firebase-admin hand the 503 back at once instead of retrying it itself.
    standIn.replies.set(unavailable, { ...fcmError(503, 'UNAVAILABLE', 'The service is currently unavailable.', 'UNAVAILABLE'), headers: { 'retry-after': '120' } });
    await expect(sender.send(unavailable, prompt, HIGH)).resolves.toMatchObject({ kind: 'retry', status: 503 });
    expect(standIn.sends.filter((each) => each.body.message.token === unavailable)).toHaveLength(1);

    const internal = deviceToken('internal');
    standIn.replies.set(internal, fcmError(500, 'INTERNAL', 'Internal error encountered.', 'INTERNAL'));
    await expect(sender.send(internal, prompt, HIGH)).resolves.toMatchObject({ kind: 'retry', status: 500 });

    const quota = deviceToken('quota');
    standIn.replies.set(quota, fcmError(429, 'RESOURCE_EXHAUSTED', 'Quota exceeded for this device.', 'QUOTA_EXCEEDED'));
    await expect(sender.send(quota, prompt, HIGH)).resolves.toMatchObject({ kind: 'retry', status: 429 });
  });

  it('retries later when FCM cannot be reached', async () => {
    const closed = net.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const address = closed.address();
    await new Promise<void>((resolve) => {
      closed.close(() => {
        resolve();
      });
    });
    if (address === null || typeof address === 'string') throw new Error('no port');
    const other = serviceAccount('unreachable@uvd-stand-in.iam.gserviceaccount.com');
    accounts.set('unreachable@uvd-stand-in.iam.gserviceaccount.com', other.publicKey);
    const unreachable = createFcmSender({
      serviceAccount: other.json,
      httpAgent: new LoopbackAgent({ [OAUTH_HOST]: standIn.port, [FCM_HOST]: address.port }, standIn.ca),
    });
    senders.push(unreachable);
    const outcome = await unreachable.send(deviceToken('any'), finished, NORMAL);
    expect(outcome.kind).toBe('retry');
    expect(outcome.kind === 'retry' && outcome.reason).toMatch(/ECONNREFUSED/);
  });

  it('retries later when Google refuses the service account key, and FCM never sees the message', async () => {
    const revoked = serviceAccount('revoked@uvd-stand-in.iam.gserviceaccount.com');
    const refused = createFcmSender({ serviceAccount: revoked.json, httpAgent: agent });
    senders.push(refused);
    const sendsBefore = standIn.sends.length;
    const outcome = await refused.send(deviceToken('any'), finished, NORMAL);
    expect(outcome.kind).toBe('retry');
    expect(outcome.kind === 'retry' && outcome.reason).toMatch(/app\/invalid-credential.*invalid_grant/s);
    expect(standIn.sends.length).toBe(sendsBefore);
  });

  it('refuses a service account that is not JSON or lacks its key', () => {
    expect(() => createFcmSender({ serviceAccount: 'not json' })).toThrow(FcmConfigError);
    const { private_key: _, ...withoutKey } = z.record(z.string(), z.unknown()).parse(JSON.parse(main.json));
    expect(() => createFcmSender({ serviceAccount: JSON.stringify(withoutKey) })).toThrow(/private_key/);
  });
});

describe("the stand-in's certificate", () => {
  it('is one TLS accepts whatever its random serial: a leading zero byte once failed one run in 256', () => {
    const serials = [[0x00, 0x10], [0x00, 0x90], [0x80, 0x10], [0xff, 0xff], [0x12, 0x00]].map(([first = 0, second = 0]) => {
      const random = Buffer.alloc(16, 0x33);
      random[0] = first;
      random[1] = second;
      return random;
    });
    for (const random of serials) {
      const certificate = selfSignedCertificate([FCM_HOST], random);
      expect(() => tls.createSecureContext(certificate)).not.toThrow();
      expect(new X509Certificate(certificate.cert).subjectAltName).toBe(`DNS:${FCM_HOST}`);
    }
  });
});
