/**
 * Consoles' live streams, played in a worker thread for a test of many at once (live/reconnect-storm.test.ts): each
 * reconnects as the console's StreamHub does, sending its Last-Event-ID, and once a reconnect opens, refetches the
 * list as the console does (onResync). On a thread of their own, the clients' reading and reconnecting is not work of
 * the server's event loop, as a hospital's consoles are not: played on the server's thread, they made a restart's
 * storm look twice as slow on a loaded machine, and their load counted in the server's event loop checks.
 *
 * The test sends `start`, `base` when the server behind the clients' address changes (a restart behind a load
 * balancer), and `stop`; the clients answer `opened` for each connection, `event` for each event with an id, `moved`
 * and `stopped`.
 */
import { setTimeout as wait } from 'node:timers/promises';
import { parentPort } from 'node:worker_threads';
import { parseSseFrames, reconnectDelayMs, refusedDelayMs, retryAfterMs, type ReconnectBackoff } from '@uvd/contracts';
import { raiseThreadPriority } from './thread-priority.ts';

export interface StreamClientsStart {
  type: 'start';
  base: string;
  /** The stream's path and the list the clients refetch on a reconnect, from the base. */
  streamPath: string;
  listPath: string;
  token: string;
  clients: number;
  backoff: ReconnectBackoff;
}
export type ToStreamClients = StreamClientsStart | { type: 'base'; base: string } | { type: 'stop' };
export type FromStreamClients =
  | { type: 'opened'; client: number; connection: number }
  | { type: 'event'; client: number; id: string; connection: number; at: number }
  | { type: 'moved' }
  | { type: 'stopped' };

const port = parentPort;
if (!port) throw new Error('stream-clients.ts runs as a worker thread');
const send = (message: FromStreamClients) => {
  port.postMessage(message);
};

let base = '';
const stop = new AbortController();
const stopped = () => stop.signal.aborted;

/** Waits `ms`, or less if the clients stop meanwhile. */
const sleep = (ms: number) => wait(ms, undefined, { signal: stop.signal }).catch(() => undefined);

/** One console's stream, until stopped. */
async function streamClient(client: number, start: StreamClientsStart): Promise<void> {
  let connections = 0;
  let lastEventId: string | undefined;

  /** The list, as the console's query refetches it; its answer (200, or 503 under load) is not the test's. */
  const refetch = async () => {
    try {
      const response = await fetch(`${base}${start.listPath}`, { headers: { authorization: `Bearer ${start.token}` }, signal: stop.signal });
      await response.body?.cancel();
    } catch {
      // stopped
    }
  };

  const read = async (body: ReadableStream<Uint8Array>, connection: number) => {
    let rest = '';
    const reader = body.pipeThrough(new TextDecoderStream()).getReader();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      const parsed = parseSseFrames(rest + value);
      rest = parsed.rest;
      for (const frame of parsed.frames) {
        if (frame.id !== undefined && frame.id !== '') lastEventId = frame.id;
        if (frame.event === 'job_change' && frame.id !== undefined) send({ type: 'event', client, id: frame.id, connection, at: Date.now() });
      }
    }
  };

  let attempt = 0;
  while (!stopped()) {
    let retryAfter: number | null = null;
    let openedAt: number | null = null;
    try {
      const headers: Record<string, string> = { accept: 'text/event-stream', authorization: `Bearer ${start.token}` };
      if (lastEventId !== undefined) headers['last-event-id'] = lastEventId;
      const response = await fetch(`${base}${start.streamPath}`, { headers, signal: stop.signal });
      if (response.status === 503) retryAfter = retryAfterMs(response.headers.get('retry-after'));
      if (response.status !== 200 || !response.body) {
        await response.body?.cancel();
      } else {
        openedAt = Date.now();
        connections += 1;
        send({ type: 'opened', client, connection: connections });
        if (connections > 1) void refetch();
        await read(response.body, connections);
      }
    } catch {
      // Refused (the server is down), cut, or stopped: retried below like a stream that ended.
    }
    if (stopped()) return;
    if (openedAt !== null && Date.now() - openedAt >= start.backoff.maxMs) attempt = 0;
    await sleep(retryAfter === null ? reconnectDelayMs(attempt, start.backoff) : refusedDelayMs(retryAfter, attempt, start.backoff));
    attempt += 1;
  }
}

let running: Promise<void>[] = [];
port.on('message', (message: ToStreamClients) => {
  if (message.type === 'start') {
    // The clients are the measure's other half: they keep a raised priority until the thread ends with the test.
    raiseThreadPriority();
    base = message.base;
    running = Array.from({ length: message.clients }, (_, client) => streamClient(client, message));
  } else if (message.type === 'base') {
    base = message.base;
    send({ type: 'moved' });
  } else {
    stop.abort();
    void Promise.all(running).then(() => {
      send({ type: 'stopped' });
    });
  }
});
