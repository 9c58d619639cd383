/**
 * Builds the Fastify application. Plugins register in a visible order: external → app-wide → routes.
 * `server.ts` only opens the database, listens and shuts down.
 */
import { randomBytes } from 'node:crypto';
import cookie from '@fastify/cookie';
import cors from '@fastify/cors';
import formbody from '@fastify/formbody';
import Fastify, { type FastifyInstance, type FastifyPluginAsync } from 'fastify';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import { getHealth, getRuntimeConfig } from '@uvd/contracts';
import type { Config } from './config.ts';
import type { AppContext } from './context.ts';
import type { Database } from './db/client.ts';
import type { Fleet } from './robot-link/fleet.ts';
import { actionsRoutes } from './actions/routes.ts';
import { startAuditChainer } from './audit/chain.ts';
import { auditPlugin } from './audit/plugin.ts';
import { auditRoutes } from './audit/routes.ts';
import { contactsRoutes } from './contacts/routes.ts';
import { deliveriesRoutes } from './deliveries/routes.ts';
import { startExecution } from './robot-link/execution.ts';
import { startCommandOutbox } from './robot-link/outbox.ts';
import { robotLinkRoutes } from './robot-link/routes.ts';
import { createFleet } from './robot-link/gateway.ts';
import { groupsRoutes } from './groups/routes.ts';
import { loadKeyStore } from './identity/keys.ts';
import { identityRoutes } from './identity/routes.ts';
import { localVerifier, remoteVerifier } from './identity/verifier.ts';
import { jobsRoutes } from './jobs/routes.ts';
import { registerRoute } from './lib/route.ts';
import { createEventBus } from './live/bus.ts';
import { liveRoutes } from './live/routes.ts';
import { logsRoutes } from './logs/routes.ts';
import { createMetrics } from './metrics/metrics.ts';
import { registerMetricsRoute } from './metrics/routes.ts';
import { mailRoutes } from './mail/routes.ts';
import { startMail } from './mail/worker.ts';
import { notificationsRoutes } from './notifications/routes.ts';
import { pushSenders } from './notifications/senders.ts';
import { startNotifications } from './notifications/worker.ts';
import { authPlugin } from './plugins/auth.ts';
import { registerErrorHandlers } from './plugins/errors.ts';
import { loadSheddingPlugin } from './plugins/load-shedding.ts';
import { openapiPlugin } from './plugins/openapi.ts';
import { RequestLogController } from './plugins/request-log.ts';
import { originOf, securityHeadersPlugin } from './plugins/security-headers.ts';
import { resolveWebDist, spaPlugin } from './plugins/spa.ts';
import { xsrfPlugin } from './plugins/xsrf.ts';
import { recoveryRoutes } from './recovery/routes.ts';
import { reportsRoutes } from './reports/routes.ts';
import { robotsRoutes } from './robots/routes.ts';
import { roomsRoutes } from './rooms/routes.ts';
import { settingsRoutes } from './settings/routes.ts';
import { usersRoutes } from './users/routes.ts';
import { webhooksRoutes } from './webhooks/routes.ts';
import { startWebhooks } from './webhooks/worker.ts';

export const API_PREFIX = '/api';
export const IDP_PREFIX = '/idp';
/** The audit chainer's poll of every organization, behind the NOTIFY that names one (a missed notification waits this long). */
const AUDIT_CHAIN_POLL_MS = 5_000;
/** How long after a commit its organization's new audit entries are chained, with those committed meanwhile. */
const AUDIT_CHAIN_DELAY_MS = 100;

/** Backends of behaviour §7, each mounted under /api; a deployment may split them behind a proxy. */
const apiModules: readonly FastifyPluginAsync<AppContext>[] = [
  jobsRoutes,
  actionsRoutes,
  robotsRoutes,
  roomsRoutes,
  logsRoutes,
  reportsRoutes,
  usersRoutes,
  recoveryRoutes,
  mailRoutes,
  groupsRoutes,
  contactsRoutes,
  settingsRoutes,
  notificationsRoutes,
  deliveriesRoutes,
  robotLinkRoutes,
  liveRoutes,
  webhooksRoutes,
  auditRoutes,
];

export interface BuildOptions {
  config: Config;
  database: Database;
  /**
   * false leaves out the robot link: no MQTT broker or gateway, no command outbox, no job execution (scheduler,
   * executor, delivery dispatch). The routes get a fleet that knows no robot and cannot send, and robot commands
   * stay recorded, unsent. For API tests that involve no robot (testing/harness.ts `startRouteTestServer`); a
   * server always has its robot link.
   */
  robotLink?: boolean;
}

export interface App {
  app: FastifyInstance;
  context: AppContext;
}

/**
 * Slowloris defence: Node cuts (408) a request whose headers or whole request have not arrived in time. It checks
 * on an interval (30 s by default, far beyond a 10 s timeout), so the interval follows the headers timeout. The
 * request timeout ends once the request is in: a live stream's long response is not cut.
 */
function httpServerOptions(http: Config['http']) {
  return {
    requestTimeout: http.requestTimeoutMs,
    keepAliveTimeout: http.keepAliveTimeoutMs,
    http: {
      headersTimeout: http.headersTimeoutMs,
      requestTimeout: http.requestTimeoutMs,
      connectionsCheckingInterval: Math.min(1000, Math.max(100, http.headersTimeoutMs / 4)),
    },
  };
}

/** The fleet of an app built without its robot link: no robot is known or online, and nothing can be sent. */
function detachedFleet(config: Config): Fleet {
  const refuse = () => Promise.reject(new Error('this app was built without its robot link'));
  const none = () => () => undefined;
  return {
    sendOrder: refuse,
    sendInstantActions: refuse,
    onState: none,
    onStateEvent: none,
    onConnection: none,
    isOnline: () => false,
    link: () => undefined,
    links: () => new Map(),
    stats: () => ({ accepted: 0, malformed: 0, invalid: 0, unknownRobot: 0, spoofed: 0, duplicate: 0 }),
    refusedLogins: () => 0,
    passwordVerifications: () => 0,
    brokerUrl: config.mqttUrl ?? '',
    close: () => Promise.resolve(),
  };
}

export async function buildApp({ config, database, robotLink = true }: BuildOptions): Promise<App> {
  const app = Fastify({
    logger: config.logLevel === 'silent' ? false : { level: config.logLevel },
    logController: new RequestLogController(config.requestLogLevel),
    trustProxy: config.trustProxy,
    // Ids in paths are UUIDs; anything longer is not ours.
    routerOptions: { maxParamLength: 200 },
    ...httpServerOptions(config.http),
  });
  // Each open connection costs a socket and memory whether or not it ever sends a request.
  if (config.http.maxConnections > 0) app.server.maxConnections = config.http.maxConnections;
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);

  const metrics = createMetrics();
  const keys = await loadKeyStore(database.db);
  // Failures no caller sees (a listener throwing, a late commit that makes streams resync) go to the log.
  const bus = await createEventBus(database, {
    onError: (error, message) => {
      app.log.warn({ err: error }, message);
    },
  });
  // Before anything publishes: the outbox hook must see every event.
  const senders = await pushSenders(config, database.db, app.log);
  const worker = await startNotifications({ config, database, bus }, { senders: senders.senders, logger: app.log });
  const notifications = Object.assign(worker, { vapidPublicKey: senders.vapidPublicKey });
  const webhooks = await startWebhooks({ config, database, bus }, { logger: app.log });
  const mailService = await startMail({ config, database }, app.log);
  const mail = Object.assign(mailService, { catcherToken: config.mail.catcherToken ?? randomBytes(18).toString('base64url') });
  if (mail.catcher) {
    // Where the demo's and the tests' mail can be read: no SMTP_URL, so nothing leaves this machine.
    app.log.info(
      { mailCatcher: mail.catcher.url, read: `GET ${API_PREFIX}/dev/mail`, header: 'x-mail-catcher-token', token: mail.catcherToken },
      `no SMTP_URL: mail is caught locally; read it at ${API_PREFIX}/dev/mail with header x-mail-catcher-token: ${mail.catcherToken}`,
    );
  }
  const fleet = robotLink ? await createFleet({ config, database, bus, logger: app.log }) : detachedFleet(config);
  const commands = robotLink
    ? await startCommandOutbox({ config, database, bus, fleet, metrics }, app.log)
    : { wake: () => undefined, idle: () => Promise.resolve(), close: () => Promise.resolve() };
  metrics.observe({ fleet, db: database.db });
  const context: AppContext = { config, database, db: database.db, bus, keys, fleet, commands, notifications, mail, metrics };
  const execution = robotLink ? await startExecution(context) : undefined;
  const auditChainer = await startAuditChainer(database.db, database.notifier, {
    pollMs: AUDIT_CHAIN_POLL_MS,
    delayMs: AUDIT_CHAIN_DELAY_MS,
    onError: (error) => {
      app.log.warn({ err: error }, 'audit chain: chaining failed (retried at the next poll)');
    },
  });
  app.addHook('onClose', async () => {
    await auditChainer.close();
    await execution?.close();
    await commands.close();
    await fleet.close();
    await notifications.close();
    await webhooks.close();
    await mail.close();
    await senders.close();
    await bus.close();
  });

  // external
  await app.register(securityHeadersPlugin, { connectOrigins: [...originOf(config.idpIssuerBase), ...originOf(config.publicUrl)] });
  await app.register(cookie);
  await app.register(formbody);
  // The mobile shell's web view runs on its own origin (capacitor://localhost, https://localhost): it may call the
  // API and the identity provider with its bearer token. No cookies cross origins, so the anti-forgery check holds.
  // Retry-After is no CORS-safelisted header: exposed, so the shell sees when to come back after a 503.
  await app.register(cors, { origin: config.corsOrigins, credentials: false, maxAge: 600, exposedHeaders: ['Retry-After'] });
  // After CORS, so that the mobile shell can read a 503 and its Retry-After; before the token check and any
  // database work, so that a shed request costs almost nothing.
  await app.register(loadSheddingPlugin, { ...config.loadShedding, maxStreams: config.liveMaxStreams, onShed: metrics.shed });
  await app.register(openapiPlugin);

  // app-wide
  registerErrorHandlers(app);
  await app.register(xsrfPlugin);
  await app.register(authPlugin, {
    verify: config.idpIssuerBase ? remoteVerifier(config.idpIssuerBase) : localVerifier(keys),
  });
  await app.register(auditPlugin);

  // routes
  registerRoute(app, getHealth, async () => ({ status: 'ok' as const, database: database.kind }));
  registerMetricsRoute(app, metrics, config.metricsToken);
  registerRoute(app, getRuntimeConfig, async ({ request }) => {
    const origin = config.publicUrl ?? `${request.protocol}://${request.host}`;
    const api = `${origin}${API_PREFIX}`;
    return {
      variant: config.variant,
      clientId: config.clientId,
      identity: config.idpIssuerBase ?? `${origin}${IDP_PREFIX}`,
      backends: {
        jobs: api,
        action: api,
        command: api,
        rooms: api,
        logs: api,
        logistics: api,
        robots: api,
        users: api,
        notifications: api,
      },
      tokenRefreshMs: 890_000,
      vapidPublicKey: notifications.vapidPublicKey,
    };
  });
  await app.register(identityRoutes, { ...context, prefix: IDP_PREFIX });
  await app.register(
    async (api) => {
      for (const module of apiModules) await api.register(module, context);
    },
    { prefix: API_PREFIX },
  );
  // Last: its catch-all GET only answers what no route above matched.
  await app.register(spaPlugin, { root: resolveWebDist({ WEB_DIST: config.webDist }) });
  return { app, context };
}
