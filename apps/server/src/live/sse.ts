/**
 * Server-sent event streams over the event bus, shared by every live stream of behaviour §7 (jobs, actions,
 * robots). A stream is a contract plus three decisions: which bus stream it reads, which keys the client
 * listed, and whether the caller may see an event. Everything else is here: the bearer check (the auth
 * plugin, as for any route), replay after Last-Event-ID, heartbeats, dropping clients that stop reading, and
 * closing when the caller's token expires or the server shuts down.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { decodeJwt } from 'jose';
import { z } from 'zod';
import { LastEventId, RESYNC_EVENT, type ResyncPayload, type RouteContract } from '@uvd/contracts';
import type { AppContext } from '../context.ts';
import type { Principal } from '../identity/principal.ts';
import { userStreams } from '../identity/revocation.ts';
import { badRequest, unauthorized } from '../lib/http-error.ts';
import { responseSchemas } from '../lib/route.ts';
import type { LiveEvent, Stream } from './bus.ts';
import { liveSettings, type LiveSettings } from './settings.ts';
import { createViewer, type Viewer } from './viewer.ts';

type Out<T> = T extends z.ZodType ? z.output<T> : undefined;

export interface StreamOptions<R extends RouteContract> {
  /** The bus stream the events come from. */
  stream: Stream;
  /** The keys (job ids, robot ids) the client listed; an empty list means every event the caller may see. */
  keysFromQuery(query: Out<R['querystring']>): readonly string[];
  /**
   * Whether the caller may receive this event of their organization (the organization is already checked).
   * Called once per event and connection, so it must answer from the viewer's cache, not a query per event.
   */
  authorize(event: LiveEvent, viewer: Viewer): boolean | Promise<boolean>;
}

/**
 * One `text/event-stream` frame of an event: its log id, its type and its payload as JSON. Transient events
 * have no id line, so the browser's last event id stays that of the last recorded event (HTML: a frame
 * without `id:` leaves it unchanged) and a reconnect replays from there.
 */
export const sseFrame = (event: LiveEvent): string =>
  `${event.transient ? '' : `id: ${event.id}\n`}event: ${event.type}\ndata: ${JSON.stringify(event.payload ?? null)}\n\n`;

export const HEARTBEAT_FRAME = ': ping\n\n';

/** Every connection of this process receives the same event object: its frame is serialised once. */
const frames = new WeakMap<LiveEvent, string>();
const frameOf = (event: LiveEvent): string => {
  let frame = frames.get(event);
  if (frame === undefined) {
    frame = sseFrame(event);
    frames.set(event, frame);
  }
  return frame;
};

const StreamQuery = z.object({ last_event_id: LastEventId.optional() });

/**
 * Connections with frames waiting to be written, flushed together. Telemetry is every robot's state to every
 * stream (1000 robots × 200 streams: 200 000 frames a second); one socket write per frame cost each of them a
 * write through the HTTP response's chunked encoding, a cork and uncork and a system call, which at 1000 robots
 * took more than the process had (bench/telemetry.ts: p99 of seconds, growing). Frames now go out as one write
 * per connection at the end of the event-loop turn that produced them (its check phase), and at most once every
 * FLUSH_INTERVAL_MS: after a quiet spell a frame leaves in its own turn, under a flood it waits at most that long.
 */
const FLUSH_INTERVAL_MS = 5;
const waitingFlush = new Set<() => void>();
let flushScheduled = false;
let flushedAt = 0;
const flushWaiting = () => {
  flushScheduled = false;
  flushedAt = performance.now();
  const flushes = [...waitingFlush];
  waitingFlush.clear();
  for (const flush of flushes) flush();
};
const scheduleFlush = (flush: () => void) => {
  waitingFlush.add(flush);
  if (flushScheduled) return;
  flushScheduled = true;
  const wait = FLUSH_INTERVAL_MS - (performance.now() - flushedAt);
  if (wait <= 0) setImmediate(flushWaiting);
  else setTimeout(flushWaiting, wait);
};

/**
 * Registers `contract` (a GET returning text/event-stream) as a live stream of `options.stream`. Open
 * connections are closed before the server stops, so `app.close()` does not wait for clients to hang up.
 */
export function registerStream<R extends RouteContract>(
  app: FastifyInstance,
  context: AppContext,
  contract: R,
  options: StreamOptions<R>,
): void {
  const settings = liveSettings(context.config);
  const open = new Set<() => void>();
  // uvd_live_streams reads how many are open at each scrape.
  context.metrics.watchLiveStreams(options.stream, open);
  app.addHook('preClose', async () => {
    for (const close of [...open]) close();
  });

  app.withTypeProvider<ZodTypeProvider>().route({
    method: contract.method,
    url: contract.path,
    schema: {
      summary: contract.summary,
      tags: [...contract.tags],
      security: [{ bearer: [] }],
      ...(contract.params ? { params: contract.params } : {}),
      ...(contract.querystring ? { querystring: contract.querystring } : {}),
      response: responseSchemas(contract, true),
    },
    config: { auth: true, roles: contract.roles },
    handler: async (request, reply) => {
      const principal = request.principal;
      if (!principal) throw unauthorized();
      // Validated by the contract's querystring schema before the handler runs.
      const query = request.query as Out<R['querystring']>;
      const keys = [...new Set(options.keysFromQuery(query))];
      const lastEventId = readLastEventId(request);
      const connection = openStream({
        request,
        reply,
        context,
        settings,
        principal,
        keys,
        lastEventId,
        expiresAt: tokenExpiry(request),
        options,
      });
      open.add(connection.close);
      connection.closed.finally(() => open.delete(connection.close)).catch(() => undefined);
      // A deleted or disabled user's streams end at once (identity/revocation.ts); the reconnect gets 401.
      connection.closed.finally(userStreams(context.database).watch(principal.sub, connection.close)).catch(() => undefined);
      return reply;
    },
  });
}

/** The `Last-Event-ID` header (what EventSource and fetch-based clients send), else the `last_event_id` query. */
function readLastEventId(request: FastifyRequest): number | undefined {
  const header = request.headers['last-event-id'];
  if (header !== undefined) {
    const parsed = LastEventId.safeParse(Array.isArray(header) ? header[0] : header);
    if (!parsed.success || (typeof header === 'string' && header.trim() === '')) {
      throw badRequest('Invalid header "Last-Event-ID": expected the id of the last event received.', {
        issues: [{ field: 'Last-Event-ID', message: 'expected a non-negative integer' }],
      });
    }
    return parsed.data;
  }
  return StreamQuery.safeParse(request.query).data?.last_event_id;
}

/** When the caller's access token expires (ms since epoch); the signature was checked by the auth plugin. */
function tokenExpiry(request: FastifyRequest): number | undefined {
  const token = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '')?.[1];
  if (!token) return undefined;
  try {
    const exp = decodeJwt(token).exp;
    return exp === undefined ? undefined : exp * 1000;
  } catch {
    return undefined;
  }
}

interface OpenArgs<R extends RouteContract> {
  request: FastifyRequest;
  reply: FastifyReply;
  context: AppContext;
  settings: LiveSettings;
  principal: Principal;
  keys: readonly string[];
  lastEventId: number | undefined;
  expiresAt: number | undefined;
  options: StreamOptions<R>;
}

interface Connection {
  close: () => void;
  /** Settles when the connection is gone, whoever ended it. */
  closed: Promise<void>;
}

/** Node's timers overflow above 2^31-1 ms (about 24.8 days). */
const MAX_TIMER_MS = 2_147_483_647;

function openStream<R extends RouteContract>(args: OpenArgs<R>): Connection {
  const { request, reply, context, settings, principal, keys, options } = args;
  const { bus } = context;
  const keySet = new Set(keys);
  const viewer = createViewer(context.db, principal, settings.visibilityRefreshMs);
  const raw = reply.raw;
  const log = request.log;

  // From here on the reply is ours: Fastify neither serialises nor compresses it.
  reply.hijack();
  const socket = request.raw.socket;
  socket.setNoDelay(true);
  socket.setKeepAlive(true, settings.heartbeatMs);
  // Headers set by earlier hooks (CORS, for one) would be lost with the hijack unless copied.
  const earlier = Object.entries(reply.getHeaders()).filter(
    (entry): entry is [string, string | number | string[]] => entry[1] !== undefined,
  );
  raw.writeHead(200, {
    ...Object.fromEntries(earlier),
    'content-type': 'text/event-stream; charset=utf-8',
    // no-transform keeps compressing proxies from buffering; X-Accel-Buffering does the same for nginx.
    'cache-control': 'no-cache, no-transform',
    'x-accel-buffering': 'no',
    connection: 'keep-alive',
  });

  let finished = false;
  let resolveClosed: () => void = () => undefined;
  const closed = new Promise<void>((resolve) => {
    resolveClosed = resolve;
  });
  let unsubscribe: () => void = () => undefined;
  let unsubscribeResync: () => void = () => undefined;
  const heartbeat = setInterval(() => {
    write(HEARTBEAT_FRAME);
  }, settings.heartbeatMs);
  heartbeat.unref();
  let expiry: NodeJS.Timeout | undefined;

  const cleanUp = () => {
    if (finished) return;
    finished = true;
    pending = '';
    waitingFlush.delete(flush);
    unsubscribe();
    unsubscribeResync();
    clearInterval(heartbeat);
    clearTimeout(expiry);
    resolveClosed();
  };
  /** Ends the stream in order: the client reconnects with Last-Event-ID. */
  const close = () => {
    if (finished) return;
    // What this turn wrote goes before the end (a flush that finds the client not reading drops it instead).
    flush();
    if (raw.destroyed) return;
    cleanUp();
    raw.end();
  };
  /** Cuts a client that cannot keep up; it reconnects and catches up from the event log. */
  const drop = (reason: string) => {
    if (finished) return;
    log.warn({ reason, user: principal.sub }, 'dropping live stream client');
    cleanUp();
    raw.destroy();
  };
  raw.on('close', cleanUp);
  raw.on('error', cleanUp);

  /**
   * How the connection takes events. `live`: as they come. `catching-up`: reading the log after the client's
   * Last-Event-ID, holding what comes meanwhile. `replaying`: a long replay whose live events are left to the
   * log rather than held without bound (the replay reads them; telemetry in between is superseded).
   */
  let phase: 'live' | 'catching-up' | 'replaying' = args.lastEventId === undefined ? 'live' : 'catching-up';
  let held: LiveEvent[] = [];
  let resyncDue = false;
  /** The id of the last recorded event sent (or skipped as not wanted): what the client's Last-Event-ID will be. */
  let cursor = args.lastEventId;

  /** Frames written in this turn of the event loop, not yet handed to the socket (see `scheduleFlush`). */
  let pending = '';
  /** Hands the frames of this turn to the socket, in one write. */
  function flush() {
    if (finished || pending === '') return;
    const text = pending;
    pending = '';
    waitingFlush.delete(flush);
    raw.write(text);
    // write() returning false alone is normal under load; a buffer past the bound is a client not reading. A
    // replay waits for 'drain' instead, so its own burst is not taken for that.
    if (phase === 'live' && raw.writableLength > settings.maxBufferedBytes) drop('client is not reading');
  }
  const write = (text: string) => {
    if (finished) return;
    if (pending === '') scheduleFlush(flush);
    pending += text;
  };

  /** Resolves when the client has taken what is buffered, or the connection is gone. */
  const drained = () =>
    new Promise<void>((resolve) => {
      // A client that reads nothing at all must not hold a replay open forever.
      if (finished) {
        resolve();
        return;
      }
      const stall = setTimeout(() => {
        drop('client is not reading');
        done();
      }, settings.replayStallMs);
      const done = () => {
        clearTimeout(stall);
        raw.off('drain', done);
        raw.off('close', done);
        resolve();
      };
      raw.on('drain', done);
      raw.on('close', done);
    });

  let queued = 0;
  let sending: Promise<void> = Promise.resolve();
  /** Runs `task` after everything queued before it, so frames keep their order. */
  const enqueue = (task: () => Promise<void>) => {
    queued++;
    sending = sending
      .then(task)
      .catch((error: unknown) => {
        log.error({ err: error }, 'live event could not be checked');
        drop('authorization failed');
      })
      .finally(() => {
        queued--;
      });
  };
  const send = (event: LiveEvent) => {
    if (finished) return;
    // Fast path (telemetry: every event to hundreds of clients): nothing waiting and a synchronous answer,
    // so the frame is written at once, in order, without a promise per event and connection.
    if (queued === 0) {
      let allowed: boolean | Promise<boolean>;
      try {
        allowed = options.authorize(event, viewer);
      } catch (error) {
        log.error({ err: error }, 'live event could not be checked');
        drop('authorization failed');
        return;
      }
      if (typeof allowed === 'boolean') {
        if (allowed) write(frameOf(event));
        return;
      }
      const pending = allowed;
      enqueue(async () => {
        if (!finished && (await pending)) write(frameOf(event));
      });
      return;
    }
    if (queued >= settings.maxQueuedEvents) {
      drop('too many events waiting');
      return;
    }
    enqueue(async () => {
      if (!finished && (await options.authorize(event, viewer))) write(frameOf(event));
    });
  };
  /** A live event, unless the client has it already (replayed, or seen on another server process). */
  const sendLive = (event: LiveEvent) => {
    if (!event.transient) {
      if (cursor !== undefined && event.id <= cursor) return;
      cursor = event.id;
    }
    send(event);
  };
  /**
   * Tells the client to refetch what it shows. The frame's id is the position it resumes from: every recorded
   * event up to it was sent or stands replaced by the refetch.
   */
  const resyncFrame = (reason: ResyncPayload['reason']) => {
    cursor = Math.max(cursor ?? 0, bus.settledId());
    return `id: ${cursor}\nevent: ${RESYNC_EVENT}\ndata: ${JSON.stringify({ reason } satisfies ResyncPayload)}\n\n`;
  };

  const wanted = (event: LiveEvent) =>
    event.orgId === principal.orgId && (keySet.size === 0 || keySet.has(event.key));

  // Subscribe before reading the log. Events reach the bus in id order, and only once every lower id is settled,
  // so a replay up to the settled id followed by the held events with a higher id misses nothing and repeats
  // nothing.
  unsubscribe = bus.subscribe(options.stream, (event) => {
    if (!wanted(event)) return;
    if (phase === 'live') sendLive(event);
    else if (phase === 'catching-up') {
      held.push(event);
      if (held.length > settings.maxQueuedEvents) {
        phase = 'replaying';
        held = [];
      }
    }
  });
  /** After the frames queued before it, like an event. */
  const sendResync = (reason: ResyncPayload['reason']) => {
    const frame = resyncFrame(reason);
    if (queued === 0) write(frame);
    else
      enqueue(async () => {
        write(frame);
      });
  };
  unsubscribeResync = bus.onResync(() => {
    if (phase === 'live') sendResync('database');
    else resyncDue = true;
  });

  write(`retry: ${settings.retryMs}\n: connected\n\n`);
  if (args.expiresAt !== undefined) {
    // The token that opened the stream is its only proof of identity; when it expires the client must
    // reconnect with a fresh one, as every other call would.
    expiry = setTimeout(
      () => {
        write(': token expired\n\n');
        close();
      },
      Math.min(MAX_TIMER_MS, Math.max(0, args.expiresAt - Date.now())),
    );
    expiry.unref();
  }

  if (args.lastEventId !== undefined) {
    catchUp(args.lastEventId).catch((error: unknown) => {
      log.error({ err: error }, 'live replay failed');
      drop('replay failed');
    });
  }

  /** Writes `frame` as fast as the client reads, never past the socket's buffer. */
  async function writeReplayed(frame: string): Promise<void> {
    // What was written before (the preamble, a heartbeat) goes first.
    flush();
    if (finished) return;
    if (!raw.write(frame)) await drained();
  }

  async function catchUp(lastEventId: number): Promise<void> {
    let horizonChecked = false;
    for (;;) {
      // A short page ends the replay only if live events were held since before it was read.
      const holding = phase === 'catching-up';
      const page = await bus.replay(principal.orgId, options.stream, cursor ?? lastEventId, settings.replayPageSize, keys);
      // Events after the Last-Event-ID may have been pruned: the client refetches instead of trusting a partial
      // replay, and resumes from now. The horizon is read after the first page, so that a prune landing between
      // the two reads is seen too (read before it, such a prune left a partial replay looking whole).
      if (!horizonChecked) {
        horizonChecked = true;
        if (lastEventId < (await bus.horizon())) {
          await writeReplayed(resyncFrame('horizon'));
          continue;
        }
      }
      for (const event of page) {
        if (finished) return;
        cursor = event.id;
        if (await options.authorize(event, viewer)) await writeReplayed(frameOf(event));
      }
      if (finished) return;
      if (page.length < settings.replayPageSize) {
        // Still holding, and without a pause: nothing was left to the log while this page was read.
        if (holding && phase === 'catching-up') break;
        phase = 'catching-up';
        held = [];
      }
    }
    // Live events are bounded by the unread-bytes limit again, so start them on an empty buffer.
    if (raw.writableNeedDrain) {
      await drained();
      if (raw.destroyed) return;
    }
    const waiting = held;
    held = [];
    phase = 'live';
    for (const event of waiting) sendLive(event);
    // After the held events: the bus delivered what it read back before it asked for the resync.
    if (resyncDue) sendResync('database');
  }

  return { close, closed };
}
