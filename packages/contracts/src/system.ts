import { z } from 'zod';
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
