/**
 * The server's environment, read and validated in one place; everything else imports `Config`.
 *
 * Each group below is one zod schema: the variables it reads (name, default, validation, what it means) and, in its
 * transform, the shape the code uses. `Config` is what the groups produce, so a setting is written in one group only.
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { DEFAULT_STOP_ALERT_MS, LOW_BATTERY_PERCENT } from '@uvd/contracts';

const list = (text: string | undefined): string[] =>
  (text ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item.length > 0);

const flag = (fallback: 'true' | 'false') =>
  z
    .enum(['true', 'false'])
    .default(fallback)
    .transform((v) => v === 'true');

/** An unset or empty variable is `undefined`. */
const optionalText = z
  .string()
  .optional()
  .transform((v) => v || undefined);

const logLevel = z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']);

const port = (fallback: number) => z.coerce.number().int().min(0).max(65535).default(fallback);

/**
 * Live streams: heartbeat interval, replay horizon, unread bytes before a stalled client is dropped, and how many
 * may be open at once.
 */
const Live = z
  .object({
    LIVE_HEARTBEAT_SECONDS: z.coerce.number().positive().default(15),
    LIVE_RETENTION_SECONDS: z.coerce.number().int().min(60).default(3600),
    LIVE_MAX_BUFFERED_BYTES: z.coerce.number().int().min(16384).default(1048576),
    /**
     * Streams open at once on this process beyond which a new one gets 503 with Retry-After (0: no limit). Under
     * it a stream is never shed as a request in flight or for a busy event loop (plugins/load-shedding.ts): a
     * console holds three or four, so 2000 is some 500 consoles, well under HTTP_MAX_CONNECTIONS.
     */
    LIVE_MAX_STREAMS: z.coerce.number().int().min(0).default(2000),
  })
  .transform((e) => ({
    liveHeartbeatMs: e.LIVE_HEARTBEAT_SECONDS * 1000,
    liveRetentionMs: e.LIVE_RETENTION_SECONDS * 1000,
    liveMaxBufferedBytes: e.LIVE_MAX_BUFFERED_BYTES,
    liveMaxStreams: e.LIVE_MAX_STREAMS,
  }));

const Server = z
  .object({
    PORT: port(8080),
    HOST: z.string().default('0.0.0.0'),
    /** Public base address, used in issuer URLs when behind a proxy. Defaults to http://localhost:PORT. */
    PUBLIC_URL: z.url().optional(),
    /** Trust X-Forwarded-* (client address, protocol, host) only behind a reverse proxy that sets them. */
    TRUST_PROXY: flag('false'),
    DATA_DIR: z.string().default('./data'),
    /** The built web console to serve; default apps/web/dist next to the server. */
    WEB_DIST: optionalText,
    DATABASE_URL: optionalText,
    /** Origins of the mobile shell's web view allowed to call the API cross-origin (comma-separated). */
    CORS_ORIGINS: z.string().default('capacitor://localhost,https://localhost'),
    LOG_LEVEL: logLevel.default('info'),
    /**
     * The level of the two lines each HTTP request logs ("incoming request", "request completed"): `debug` keeps
     * them out of an `info` log (npm start does so), `silent` drops them at any level.
     */
    REQUEST_LOG_LEVEL: logLevel.default('info'),
    /** How often the job scheduler looks for due Scheduled jobs (every server process polls; each job starts once). */
    SCHEDULER_POLL_MS: z.coerce.number().int().min(10).default(1000),
    /** A command to a robot (order, instant action) not acknowledged by its state is resent this often… */
    COMMAND_RESEND_MS: z.coerce.number().int().min(10).default(2000),
    /** …and given up this long after it was decided (then `command_undelivered` is published on the robots stream). */
    COMMAND_GIVE_UP_MS: z.coerce.number().int().min(100).default(30_000),
    /** A stop (never given up) still unacknowledged this long after it was decided raises `stop_unconfirmed`. */
    COMMAND_STOP_ALERT_MS: z.coerce.number().int().min(100).default(DEFAULT_STOP_ALERT_MS),
    /** A robot whose state comes after this long a silence (here) gets its open commands again at once. */
    COMMAND_HEARD_AGAIN_MS: z.coerce.number().int().min(100).default(2000),
    SEED_DEMO: flag('true'),
    /** How often the delivery dispatcher looks at the queue besides being woken (a request, a robot freed or back online). */
    DELIVERY_DISPATCH_POLL_MS: z.coerce.number().int().min(10).default(5000),
    /** A delivery not yet loaded whose robot is blocked, failed or offline this long goes back to the queue. */
    DELIVERY_HANDBACK_MS: z.coerce.number().int().min(100).default(120_000),
    /** A delivery handed back after this many robots took it is Blocked instead (a person must look at it). */
    DELIVERY_MAX_DISPATCHES: z.coerce.number().int().min(1).default(3),
    /** A delivery robot is given a delivery only with at least this much battery (percent; LOW_BATTERY_PERCENT by default). */
    DELIVERY_MIN_BATTERY: z.coerce.number().min(0).max(100).default(LOW_BATTERY_PERCENT),
    /**
     * Who may read GET /metrics (Prometheus): a scraper sending `Authorization: Bearer <METRICS_TOKEN>`. The
     * metrics describe the whole installation (every organization's robots and outboxes), so no user's sign-in
     * reads them; unset, the route answers 404.
     */
    METRICS_TOKEN: optionalText.pipe(
      z
        .string()
        .min(24, 'at least 24 characters (a random secret, e.g. `openssl rand -base64 32`)')
        .regex(/^[A-Za-z0-9._~+/-]+=*$/, 'a bearer token: letters, digits and - . _ ~ + / only, = at the end')
        .optional(),
    ),
  })
  .transform((e) => ({
    port: e.PORT,
    host: e.HOST,
    publicUrl: e.PUBLIC_URL,
    trustProxy: e.TRUST_PROXY,
    dataDir: e.DATA_DIR,
    webDist: e.WEB_DIST,
    databaseUrl: e.DATABASE_URL,
    corsOrigins: list(e.CORS_ORIGINS),
    logLevel: e.LOG_LEVEL,
    requestLogLevel: e.REQUEST_LOG_LEVEL,
    schedulerPollMs: e.SCHEDULER_POLL_MS,
    commandResendMs: e.COMMAND_RESEND_MS,
    commandGiveUpMs: e.COMMAND_GIVE_UP_MS,
    commandStopAlertMs: e.COMMAND_STOP_ALERT_MS,
    commandHeardAgainMs: e.COMMAND_HEARD_AGAIN_MS,
    seedDemo: e.SEED_DEMO,
    deliveryDispatchPollMs: e.DELIVERY_DISPATCH_POLL_MS,
    deliveryHandbackMs: e.DELIVERY_HANDBACK_MS,
    deliveryMaxDispatches: e.DELIVERY_MAX_DISPATCHES,
    deliveryMinBattery: e.DELIVERY_MIN_BATTERY,
    metricsToken: e.METRICS_TOKEN,
  }));

const Mqtt = z
  .object({
    MQTT_URL: optionalText,
    /** The embedded broker (used when MQTT_URL is not set) listens here; 1883 is left to a system broker. */
    MQTT_PORT: port(1884),
    MQTT_HOST: z.string().default('127.0.0.1'),
    /**
     * The shared-subscription group of the server processes of one deployment on an external broker: each robot
     * state goes to one process of the group. Deployments (or test servers) with their own databases on one broker
     * need groups of their own, or a state lands in a process that does not know its robot.
     */
    MQTT_SHARE_GROUP: z
      .string()
      .regex(/^[A-Za-z0-9_-]{1,64}$/, 'letters, digits, "-" and "_" only (an MQTT shared subscription group name)')
      .default('uvd-gateway'),
  })
  .transform((e) => ({ mqttUrl: e.MQTT_URL, mqttPort: e.MQTT_PORT, mqttHost: e.MQTT_HOST, mqttShareGroup: e.MQTT_SHARE_GROUP }));

/**
 * Fleet link timing: a robot silent this long is stale (shown, still online), this long offline (the broker's
 * keepalive would say so too); how often the gateway pings each robot and when a ping counts as lost.
 */
const Fleet = z
  .object({
    FLEET_STALE_SECONDS: z.coerce.number().positive().default(30),
    FLEET_OFFLINE_SECONDS: z.coerce.number().positive().default(60),
    FLEET_PING_INTERVAL_SECONDS: z.coerce.number().positive().default(5),
    FLEET_PING_TIMEOUT_SECONDS: z.coerce.number().positive().default(4),
  })
  .transform((e) => ({
    staleMs: e.FLEET_STALE_SECONDS * 1000,
    offlineMs: e.FLEET_OFFLINE_SECONDS * 1000,
    pingIntervalMs: e.FLEET_PING_INTERVAL_SECONDS * 1000,
    pingTimeoutMs: e.FLEET_PING_TIMEOUT_SECONDS * 1000,
  }));

const Identity = z
  .object({
    /** An external OIDC issuer base (e.g. https://sso.example/realms): tokens are then verified through its JWKS. */
    IDP_ISSUER_BASE: z.url().optional(),
    CLIENT_ID: z.string().default('uvd-console'),
    VARIANT: z.enum(['disinfection', 'logistics']).default('disinfection'),
    ACCESS_TOKEN_TTL_SECONDS: z.coerce.number().int().min(10).default(900),
    REFRESH_TOKEN_TTL_SECONDS: z.coerce.number().int().min(60).default(1800),
    OFFLINE_TOKEN_TTL_SECONDS: z.coerce.number().int().min(60).default(30 * 24 * 3600),
    /**
     * A refresh token just exchanged is accepted again this long, answered with the same reply (as Amazon
     * Cognito's RetryGracePeriodSeconds, at most 60 s there too): a page reloaded while its refresh was in flight
     * never saw the reply. 0 switches it off; beyond it a reused token ends its session.
     */
    REFRESH_TOKEN_GRACE_SECONDS: z.coerce.number().int().min(0).max(60).default(30),
    /** Password grants per client address and minute at the token endpoint; 0 switches the limit off (benchmarks). */
    TOKEN_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(0).default(60),
  })
  .transform((e) => ({
    idpIssuerBase: e.IDP_ISSUER_BASE,
    clientId: e.CLIENT_ID,
    variant: e.VARIANT,
    accessTokenTtlSeconds: e.ACCESS_TOKEN_TTL_SECONDS,
    refreshTokenTtlSeconds: e.REFRESH_TOKEN_TTL_SECONDS,
    offlineTokenTtlSeconds: e.OFFLINE_TOKEN_TTL_SECONDS,
    refreshTokenGraceSeconds: e.REFRESH_TOKEN_GRACE_SECONDS,
    tokenRateLimitPerMinute: e.TOKEN_RATE_LIMIT_PER_MINUTE,
  }));

/**
 * Brute-force detection (Keycloak's model, but on by default): from this many consecutive failed logins on,
 * each failure refuses the user's logins for a wait that doubles from the increment up to the maximum.
 */
const BruteForce = z
  .object({
    BRUTE_FORCE_FAILURE_FACTOR: z.coerce.number().int().min(1).default(5),
    BRUTE_FORCE_WAIT_INCREMENT_SECONDS: z.coerce.number().int().min(0).default(60),
    BRUTE_FORCE_MAX_WAIT_SECONDS: z.coerce.number().int().min(0).default(900),
  })
  .transform((e) => ({
    failureFactor: e.BRUTE_FORCE_FAILURE_FACTOR,
    waitIncrementSeconds: e.BRUTE_FORCE_WAIT_INCREMENT_SECONDS,
    maxWaitSeconds: e.BRUTE_FORCE_MAX_WAIT_SECONDS,
  }));

/**
 * Push notifications (notifications/README.md). VAPID keys (RFC 8292, base64url) come from here or are made once
 * and kept in the database; the subject is the contact push services see (mailto: or https:).
 */
const Push = z
  .object({
    VAPID_PUBLIC_KEY: z.string().optional(),
    VAPID_PRIVATE_KEY: z.string().optional(),
    VAPID_SUBJECT: z
      .string()
      .regex(/^(mailto:|https:\/\/)/, 'must start with mailto: or https://')
      .default('mailto:push@uvd-console.invalid'),
    /** Host names Web Push endpoints may point at besides the browsers' public push services (comma-separated). */
    PUSH_ENDPOINT_HOSTS: z.string().optional(),
    /** FCM for the mobile shell: a Firebase service account as JSON text, or the path of its JSON file. */
    FCM_SERVICE_ACCOUNT: optionalText,
    FCM_SERVICE_ACCOUNT_FILE: optionalText,
    /** A prompt nobody answered this long is pushed again to the organization's admins. */
    PUSH_ESCALATION_SECONDS: z.coerce.number().positive().default(120),
    /**
     * A delivery waiting this long at a hand-off (or past its deliver_by) is pushed to its recipient, after as long
     * again to its sender, then to the admins (deliveries/escalation.ts).
     */
    DELIVERY_ESCALATION_SECONDS: z.coerce.number().positive().default(300),
    /** A push not delivered this long after its event is given up (the push service keeps it this long too). */
    PUSH_GIVE_UP_SECONDS: z.coerce.number().positive().default(3600),
    /** The first retry's wait; each next one doubles, up to 5 minutes. */
    PUSH_RETRY_BASE_MS: z.coerce.number().int().min(10).default(2000),
    /** A push service slower than this counts as unreachable (retried); a send is presumed dead after twice this. */
    PUSH_SEND_TIMEOUT_SECONDS: z.coerce.number().positive().default(10),
  })
  .transform((e) => ({
    vapid:
      e.VAPID_PUBLIC_KEY && e.VAPID_PRIVATE_KEY ? { publicKey: e.VAPID_PUBLIC_KEY, privateKey: e.VAPID_PRIVATE_KEY } : undefined,
    vapidSubject: e.VAPID_SUBJECT,
    /** Extra allowed Web Push endpoint hosts (lowercase). */
    endpointHosts: list(e.PUSH_ENDPOINT_HOSTS).map((host) => host.toLowerCase()),
    /** The Firebase service account JSON text, when FCM is configured. */
    fcmServiceAccount:
      e.FCM_SERVICE_ACCOUNT ?? (e.FCM_SERVICE_ACCOUNT_FILE ? readFileSync(e.FCM_SERVICE_ACCOUNT_FILE, 'utf8') : undefined),
    escalationMs: e.PUSH_ESCALATION_SECONDS * 1000,
    deliveryEscalationMs: e.DELIVERY_ESCALATION_SECONDS * 1000,
    giveUpMs: e.PUSH_GIVE_UP_SECONDS * 1000,
    retryBaseMs: e.PUSH_RETRY_BASE_MS,
    sendTimeoutMs: e.PUSH_SEND_TIMEOUT_SECONDS * 1000,
  }));

/**
 * Signed webhooks (webhooks/README.md): which hosts a webhook URL may name beyond public https ones, and how its
 * deliveries are retried and given up.
 */
const Webhooks = z
  .object({
    /**
     * Hosts a webhook may reach although they are not public https: plain http, a private or loopback address
     * (comma-separated; e.g. `127.0.0.1` for tests, an integration host on the hospital network).
     */
    WEBHOOK_HOSTS: z.string().optional(),
    /** A delivery not accepted (2xx) this long after its event is given up. */
    WEBHOOK_GIVE_UP_SECONDS: z.coerce.number().positive().default(86_400),
    /** The first retry's wait; each next one doubles, up to an hour. */
    WEBHOOK_RETRY_BASE_MS: z.coerce.number().int().min(10).default(5000),
    /** A receiver slower than this to answer counts as unreachable (retried); a send is presumed dead after twice this. */
    WEBHOOK_SEND_TIMEOUT_SECONDS: z.coerce.number().positive().default(10),
  })
  .transform((e) => ({
    /** Lowercase host names or addresses. */
    hosts: list(e.WEBHOOK_HOSTS).map((host) => host.toLowerCase()),
    giveUpMs: e.WEBHOOK_GIVE_UP_SECONDS * 1000,
    retryBaseMs: e.WEBHOOK_RETRY_BASE_MS,
    sendTimeoutMs: e.WEBHOOK_SEND_TIMEOUT_SECONDS * 1000,
  }));

/**
 * Load shedding (plugins/load-shedding.ts): beyond this many requests being handled at once, or when the event
 * loop's delay averages this much over a second (the mean of 10 ms samples: the loop is busy for most of each
 * turn), a request is answered 503 with Retry-After at once instead of queueing behind the others. Health
 * checks, the web console's files and live streams do not count (streams have their own limit, LIVE_MAX_STREAMS).
 * 0 switches a check off.
 */
const LoadShedding = z
  .object({
    LOAD_MAX_IN_FLIGHT: z.coerce.number().int().min(0).default(64),
    LOAD_MAX_EVENT_LOOP_DELAY_MS: z.coerce.number().int().min(0).default(1000),
    /**
     * A server whose event loop is busy all the time (CPU-bound: serialising replies, checking tokens) keeps its
     * delay samples short while requests wait unread in their sockets; the share of a second it was busy shows it.
     */
    LOAD_MAX_EVENT_LOOP_UTILIZATION: z.coerce.number().min(0).max(1).default(0.98),
    LOAD_RETRY_AFTER_SECONDS: z.coerce.number().int().min(1).default(5),
  })
  .transform((e) => ({
    /** Requests handled at once beyond which a new one is refused with 503; 0: no limit. */
    maxInFlight: e.LOAD_MAX_IN_FLIGHT,
    /** Mean event loop delay over a sample (one second) beyond which requests are refused with 503; 0: off. */
    maxEventLoopDelayMs: e.LOAD_MAX_EVENT_LOOP_DELAY_MS,
    /** Share of the last second the event loop was busy beyond which requests are refused with 503; 0: off. */
    maxEventLoopUtilization: e.LOAD_MAX_EVENT_LOOP_UTILIZATION,
    retryAfterSeconds: e.LOAD_RETRY_AFTER_SECONDS,
  }));

/**
 * Slow clients: a request whose headers (or whole request, body included) have not arrived in this time is cut
 * with 408, an idle keep-alive connection is closed after its timeout, and connections beyond the limit are
 * refused (0: no limit). A response may last longer: live streams are long responses, not long requests.
 */
const Http = z
  .object({
    HTTP_HEADERS_TIMEOUT_SECONDS: z.coerce.number().positive().default(10),
    HTTP_REQUEST_TIMEOUT_SECONDS: z.coerce.number().positive().default(30),
    HTTP_KEEP_ALIVE_TIMEOUT_SECONDS: z.coerce.number().positive().default(10),
    HTTP_MAX_CONNECTIONS: z.coerce.number().int().min(0).default(10000),
  })
  .transform((e) => ({
    headersTimeoutMs: e.HTTP_HEADERS_TIMEOUT_SECONDS * 1000,
    /** At least headersTimeoutMs (Node refuses a shorter one). */
    requestTimeoutMs: Math.max(e.HTTP_REQUEST_TIMEOUT_SECONDS, e.HTTP_HEADERS_TIMEOUT_SECONDS) * 1000,
    keepAliveTimeoutMs: e.HTTP_KEEP_ALIVE_TIMEOUT_SECONDS * 1000,
    /** 0: no limit. */
    maxConnections: e.HTTP_MAX_CONNECTIONS,
  }));

/**
 * Mail (mail/README.md): password reset links and notices, sent after commit from the `mail_outbox` table. With no
 * SMTP_URL the server runs a local catcher (smtp-server) on a free port and keeps what it catches in memory
 * (GET /api/dev/mail, with MAIL_CATCHER_TOKEN), so the demo and the tests need no mail server.
 */
const Mail = z
  .object({
    /** smtp://user:pass@host:587 or smtps://…:465 (nodemailer's URL form). */
    SMTP_URL: z.url().optional(),
    MAIL_FROM: z.string().default('UVD Console <no-reply@uvd-console.invalid>'),
    /**
     * Who may read the local catcher's mail (GET /api/dev/mail with header `x-mail-catcher-token`); made at start
     * and printed in the log when unset. Ignored with SMTP_URL (no catcher runs).
     */
    MAIL_CATCHER_TOKEN: optionalText,
    /** A mail not accepted by the SMTP server this long after it was written is given up. */
    MAIL_GIVE_UP_SECONDS: z.coerce.number().positive().default(86_400),
    /** The first retry's wait; each next one doubles, up to an hour. */
    MAIL_RETRY_BASE_MS: z.coerce.number().int().min(10).default(5000),
  })
  .transform((e) => ({
    smtpUrl: e.SMTP_URL,
    from: e.MAIL_FROM,
    catcherToken: e.MAIL_CATCHER_TOKEN,
    giveUpMs: e.MAIL_GIVE_UP_SECONDS * 1000,
    retryBaseMs: e.MAIL_RETRY_BASE_MS,
  }));

/** Reports (reports/README.md): PDFs drawn at once, each in a worker thread of its own; more wait their turn. */
const Reports = z
  .object({
    REPORT_PDF_WORKERS: z.coerce.number().int().min(1).max(16).default(2),
  })
  .transform((e) => ({ pdfWorkers: e.REPORT_PDF_WORKERS }));

/**
 * Every group reads the whole environment. Config is the fields of the first groups (config.port, config.mqttUrl,
 * ...) beside the others as one property each (config.fleet.staleMs, config.push.vapid, ...).
 */
const ConfigSchema = z
  .object({
    live: Live,
    server: Server,
    mqtt: Mqtt,
    identity: Identity,
    fleet: Fleet,
    bruteForce: BruteForce,
    push: Push,
    webhooks: Webhooks,
    loadShedding: LoadShedding,
    http: Http,
    reports: Reports,
    mail: Mail,
  })
  .transform(({ live, server, mqtt, identity, ...nested }) => ({
    ...live,
    ...server,
    ...mqtt,
    ...identity,
    ...nested,
  }));

export type Config = z.output<typeof ConfigSchema>;
export type LoadSheddingConfig = Config['loadShedding'];
export type HttpConfig = Config['http'];
export type PushConfig = Config['push'];
export type WebhooksConfig = Config['webhooks'];
export type MailConfig = Config['mail'];

type Group = (typeof ConfigSchema.in.shape)[keyof typeof ConfigSchema.in.shape];
type Variables<G> = G extends z.ZodType ? keyof z.input<G> : never;
/** The environment variables the server reads (all optional, as text). */
export type Env = { [Name in Variables<Group>]?: string };

/**
 * Load shedding switched off, for benches of other paths (lists, logins) that drive a server to its limits on
 * purpose; bench:overload measures the shedding itself, beside a server run with these. Live streams need none of
 * it: they are admitted by their own limit (LIVE_MAX_STREAMS).
 */
export const LOAD_SHEDDING_OFF = {
  LOAD_MAX_IN_FLIGHT: '0',
  LOAD_MAX_EVENT_LOOP_DELAY_MS: '0',
  LOAD_MAX_EVENT_LOOP_UTILIZATION: '0',
} as const satisfies Env;

export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const groups = Object.keys(ConfigSchema.in.shape);
  const parsed = ConfigSchema.safeParse(Object.fromEntries(groups.map((group) => [group, env])));
  if (!parsed.success) {
    // The path is [group, VARIABLE]: the variable alone names the problem.
    const problems = parsed.error.issues.map((issue) => `${issue.path.slice(1).join('.')}: ${issue.message}`);
    throw new Error(`Invalid environment: ${problems.join('; ')}`);
  }
  return parsed.data;
}
