/**
 * The embedded MQTT broker (aedes), started when no MQTT_URL is configured. Robots log in as
 * `{manufacturer}/{serialNumber}` with the password whose argon2id hash is robots.mqtt_password_hash, and may
 * publish only their own state/connection/factsheet/visualization and subscribe only to their own
 * order/instantActions. The gateway logs in with a random credential made at start.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { Aedes, type AuthErrorCode, type Client } from 'aedes';
import { and, eq } from 'drizzle-orm';
import { VDA_INTERFACE, VDA_MAJOR } from '@uvd/contracts';
import type { Db } from '../db/client.ts';
import { robots } from '../db/schema.ts';
import { verifyPassword } from '../identity/passwords.ts';
import { DEFAULT_LOGIN_LIMITS, LoginGuard, type LoginLimits } from './login-guard.ts';

export interface EmbeddedBroker {
  url: string;
  /** The credential of the gateway's own client. */
  gatewayLogin: { username: string; password: string };
  /** Robot clients refused at login since start. */
  refusedLogins(): number;
  /** Password hashes (argon2) checked for logins since start: the cost a login flood can impose. */
  passwordVerifications(): number;
  close(): Promise<void>;
}

type Identity = { kind: 'gateway' } | { kind: 'robot'; manufacturer: string; serialNumber: string };

/**
 * Successful robot logins are remembered this long (while the robot's password hash stays the same), so a
 * reconnect storm does not cost an argon2 hash each, and a robot that logged in lately gets in during a
 * lockout of its address or name.
 */
const LOGIN_CACHE_MS = 3_600_000;
/**
 * MQTT 3.1.1 CONNACK return codes. aedes declares its codes as an ambient const enum, which isolated modules
 * cannot read, hence the literals.
 */
/* eslint-disable @typescript-eslint/no-unsafe-enum-assignment -- see above */
const CONNACK = {
  identifierRejected: 2 as AuthErrorCode,
  serverUnavailable: 3 as AuthErrorCode,
  badLogin: 4 as AuthErrorCode,
  notAuthorized: 5 as AuthErrorCode,
};
/* eslint-enable @typescript-eslint/no-unsafe-enum-assignment */

const ROBOT_PUBLISHES = new Set(['state', 'connection', 'factsheet', 'visualization']);
const ROBOT_SUBSCRIBES = new Set(['order', 'instantActions']);

/** `uagv/v2/{manufacturer}/{serialNumber}/{topic}` split, or undefined for anything else. */
export function parseVdaTopic(topic: string): { manufacturer: string; serialNumber: string; name: string } | undefined {
  const parts = topic.split('/');
  if (parts.length !== 5 || parts[0] !== VDA_INTERFACE || parts[1] !== VDA_MAJOR) return undefined;
  const [, , manufacturer, serialNumber, name] = parts;
  if (!manufacturer || !serialNumber || !name) return undefined;
  return { manufacturer, serialNumber, name };
}

const ownTopic = (identity: Identity, topic: string, allowed: ReadonlySet<string>): boolean => {
  if (identity.kind === 'gateway') return true;
  const parsed = parseVdaTopic(topic);
  return (
    parsed !== undefined &&
    parsed.manufacturer === identity.manufacturer &&
    parsed.serialNumber === identity.serialNumber &&
    allowed.has(parsed.name)
  );
};

/** Client ids starting with this belong to the gateway: no robot may take one (see `bindClientId`). */
export const GATEWAY_CLIENT_ID_PREFIX = 'uvd-gateway-';

const identityKeyOf = (identity: Identity) =>
  identity.kind === 'gateway' ? 'gateway' : `robot:${identity.manufacturer}/${identity.serialNumber}`;

/** The source address of a client's TCP connection ('' when the transport does not tell). */
const addressOf = (client: Client): string => {
  const { conn } = client;
  return 'remoteAddress' in conn && typeof conn.remoteAddress === 'string' ? conn.remoteAddress : '';
};

export async function startEmbeddedBroker(options: {
  db: Db;
  host: string;
  port: number;
  loginLimits?: LoginLimits;
}): Promise<EmbeddedBroker> {
  const { db } = options;
  const gatewayLogin = { username: `uvd-gateway-${randomBytes(4).toString('hex')}`, password: randomBytes(24).toString('hex') };
  const gatewaySecret = Buffer.from(gatewayLogin.password);
  const identities = new WeakMap<Client, Identity>();
  const recentLogins = new Map<string, { hash: string; at: number }>();
  const guard = new LoginGuard(options.loginLimits ?? DEFAULT_LOGIN_LIMITS);
  let refused = 0;
  let verifications = 0;

  /**
   * Who holds each client id: a client id belongs to the identity that logged in with it while that client is
   * connected, or while its persistent session (clean = false) lasts, since a session restored under the same id
   * brings back its subscriptions without a new authorization.
   */
  const holders = new Map<string, { identity: string; client: Client }>();
  const holds = (holder: { client: Client }) => !holder.client.closed || !holder.client.clean;
  /** False when the client's id is held by another identity (or is the gateway's and the client is not). */
  const bindClientId = (client: Client, identity: Identity): boolean => {
    const key = identityKeyOf(identity);
    if (client.id.startsWith(GATEWAY_CLIENT_ID_PREFIX) && identity.kind !== 'gateway') return false;
    const holder = holders.get(client.id);
    if (holder && holder.identity !== key && holds(holder)) return false;
    holders.set(client.id, { identity: key, client });
    return true;
  };

  type Verdict = { identity: Identity } | { refuse: AuthErrorCode; message: string };

  const checkRobot = async (username: string, password: Buffer, address: string, gone: () => boolean): Promise<Verdict> => {
    const slash = username.indexOf('/');
    if (slash <= 0 || slash === username.length - 1) {
      guard.recordFailure(address);
      return { refuse: CONNACK.badLogin, message: 'A robot logs in as {manufacturer}/{serialNumber} with its password.' };
    }
    const manufacturer = username.slice(0, slash);
    const serialNumber = username.slice(slash + 1);
    const identity: Identity = { kind: 'robot', manufacturer, serialNumber };
    const cacheKey = createHash('sha256').update(username).update('\0').update(password).digest('hex');
    const cached = recentLogins.get(cacheKey);
    const fresh = cached !== undefined && Date.now() - cached.at < LOGIN_CACHE_MS;
    // A robot that logged in recently with this password is let in whatever its address or name suffers.
    const lockedOut = () => guard.lockedFor(address, username) > 0;
    if (!fresh && lockedOut()) return { refuse: CONNACK.notAuthorized, message: 'Too many failed logins: try again later.' };
    const [row] = await db
      .select({ hash: robots.mqttPasswordHash })
      .from(robots)
      .where(and(eq(robots.manufacturer, manufacturer), eq(robots.serialNumber, serialNumber)));
    // A name that is no robot (or one without a login) costs no password check.
    if (!row?.hash) {
      guard.recordFailure(address);
      return { refuse: CONNACK.badLogin, message: 'Bad user name or password.' };
    }
    // The cached login holds only while the robot's password is the one it was checked against.
    if (fresh && cached.hash === row.hash) return { identity };
    if (lockedOut()) return { refuse: CONNACK.notAuthorized, message: 'Too many failed logins: try again later.' };
    const endTurn = await guard.acquire();
    if (!endTurn) return { refuse: CONNACK.serverUnavailable, message: 'Too many logins at once: try again later.' };
    let valid: boolean;
    try {
      // While this login waited, its address or name may have been locked out, or its client gone.
      if (lockedOut()) return { refuse: CONNACK.notAuthorized, message: 'Too many failed logins: try again later.' };
      if (gone()) return { refuse: CONNACK.serverUnavailable, message: 'The client went away.' };
      verifications++;
      valid = await verifyPassword(row.hash, password.toString('utf8'));
    } finally {
      endTurn();
    }
    if (!valid) {
      guard.recordFailure(address, username);
      return { refuse: CONNACK.badLogin, message: 'Bad user name or password.' };
    }
    guard.recordSuccess(username);
    recentLogins.set(cacheKey, { hash: row.hash, at: Date.now() });
    if (recentLogins.size > 10_000) recentLogins.clear();
    return { identity };
  };

  const broker = await Aedes.createBroker({
    authenticate: (client, username, password, done) => {
      const refuse = (returnCode: AuthErrorCode, message: string) => {
        refused++;
        done(Object.assign(new Error(message), { returnCode }), false);
      };
      const admit = (identity: Identity) => {
        if (!bindClientId(client, identity)) {
          refuse(CONNACK.identifierRejected, `Client id ${client.id} belongs to another login.`);
          return;
        }
        identities.set(client, identity);
        done(null, true);
      };
      if (username === gatewayLogin.username && password && password.length === gatewaySecret.length && timingSafeEqual(password, gatewaySecret)) {
        admit({ kind: 'gateway' });
        return;
      }
      const address = addressOf(client);
      if (!username || !password) {
        guard.recordFailure(address);
        refuse(CONNACK.badLogin, 'A robot logs in as {manufacturer}/{serialNumber} with its password.');
        return;
      }
      checkRobot(username, password, address, () => client.closed)
        .then((verdict) => {
          if ('identity' in verdict) admit(verdict.identity);
          else refuse(verdict.refuse, verdict.message);
        })
        .catch(() => {
          refuse(CONNACK.serverUnavailable, 'Login could not be checked.');
        });
    },
    authorizePublish: (client, packet, callback) => {
      // Messages of the broker itself (client null) are its own $SYS traffic.
      if (!client) { callback(null); return; }
      const identity = identities.get(client);
      if (identity && ownTopic(identity, packet.topic, ROBOT_PUBLISHES)) { callback(null); return; }
      callback(new Error(`Not allowed to publish to ${packet.topic}.`));
    },
    authorizeSubscribe: (client, subscription, callback) => {
      const identity = identities.get(client);
      if (identity && ownTopic(identity, subscription.topic, ROBOT_SUBSCRIBES)) { callback(null, subscription); return; }
      // A null subscription refuses this one topic (SUBACK 0x80) and keeps the client connected.
      callback(null, null);
    },
  });

  broker.on('clientDisconnect', (client) => {
    const holder = holders.get(client.id);
    if (holder?.client === client && !holds(holder)) holders.delete(client.id);
  });

  const server: Server = createServer((socket) => {
    // Telemetry is many small packets: Nagle's algorithm would hold each behind the previous one's ACK
    // (tens of ms with delayed ACKs) on the way to the gateway.
    socket.setNoDelay(true);
    broker.handle(socket);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;

  return {
    url: `mqtt://${host}:${port}`,
    gatewayLogin,
    refusedLogins: () => refused,
    passwordVerifications: () => verifications,
    close: async () => {
      await new Promise<void>((resolve) => {
        broker.close(() => { resolve(); });
      });
      // Robot connections still open would keep server.close() waiting.
      server.close();
    },
  };
}
