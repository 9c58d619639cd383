/**
 * Load shedding on the API and the identity provider: a request the server cannot start on soon is answered 503
 * with Retry-After at once, instead of queueing behind thousands of others until every caller times out (2 000
 * concurrent list requests used to wait 10-19 s at p99; bench/overload.ts). Three signals: requests in flight
 * beyond a limit (a server waiting on its database), and an event loop that lags or is busy all the time (a server
 * short of CPU, whose waiting requests sit unread in their sockets where no counter sees them;
 * @fastify/under-pressure). Health checks are never shed (a probe failing under load would restart a busy but
 * healthy server). Only /api and /idp are shed: GET /metrics is not, so a scrape still sees an overload (and counts
 * its refusals).
 *
 * Live streams are neither: an open stream is a long response that costs a socket and a subscription, not work,
 * and a server restart brings every console's streams back within seconds, when the loop is busiest. Shedding
 * them then (as requests in flight before their handler ran, or by event loop pressure) made the consoles' retry
 * storm itself the overload (issue #26). So a stream is admitted while fewer than `maxStreams` are open, whatever
 * the in-flight count and the event loop, counts as open from its request until its connection closes, and beyond
 * the limit is answered 503 with Retry-After like any shed request (live/README.md).
 */
import underPressure from '@fastify/under-pressure';
import type { FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import fp from 'fastify-plugin';
import { ErrorCode } from '@uvd/contracts';
import type { LoadSheddingConfig } from '../config.ts';
import { HttpError } from '../lib/http-error.ts';
import type { ShedReason } from '../metrics/metrics.ts';

const SHED_PREFIXES = ['/api/', '/idp/'];
const EVENT_STREAM = 'text/event-stream';
/** Two of under-pressure's one-second samples. */
const STARTUP_GRACE_MS = 2000;

/** Whether a route's success reply is an event stream, as its contract declares (lib/route.ts responseSchemas). */
function isEventStream(route: RouteOptions): boolean {
  const response: unknown = route.schema?.response;
  if (typeof response !== 'object' || response === null) return false;
  return Object.values(response).some(
    (reply: unknown) =>
      typeof reply === 'object' && reply !== null && 'content' in reply && typeof reply.content === 'object' && reply.content !== null && EVENT_STREAM in reply.content,
  );
}

export interface LoadSheddingOptions extends LoadSheddingConfig {
  /** Live streams open at once beyond which a new one is refused with 503 (config LIVE_MAX_STREAMS); 0: no limit. */
  maxStreams: number;
  /** Told of every request refused (the metrics count them). */
  onShed?: (reason: ShedReason) => void;
}

export const loadSheddingPlugin = fp<LoadSheddingOptions>(
  async (app, { maxInFlight, maxEventLoopDelayMs, maxEventLoopUtilization, retryAfterSeconds, maxStreams, onShed }) => {
    const streams = new Set<string>();
    app.addHook('onRoute', (route) => {
      if (!isEventStream(route)) return;
      for (const method of [route.method].flat()) streams.add(`${method} ${route.url}`);
    });
    const routeKey = (request: FastifyRequest) => `${request.method} ${request.routeOptions.url ?? ''}`;
    // Only the API and the identity provider are shed. The SPA's files are cheap, and a page missing one of its
    // chunks is broken rather than slow (a busy second of a loaded machine did that to the browser tests).
    const exempt = (request: FastifyRequest) => !SHED_PREFIXES.some((prefix) => request.url.startsWith(prefix));
    const isStream = (request: FastifyRequest) => streams.has(routeKey(request));

    const shed = (reply: FastifyReply, reason: ShedReason, why: string): HttpError => {
      onShed?.(reason);
      void reply.header('retry-after', String(retryAfterSeconds));
      return new HttpError(503, ErrorCode.overloaded, `The server is overloaded (${why}); retry in ${retryAfterSeconds} s.`);
    };

    if (maxEventLoopDelayMs > 0 || maxEventLoopUtilization > 0) {
      // The first samples measure our own start (routes, schemas, migrations), not load.
      let steadyAfter = Number.POSITIVE_INFINITY;
      app.addHook('onReady', async () => {
        steadyAfter = Date.now() + STARTUP_GRACE_MS;
      });
      await app.register(underPressure, {
        maxEventLoopDelay: maxEventLoopDelayMs,
        maxEventLoopUtilization,
        // Over the last sample, not since the process started.
        eventLoopUtilizationMode: 'interval',
        retryAfter: retryAfterSeconds,
        // Our own reply: the API's one error shape, and health checks pass.
        pressureHandler: (request, reply, type) => {
          // A stream is admitted by its own limit below: a busy loop is when a restart's consoles come back.
          if (exempt(request) || isStream(request) || Date.now() < steadyAfter) return;
          if (type === underPressure.TYPE_EVENT_LOOP_UTILIZATION) throw shed(reply, 'event_loop_utilization', 'event loop busy');
          throw shed(reply, 'event_loop_delay', 'event loop delay');
        },
      });
    }

    let openStreams = 0;
    app.addHook('onRequest', async (request, reply) => {
      if (!isStream(request)) return;
      if (maxStreams > 0 && openStreams >= maxStreams) throw shed(reply, 'live_streams', 'too many live streams open');
      openStreams += 1;
      // From the request (a storm of reconnects is counted before any of them is checked) until the connection
      // closes, whether the stream opened or was refused (401, 400).
      reply.raw.once('close', () => {
        openStreams -= 1;
      });
    });

    if (maxInFlight > 0) {
      let inFlight = 0;
      app.addHook('onRequest', async (request, reply) => {
        if (exempt(request) || isStream(request)) return;
        if (inFlight >= maxInFlight) throw shed(reply, 'in_flight', 'too many requests in flight');
        inFlight += 1;
        // 'close' comes when the reply is finished or the client went away, whichever is first.
        reply.raw.once('close', () => {
          inFlight -= 1;
        });
      });
    }
  },
  { name: 'load-shedding' },
);
