import { ApiError } from '@uvd/contracts';
import type { RouteContract } from '@uvd/contracts';

/**
 * The network, faked at the one boundary the console has: the `fetch` the API client calls. Everything
 * above it (the XSRF and bearer headers, serialisation, error mapping, contract parsing) runs for real.
 * Replies are recorded per contract and checked against the contract's schema for their status when registered,
 * so a test cannot feed the app a shape the server would never send.
 */
export interface RecordedRequest {
  method: string;
  url: URL;
  headers: Headers;
  body: string;
  /** The body as a form (identity provider calls). */
  form: URLSearchParams;
}

/** `headers` are extra reply headers (Retry-After). */
export type Reply = { status: number; body?: unknown; headers?: Record<string, string> } | { networkError: true } | { hang: true };
export type Handler = (request: RecordedRequest) => Reply | Promise<Reply>;

/**
 * A slow network: the reply is taken when the request arrives (the server's state then) and sent only on `release()`.
 * `asked()` tells whether the request has come.
 */
export function heldReply(reply: () => Reply): { handler: Handler; release: () => void; asked: () => boolean } {
  let release: (() => void) | undefined;
  return {
    handler: async () => {
      const snapshot = reply();
      await new Promise<void>((resolve) => {
        release = resolve;
      });
      return snapshot;
    },
    release: () => release?.(),
    asked: () => release !== undefined,
  };
}

interface Route {
  method: string;
  pattern: RegExp;
  contract: RouteContract;
  handler: Handler;
  times: number | null;
}

const patternOf = (path: string): RegExp =>
  new RegExp(`${path.replace(/[.*+^${}()|[\]\\]/g, '\\$&').replace(/\/:[A-Za-z_]+\?/g, '(?:/[^/]+)?').replace(/:[A-Za-z_]+/g, '[^/]+')}$`);

const checked = (contract: RouteContract, reply: Reply): Reply => {
  if (!('status' in reply)) return reply;
  // Error replies not declared by a contract come in the API's one error shape (behaviour §8).
  const schema = contract.response[reply.status] ?? (reply.status >= 400 ? ApiError : undefined);
  if (!schema) throw new Error(`${contract.method} ${contract.path} declares no reply ${reply.status}`);
  schema.parse(reply.body ?? null);
  return reply;
};

export class FakeNetwork {
  readonly requests: RecordedRequest[] = [];
  private readonly routes: Route[] = [];

  /** Answers every matching call (the last registration wins) with a fixed reply or a handler's. */
  on(contract: RouteContract, reply: Reply | Handler, options: { times?: number } = {}): this {
    const handler: Handler = typeof reply === 'function' ? reply : () => reply;
    this.routes.unshift({ method: contract.method, pattern: patternOf(contract.path), contract, handler, times: options.times ?? null });
    return this;
  }

  /** Recorded calls of one contract, oldest first. */
  callsTo(contract: RouteContract): RecordedRequest[] {
    const pattern = patternOf(contract.path);
    return this.requests.filter((request) => request.method === contract.method && pattern.test(request.url.pathname));
  }

  readonly fetch: typeof fetch = async (input, init) => {
    const request = new Request(input, init);
    const body = request.method === 'GET' || request.method === 'HEAD' ? '' : await request.text();
    const recorded: RecordedRequest = {
      method: request.method,
      url: new URL(request.url),
      headers: request.headers,
      body,
      form: new URLSearchParams(body),
    };
    this.requests.push(recorded);
    const route = this.routes.find((candidate) => candidate.method === recorded.method && candidate.pattern.test(recorded.url.pathname));
    if (!route) return new Response(JSON.stringify({ error: 'not_found', message: `no fake for ${recorded.method} ${recorded.url.pathname}` }), { status: 404, headers: { 'content-type': 'application/json' } });
    if (route.times !== null) {
      route.times -= 1;
      if (route.times === 0) this.routes.splice(this.routes.indexOf(route), 1);
    }
    const reply = checked(route.contract, await route.handler(recorded));
    const signal = init?.signal ?? request.signal;
    if ('networkError' in reply) throw new TypeError('fetch failed');
    if ('hang' in reply) {
      return new Promise<Response>((_, reject) => {
        // Like fetch, with the signal's reason (a TimeoutError for AbortSignal.timeout), else an AbortError.
        const abort = () => {
          const reason: unknown = signal.reason;
          reject(reason instanceof Error ? reason : new DOMException('The operation was aborted.', 'AbortError'));
        };
        // Like fetch, a signal aborted before the call rejects at once.
        if (signal.aborted) abort();
        else signal.addEventListener('abort', abort);
      });
    }
    // A file reply (a PDF or CSV, named by its content-type header) goes on the wire as it is, not as JSON.
    const file = typeof reply.body === 'string' && /^(application\/pdf|text\/csv)/.test(reply.headers?.['content-type'] ?? '') ? reply.body : null;
    const text = reply.body === undefined || reply.body === null ? null : (file ?? JSON.stringify(reply.body));
    return new Response(reply.status === 204 ? null : text, {
      status: reply.status,
      headers: { ...(text === null ? {} : { 'content-type': 'application/json' }), ...reply.headers },
    });
  };
}
