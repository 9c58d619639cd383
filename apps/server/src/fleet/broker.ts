/**
 * The embedded MQTT broker (aedes), started when no MQTT_URL is configured. Robots log in as
 * `{manufacturer}/{serialNumber}` with the password whose argon2id hash is robots.mqtt_password_hash, and may
 * publish only their own state/connection/factsheet/visualization and subscribe only to their own
 * order/instantActions. The gateway logs in with a random credential made at start.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { Aedes, type AuthenticateError, type AuthErrorCode, type Client } from 'aedes';
import { and, eq } from 'drizzle-orm';
import { VDA_INTERFACE, VDA_MAJOR } from '@uvd/contracts';
import type { Db } from '../db/client.ts';
import { robots } from '../db/schema.ts';
import { verifyPassword } from '../identity/passwords.ts';

export interface EmbeddedBroker {
  url: string;
  /** The credential of the gateway's own client. */
  gatewayLogin: { username: string; password: string };
  /** Robot clients refused at login since start. */
  refusedLogins(): number;
  close(): Promise<void>;
}

type Identity = { kind: 'gateway' } | { kind: 'robot'; manufacturer: string; serialNumber: string };

/** Successful robot logins are remembered this long, so a reconnect storm does not cost an argon2 hash each. */
const LOGIN_CACHE_MS = 60_000;
/**
 * MQTT 3.1.1 CONNACK return code 4, bad user name or password. aedes declares its codes as an ambient const
 * enum, which isolated modules cannot read, hence the literal.
 */
// eslint-disable-next-line @typescript-eslint/no-unsafe-enum-assignment -- see above
const BAD_USERNAME_OR_PASSWORD = 4 as AuthErrorCode;

const ROBOT_PUBLISHES = new Set(['state', 'connection', 'factsheet', 'visualization']);
const ROBOT_SUBSCRIBES = new Set(['order', 'instantActions']);

const loginError = (message: string): AuthenticateError =>
  Object.assign(new Error(message), { returnCode: BAD_USERNAME_OR_PASSWORD });

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

export async function startEmbeddedBroker(options: { db: Db; host: string; port: number }): Promise<EmbeddedBroker> {
  const { db } = options;
  const gatewayLogin = { username: `uvd-gateway-${randomBytes(4).toString('hex')}`, password: randomBytes(24).toString('hex') };
  const gatewaySecret = Buffer.from(gatewayLogin.password);
  const identities = new WeakMap<Client, Identity>();
  const recentLogins = new Map<string, number>();
  let refused = 0;

  const checkRobot = async (username: string, password: Buffer): Promise<Identity | undefined> => {
    const slash = username.indexOf('/');
    if (slash <= 0 || slash === username.length - 1) return undefined;
    const manufacturer = username.slice(0, slash);
    const serialNumber = username.slice(slash + 1);
    const cacheKey = createHash('sha256').update(username).update('\0').update(password).digest('hex');
    const cachedAt = recentLogins.get(cacheKey);
    if (cachedAt !== undefined && Date.now() - cachedAt < LOGIN_CACHE_MS) return { kind: 'robot', manufacturer, serialNumber };
    const [row] = await db
      .select({ hash: robots.mqttPasswordHash })
      .from(robots)
      .where(and(eq(robots.manufacturer, manufacturer), eq(robots.serialNumber, serialNumber)));
    if (!row?.hash || !(await verifyPassword(row.hash, password.toString('utf8')))) return undefined;
    recentLogins.set(cacheKey, Date.now());
    if (recentLogins.size > 10_000) recentLogins.clear();
    return { kind: 'robot', manufacturer, serialNumber };
  };

  const broker = await Aedes.createBroker({
    authenticate: (client, username, password, done) => {
      if (username === gatewayLogin.username && password && password.length === gatewaySecret.length && timingSafeEqual(password, gatewaySecret)) {
        identities.set(client, { kind: 'gateway' });
        done(null, true);
        return;
      }
      if (!username || !password) {
        refused++;
        done(loginError('A robot logs in as {manufacturer}/{serialNumber} with its password.'), false);
        return;
      }
      checkRobot(username, password)
        .then((identity) => {
          if (!identity) {
            refused++;
            done(loginError('Bad user name or password.'), false);
            return;
          }
          identities.set(client, identity);
          done(null, true);
        })
        .catch(() => {
          refused++;
          done(loginError('Login could not be checked.'), false);
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
    close: async () => {
      await new Promise<void>((resolve) => {
        broker.close(() => { resolve(); });
      });
      // Robot connections still open would keep server.close() waiting.
      server.close();
    },
  };
}
