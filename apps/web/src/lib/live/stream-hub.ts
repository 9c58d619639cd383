import { RESYNC_EVENT, reconnectDelayMs, refusedDelayMs, retryAfterMs } from '@uvd/contracts';
import { readSseStream } from './sse-reader.ts';

/** Opens one stream for these ids; resolves with the response whose body is the event stream. */
export type StreamConnect = (ids: readonly string[], lastEventId: string | undefined, signal: AbortSignal) => Promise<Response>;

export interface StreamHubOptions<T> {
  connect: StreamConnect;
  /** The SSE event name this hub listens to; other frames are ignored. */
  event: string;
  /** Turns a frame's data into a payload, or null when it does not parse with the contract. */
  parse: (data: string) => T | null;
  /** Receives every payload that parses, once per event whatever the number of subscribers. */
  onEvent: (payload: T) => void;
  /** Frames of the stream's other events (not `resync`), by name, with their data. */
  onOther?: (event: string, data: string) => void;
  /**
   * Called with the stream's ids when the client may have missed what the stream does not replay: after every
   * reconnect (any connection but the first attempt's) and on every `resync` frame. The server replays events
   * after Last-Event-ID only within its horizon and never replays telemetry (battery, mode, status), so the
   * subscriber refetches what it shows. Once per stream, whatever the number of subscribers.
   */
  onResync?: (ids: readonly string[]) => void;
  /**
   * Calls onResync also when the first connection opens. The subscriber's first read and the stream's subscription
   * on the server race, and a change committed between the two reaches neither (a first connection has no
   * Last-Event-ID to replay from): on a busy server a delivery showed In transit for good while its robot waited
   * for loading. For streams of recorded changes (jobs, prompts, deliveries), which the console shows until the
   * next change; not for telemetry, which the robot sends again within a second.
   */
  resyncFirstOpen?: boolean;
  /**
   * The reconnect schedule (contracts' reconnectDelayMs): the wait is drawn at random ("full jitter") from zero up
   * to a window that starts at initialDelayMs and doubles after each failed attempt up to maxDelayMs, so consoles
   * dropped together (a server restart) do not come back together. A connection that stays open for maxDelayMs
   * starts the schedule again; one that ends sooner counts as a failed attempt. A refusal with 503 and
   * Retry-After (the server is at its stream limit, or overloaded) waits at least that long, plus the draw.
   */
  initialDelayMs?: number;
  maxDelayMs?: number;
  /** The draw in [0, 1) of each wait (Math.random); a test passes its own. */
  random?: () => number;
  /**
   * Where the page's `pagehide` and `pageshow` are heard (the window by default). Every open stream closes on
   * `pagehide` and reopens on a `pageshow` that restores the page from the back/forward cache: a cached page
   * that kept its streams would hold its connections, and the browser's six per server are used up after a few
   * full page loads (the next page, or its document, then waits for a connection that never frees).
   */
  lifecycle?: EventTarget;
}

interface Connection {
  ids: readonly string[];
  refs: number;
  controller: AbortController;
  /** The open attempt's own controller: aborted when the page is hidden, without releasing the stream. */
  attempt: AbortController | null;
  /** An id the server sends is handed back on reconnect. */
  lastEventId: string | undefined;
}

/** The stream's identity: the same ids in any order (or repeated) share one connection. */
export const streamKey = (ids: readonly string[]): string => [...new Set(ids)].sort().join(',');

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });

const abortedPromise = (signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => { resolve(); }, { once: true });
  });

/** JSON-decodes a frame's data and checks it with a schema (anything with safeParse, e.g. a zod schema). */
export const jsonParser =
  <T>(schema: { safeParse: (value: unknown) => { success: true; data: T } | { success: false } }) =>
  (data: string): T | null => {
    let json: unknown;
    try {
      json = JSON.parse(data);
    } catch {
      return null;
    }
    const parsed = schema.safeParse(json);
    return parsed.success ? parsed.data : null;
  };

/**
 * One connection per stream (keyed by its id list), shared by every subscriber (reference-counted): the first
 * subscription opens it, the last release closes it. A dropped or refused connection is reopened with jittered
 * exponential backoff (a 503's Retry-After honoured), and what it may have missed is refetched through onResync
 * (also on the server's `resync` frame, after which the same connection is read on).
 */
export class StreamHub<T> {
  private readonly connections = new Map<string, Connection>();
  private readonly initialDelayMs: number;
  private readonly maxDelayMs: number;
  private readonly random: () => number;
  /** Set while the page is hidden (pagehide until pageshow): no stream is open or opened. */
  private hidden: { shown: Promise<void>; show: () => void } | null = null;

  constructor(private readonly options: StreamHubOptions<T>) {
    this.initialDelayMs = options.initialDelayMs ?? 1000;
    this.maxDelayMs = options.maxDelayMs ?? 30_000;
    this.random = options.random ?? Math.random;
    const lifecycle = options.lifecycle ?? (typeof window === 'undefined' ? undefined : window);
    lifecycle?.addEventListener('pagehide', () => {
      this.hide();
    });
    lifecycle?.addEventListener('pageshow', () => {
      this.show();
    });
  }

  private hide(): void {
    if (this.hidden) return;
    let resolveShown: (() => void) | undefined;
    const shown = new Promise<void>((resolve) => {
      resolveShown = resolve;
    });
    this.hidden = {
      shown,
      show: () => {
        resolveShown?.();
      },
    };
    for (const connection of this.connections.values()) connection.attempt?.abort();
  }

  private show(): void {
    const hidden = this.hidden;
    this.hidden = null;
    hidden?.show();
  }

  /** Watches these ids; call the returned function to stop (calling it twice is harmless). */
  subscribe(ids: readonly string[]): () => void {
    const key = streamKey(ids);
    let connection = this.connections.get(key);
    if (!connection) {
      connection = { ids: key === '' ? [] : key.split(','), refs: 0, controller: new AbortController(), attempt: null, lastEventId: undefined };
      this.connections.set(key, connection);
      void this.run(connection);
    }
    connection.refs += 1;
    const held = connection;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      held.refs -= 1;
      if (held.refs === 0) {
        held.controller.abort();
        if (this.connections.get(key) === held) this.connections.delete(key);
      }
    };
  }

  /** Open streams and their subscriber counts, keyed by streamKey (for tests and diagnostics). */
  snapshot(): Map<string, number> {
    return new Map([...this.connections].map(([key, connection]) => [key, connection.refs]));
  }

  private async run(connection: Connection): Promise<void> {
    const { signal } = connection.controller;
    // A function, so the checks after each await read the live flag (the release may happen meanwhile).
    const stopped = () => signal.aborted;
    let attempt = 0;
    // The first attempt follows the subscriber's own read (resyncFirstOpen: which may have missed a change); any
    // later one may follow a gap, even if the first attempt was refused and this is the first connection that opens.
    let resyncAtOpen = this.options.resyncFirstOpen === true;
    const resync = () => {
      this.options.onResync?.(connection.ids);
    };
    while (!signal.aborted) {
      if (this.hidden) {
        await Promise.race([this.hidden.shown, abortedPromise(signal)]);
        if (stopped()) return;
        // Back from the back/forward cache: reopened at once, and what happened meanwhile refetched.
        attempt = 0;
        resyncAtOpen = true;
      }
      let openedAt: number | null = null;
      /** What a 503 asked for (ms), if it did. */
      let retryAfter: number | null = null;
      const current = new AbortController();
      const release = () => {
        current.abort();
      };
      signal.addEventListener('abort', release, { once: true });
      connection.attempt = current;
      try {
        const response = await this.options.connect(connection.ids, connection.lastEventId, current.signal);
        if (response.status === 503) retryAfter = retryAfterMs(response.headers.get('Retry-After'));
        if (!response.ok || !response.body) {
          // The refusal's body (the API's error) is not read: release the connection at once.
          void response.body?.cancel().catch(() => undefined);
          throw new Error(`stream answered ${response.status}`);
        }
        openedAt = Date.now();
        // Refetched once the stream is open, so whatever changes after the refetch's read arrives as an event.
        if (resyncAtOpen && !stopped()) resync();
        await readSseStream(response.body, current.signal, (frame) => {
          if (frame.id !== undefined && frame.id !== '') connection.lastEventId = frame.id;
          // The frame's name is the whole message (its reason is for the server's logs): a malformed payload
          // still means the server could not replay, and a refetch too many costs one request.
          if (frame.event === RESYNC_EVENT) {
            resync();
            return;
          }
          if (frame.event !== this.options.event) {
            this.options.onOther?.(frame.event, frame.data);
            return;
          }
          const payload = this.options.parse(frame.data);
          if (payload !== null) this.options.onEvent(payload);
        });
      } catch {
        // A refused or broken connection is retried below like one that ended.
      } finally {
        signal.removeEventListener('abort', release);
        connection.attempt = null;
      }
      resyncAtOpen = true;
      if (stopped()) return;
      // Closed because the page was hidden: it waits for the page to show again, not for a backoff.
      if (this.hidden) continue;
      // Only a connection that lasted is a recovery: a server that accepts and drops the stream at once would
      // otherwise be reconnected to, and every list refetched, each initialDelayMs.
      if (openedAt !== null && Date.now() - openedAt >= this.maxDelayMs) attempt = 0;
      const backoff = { initialMs: this.initialDelayMs, maxMs: this.maxDelayMs };
      const delay = retryAfter === null ? reconnectDelayMs(attempt, backoff, this.random) : refusedDelayMs(retryAfter, attempt, backoff, this.random);
      attempt += 1;
      await sleep(delay, signal);
    }
  }
}

/**
 * Opens a stream with fetch, sending the session's bearer token (re-read on every reconnect): EventSource cannot
 * send the header. `base` is the backend's base URL, `query` the parameter carrying the comma-joined ids.
 */
export const fetchStream =
  (api: { getAccessToken: () => string | null | undefined }, base: () => string, path: string, query: string): StreamConnect =>
  (ids, lastEventId, signal) => {
    const url = new URL(`${base().replace(/\/$/, '')}${path}`, window.location.href);
    if (ids.length > 0) url.searchParams.set(query, ids.join(','));
    const headers = new Headers({ Accept: 'text/event-stream' });
    const token = api.getAccessToken();
    if (token) headers.set('Authorization', `Bearer ${token}`);
    if (lastEventId) headers.set('Last-Event-ID', lastEventId);
    // Read at call time, so the page's fetch (or a test's) is the one used.
    return globalThis.fetch(url, { headers, signal, cache: 'no-store' });
  };
