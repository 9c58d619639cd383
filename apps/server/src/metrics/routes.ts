/**
 * GET /metrics: the Prometheus exposition of metrics/metrics.ts. The metrics describe the installation (every
 * organization's robots and outboxes), so they answer the operator's METRICS_TOKEN as a bearer token, never a
 * user's sign-in (an organization's superadmin is still one organization's); 404 while no METRICS_TOKEN is set.
 * At the root, beside /healthz: the load shedder leaves it alone, so a scrape still sees an overloaded server.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { ErrorCode, getMetrics } from '@uvd/contracts';
import { HttpError, notFound } from '../lib/http-error.ts';
import { registerRoute } from '../lib/route.ts';
import type { Metrics } from './metrics.ts';

/** Compared as SHA-256 digests: equal lengths whatever was sent, so the time taken tells nothing of the token. */
const digest = (text: string) => createHash('sha256').update(text).digest();
const sameSecret = (presented: string, secret: string) => timingSafeEqual(digest(presented), digest(secret));

export function registerMetricsRoute(app: FastifyInstance, metrics: Metrics, token: string | undefined): void {
  registerRoute(app, getMetrics, async ({ request, reply }) => {
    if (token === undefined) throw notFound('GET /metrics (it is served only with METRICS_TOKEN set)');
    const presented = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '')?.[1];
    if (presented === undefined || !sameSecret(presented, token)) {
      void reply.header('www-authenticate', 'Bearer realm="metrics"');
      throw new HttpError(401, ErrorCode.unauthorized, 'GET /metrics needs the header Authorization: Bearer <METRICS_TOKEN>.');
    }
    // The contract's media type (registerRoute sets it) is the one prom-client writes, METRICS_CONTENT_TYPE.
    void reply.header('cache-control', 'no-store');
    return metrics.scrape();
  });
}
