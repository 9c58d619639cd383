/**
 * A server-sent events client for tests, reading the stream the way the SPA's fetch-based client does
 * (bearer header, Last-Event-ID header) and splitting it with the contract's `parseSseFrames`.
 */
import { parseSseFrames, type SseFrame } from '@uvd/contracts';

export interface StreamOptions {
  token?: string | undefined;
  query?: Record<string, string | number | readonly string[]>;
  headers?: Record<string, string>;
}

export interface SseClient {
  status: number;
  headers: Headers;
  /** The JSON (or text) body of a refused stream; undefined for a 200. */
  error: unknown;
  /** Every frame received so far, heartbeats included. */
  frames: SseFrame[];
  /** The next frame carrying an event (not a comment-only frame), waiting up to `timeoutMs`. */
  nextEvent(timeoutMs?: number): Promise<SseFrame>;
  /** Waits until a frame satisfies `predicate` (looking at every frame received so far too). */
  waitFor(predicate: (frame: SseFrame) => boolean, timeoutMs?: number): Promise<SseFrame>;
  /** Settles when the server ends the stream or the connection breaks. */
  ended: Promise<void>;
  close(): void;
}

export async function openSse(baseUrl: string, path: string, options: StreamOptions = {}): Promise<SseClient> {
  const target = new URL(path, baseUrl);
  for (const [key, value] of Object.entries(options.query ?? {})) {
    if (Array.isArray(value)) for (const item of value) target.searchParams.append(key, String(item));
    else target.searchParams.set(key, String(value));
  }
  const headers: Record<string, string> = { accept: 'text/event-stream', ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  const abort = new AbortController();
  const response = await fetch(target, { headers, signal: abort.signal });

  const frames: SseFrame[] = [];
  let cursor = 0;
  const waiters = new Set<() => void>();
  const wake = () => {
    for (const waiter of [...waiters]) waiter();
  };
  let done = false;

  let error: unknown;
  let ended: Promise<void> = Promise.resolve();
  if (response.status !== 200) {
    const text = await response.text();
    error = response.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text;
    done = true;
  } else if (response.body) {
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    ended = (async () => {
      let rest = '';
      try {
        for (;;) {
          const { value, done: finished } = await reader.read();
          if (finished) break;
          const parsed = parseSseFrames(rest + value);
          rest = parsed.rest;
          frames.push(...parsed.frames);
          wake();
        }
      } catch {
        // aborted by close() or cut by the server
      } finally {
        done = true;
        wake();
      }
    })();
  }

  const waitUntil = <T>(check: () => T | undefined, timeoutMs: number, what: string): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      const attempt = () => {
        const found = check();
        if (found !== undefined) {
          finish();
          resolve(found);
        } else if (done) {
          finish();
          reject(new Error(`Stream ended while waiting for ${what}.`));
        }
      };
      const timer = setTimeout(() => {
        finish();
        reject(new Error(`Timed out after ${timeoutMs} ms waiting for ${what}.`));
      }, timeoutMs);
      const finish = () => {
        clearTimeout(timer);
        waiters.delete(attempt);
      };
      waiters.add(attempt);
      attempt();
    });

  return {
    status: response.status,
    headers: response.headers,
    error,
    frames,
    nextEvent: (timeoutMs = 5000) =>
      waitUntil(
        () => {
          while (cursor < frames.length) {
            const frame = frames[cursor++];
            if (frame && (frame.data !== '' || frame.id !== undefined)) return frame;
          }
          return undefined;
        },
        timeoutMs,
        'an event',
      ),
    waitFor: (predicate, timeoutMs = 5000) => waitUntil(() => frames.find(predicate), timeoutMs, 'a matching frame'),
    ended,
    close: () => {
      abort.abort();
    },
  };
}

/** Polls `check` until it holds, for conditions with no event to wait on (listener counts). */
export async function eventually(check: () => boolean, timeoutMs = 5000, intervalMs = 20): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`Condition not met within ${timeoutMs} ms.`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
