import { z } from 'zod';
import { ApiError } from './errors.ts';
import { defineRoute } from './route.ts';

/** Runtime configuration of the SPA, served at /config.json so one build serves any deployment. */
export const RuntimeConfig = z.object({
  variant: z.enum(['disinfection', 'logistics']),
  clientId: z.string(),
  /** Base address of the identity provider; realms live at `${identity}/realms/{organization}`. */
  identity: z.string(),
  /** Base address of each backend of behaviour §7. */
  backends: z.object({
    jobs: z.string(),
    action: z.string(),
    command: z.string(),
    rooms: z.string(),
    logs: z.string(),
    logistics: z.string(),
    robots: z.string(),
    users: z.string(),
    notifications: z.string(),
  }),
  tokenRefreshMs: z.number().int().positive(),
  /** The server's VAPID public key (RFC 8292), base64url: the console's `applicationServerKey` for Web Push. */
  vapidPublicKey: z.string(),
});
export type RuntimeConfig = z.infer<typeof RuntimeConfig>;

export const getRuntimeConfig = defineRoute({
  method: 'GET',
  path: '/config.json',
  summary: 'Runtime configuration of the web console',
  tags: ['system'],
  auth: false,
  response: { 200: RuntimeConfig },
});

export const Health = z.object({ status: z.literal('ok'), database: z.enum(['pglite', 'postgres']) });
export const getHealth = defineRoute({
  method: 'GET',
  path: '/healthz',
  summary: 'Ready once migrations ran',
  tags: ['system'],
  auth: false,
  response: { 200: Health },
});

/** The media type of Prometheus' text exposition format (0.0.4), what GET /metrics answers. */
export const METRICS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/**
 * Prometheus metrics of the server process: robots by connection, mode and work; robot commands sent, resent,
 * acknowledged and given up, and their round trip; the outboxes' backlog; open live streams; shed requests; the
 * process and its event loop. For the operator of the installation, not of one organization: it answers the
 * bearer METRICS_TOKEN only (401 otherwise), and 404 while no METRICS_TOKEN is set.
 */
export const getMetrics = defineRoute({
  method: 'GET',
  path: '/metrics',
  summary: 'Prometheus metrics of this server process (Authorization: Bearer METRICS_TOKEN; 404 while METRICS_TOKEN is unset)',
  tags: ['system'],
  auth: false,
  produces: METRICS_CONTENT_TYPE,
  response: { 200: z.string().describe('Prometheus text exposition format 0.0.4'), 401: ApiError, 404: ApiError },
});
