import { buildPath, retryAfterMs } from '@uvd/contracts';
import type { RouteContract } from '@uvd/contracts';
import type { z } from 'zod';
import type { Backend, RuntimeConfig } from '../config/runtime-config.ts';
import { ApiRequestError, statusError, toApiRequestError } from './api-error.ts';

/** Behaviour §9 anti-forgery names; the server issues the cookie and checks the header on state-changing calls. */
export const XSRF_COOKIE_NAME = 'XSRF-TOKEN';
export const XSRF_HEADER_NAME = 'X-XSRF-TOKEN';

// ---- types derived from a contract --------------------------------------------------------------------------

type Input<C, K extends string> = C extends { [P in K]: infer S extends z.ZodType } ? z.input<S> : undefined;
type SuccessStatus = 200 | 201 | 202 | 204;
type Responses<C extends RouteContract> = C['response'];
/** The parsed reply of a call: the union of the contract's 2xx reply schemas. */
export type ReplyOf<C extends RouteContract> = {
  [S in keyof Responses<C> & SuccessStatus]: Responses<C>[S] extends z.ZodType ? z.output<Responses<C>[S]> : never;
}[keyof Responses<C> & SuccessStatus];

/** Params and body are required when the contract declares them; the query is optional (its schema has defaults). */
export type RequestParts<C extends RouteContract> = (C extends { params: z.ZodType }
  ? { params: Input<C, 'params'> }
  : { params?: undefined }) &
  (C extends { querystring: z.ZodType } ? { query?: Input<C, 'querystring'> } : { query?: undefined }) &
  (C extends { body: z.ZodType } ? { body: Input<C, 'body'> } : { body?: undefined }) & {
    signal?: AbortSignal;
    /** Send the body as application/x-www-form-urlencoded (the identity provider's grants). */
    form?: boolean;
    /** Bearer token for this call instead of the session's (the logout call of behaviour §7). */
    bearer?: string;
    /** Extra headers: a command's Idempotency-Key (lib/command.ts). */
    headers?: Record<string, string>;
    /** Safe to send again (a command with an Idempotency-Key): retried when no reply came or on 503 Retry-After. */
    retry?: boolean;
  };

interface WireParts {
  params?: unknown;
  query?: unknown;
  body?: unknown;
  signal?: AbortSignal | undefined;
  form?: boolean | undefined;
  bearer?: string | undefined;
  headers?: Record<string, string> | undefined;
  retry?: boolean | undefined;
}

// ---- serialisation -------------------------------------------------------------------------------------------

type Scalar = string | number | boolean;
const isScalar = (value: unknown): value is Scalar =>
  typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';

const entriesOf = (value: unknown, what: string): [string, unknown][] => {
  if (value === undefined || value === null) return [];
  if (typeof value !== 'object' || Array.isArray(value)) throw new TypeError(`${what} must be an object`);
  return Object.entries(value);
};

/** Path parameters substituted by the contract's own `buildPath`. */
export const pathOf = (contract: RouteContract, params: unknown): string => {
  const values: Record<string, string | number> = {};
  for (const [name, value] of entriesOf(params, 'params')) {
    if (typeof value === 'string' || typeof value === 'number') values[name] = value;
  }
  return buildPath(contract.path, values);
};

/**
 * Lists are repeated parameters (`robot_id=a&robot_id=b`, behaviour §7 "robot_id (repeatable)"), the form every
 * list query schema of the contracts accepts; dates travel as ISO 8601.
 */
export const serialiseQuery = (query: unknown): URLSearchParams => {
  const search = new URLSearchParams();
  const add = (name: string, value: unknown) => {
    if (value instanceof Date) search.append(name, value.toISOString());
    else if (isScalar(value)) search.append(name, String(value));
  };
  for (const [name, value] of entriesOf(query, 'query')) {
    if (Array.isArray(value)) for (const item of value) add(name, item);
    else add(name, value);
  }
  return search;
};

const formOf = (body: unknown): URLSearchParams => {
  const form = new URLSearchParams();
  for (const [name, value] of entriesOf(body, 'form')) if (isScalar(value)) form.append(name, String(value));
  return form;
};

// ---- the client ----------------------------------------------------------------------------------------------

/**
 * Which backend of the runtime config answers a path (behaviour §7 lists the backends; contracts carry only paths).
 * Keyed by the first path segment, or the second under `/admin`.
 */
const BACKEND_BY_SEGMENT: Record<string, Backend> = {
  jobs: 'jobs',
  action: 'action',
  command: 'command',
  robot: 'robots',
  rooms: 'rooms',
  floors: 'rooms',
  buildings: 'rooms',
  log: 'logs',
  user: 'users',
  group: 'users',
  contact: 'users',
  settings: 'users',
  subscribe: 'notifications',
  unsubscribe: 'notifications',
  remove: 'notifications',
  deliveries: 'logistics',
  // Administration of the organization, beside its users and groups.
  audit: 'users',
  webhooks: 'users',
  // The reports read the logs: the logs backend serves them.
  reports: 'logs',
  // The local mail catcher (a server without SMTP_URL) holds the mail of the users' accounts: password reset links.
  dev: 'users',
};

export const backendOf = (path: string): Backend => {
  const [first = '', second = ''] = path.split('/').filter(Boolean);
  const backend = BACKEND_BY_SEGMENT[first === 'admin' ? second : first];
  if (!backend) throw new Error(`No backend of the runtime config serves ${path}`);
  return backend;
};

export interface HttpClientOptions {
  /** The fetch to call; tests pass a fake network here (and nowhere else). */
  fetch?: typeof fetch;
  /** The session's access token, read on every call so a refresh applies at once (behaviour §6). */
  getAccessToken?: () => string | null;
}

/** What one call puts on the wire, besides its address. */
export interface HttpCall {
  method: string;
  /** Serialised query, without `?`; empty for none. */
  query: string;
  /** A JSON body, or a form (the identity provider's grants). */
  body?: { json: unknown } | { form: URLSearchParams } | undefined;
  signal?: AbortSignal | undefined;
  /** Bearer token for this call instead of the session's. */
  bearer?: string | undefined;
  headers?: Record<string, string> | undefined;
}

/** One backend's client: fetch on its base address, with the headers every call carries. */
export interface HttpInstance {
  send(path: string, call: HttpCall): Promise<Response>;
}

const readCookie = (name: string): string | null => {
  if (typeof document === 'undefined') return null;
  for (const pair of document.cookie.split(';')) {
    const [key = '', ...value] = pair.trim().split('=');
    if (key === name) return decodeURIComponent(value.join('='));
  }
  return null;
};

/**
 * Calls on one base address: no timeout (behaviour §9) and no retry here (see `sendRequest` for commands), the
 * anti-forgery cookie echoed, the session's bearer token set. The platform's fetch, no HTTP library: this is all
 * the console needs of one, and every first visit loads this code (initial JavaScript stays under 150 KB gzip).
 */
export const createHttpInstance = (baseUrl: string, options: HttpClientOptions): HttpInstance => ({
  send: (path, call) => {
    // A relative base address (`/api`) is on the console's own origin.
    const url = new URL(`${baseUrl.replace(/\/+$/, '')}${path}`, typeof location === 'undefined' ? undefined : location.href);
    if (call.query !== '') url.search = call.query;
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      return Promise.reject(new ApiRequestError({ kind: 'unsupported-protocol', message: `Unsupported protocol ${url.protocol}` }));
    }
    const headers = new Headers(call.headers);
    const token = call.bearer ?? options.getAccessToken?.();
    if (token) headers.set('Authorization', `Bearer ${token}`);
    // Every base address comes from our own runtime config, so the token may go to each of them.
    const xsrf = readCookie(XSRF_COOKIE_NAME);
    if (xsrf) headers.set(XSRF_HEADER_NAME, xsrf);
    let body: string | URLSearchParams | undefined;
    if (call.body && 'json' in call.body) {
      headers.set('Content-Type', 'application/json');
      body = JSON.stringify(call.body.json);
    } else if (call.body) {
      body = call.body.form;
    }
    const send = options.fetch ?? fetch;
    return send(url, { method: call.method, headers, body, signal: call.signal });
  },
});

/** The reply body: JSON when it parses (whatever the content type), the raw text otherwise (the floor plan SVG). */
const readBody = async (response: Response): Promise<unknown> => {
  const text = await response.text();
  if (text === '') return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
};

const parseReply = <C extends RouteContract>(contract: C, status: number, data: unknown): ReplyOf<C> => {
  const schema = contract.response[status];
  if (!schema) {
    throw new ApiRequestError({ kind: 'invalid-reply', status, message: `${contract.path} answered ${status}, which its contract does not declare` });
  }
  // An empty body (204, or a 200 without content) is the contracts' `null`.
  const parsed = schema.safeParse(data);
  if (!parsed.success) {
    throw new ApiRequestError({ kind: 'invalid-reply', status, message: `${contract.path}: ${parsed.error.message}`, details: parsed.error.issues });
  }
  // The schema is the contract's reply schema for this 2xx status, so its output is one member of ReplyOf<C>.
  return parsed.data as ReplyOf<C>;
};

/** Attempts of a call marked `retry` (a command with an Idempotency-Key), and the longest Retry-After (ms) waited for. */
export const COMMAND_ATTEMPTS = 3;
export const MAX_RETRY_AFTER_MS = 10_000;

/**
 * Sends one call described by a contract and returns its reply parsed with the contract's schema. A call marked
 * `retry` (a command with an Idempotency-Key) is sent again as it was, same key, up to COMMAND_ATTEMPTS times, when
 * no reply came (network error, timeout) or the server answered 503 with a Retry-After of at most
 * MAX_RETRY_AFTER_MS: the server gives every retry of the key the first one's effect and reply.
 */
const sendCall = async <C extends RouteContract, T>(
  instance: HttpInstance,
  contract: C,
  parts: RequestParts<C>,
  // How a 2xx reply is read: parsed with the contract, or as bytes (a report's PDF: as text it would be garbled).
  read: (response: Response) => Promise<T>,
): Promise<T> => {
  // The typed parts, seen as what goes on the wire (serialised below whatever their schema).
  const wire: WireParts = parts;
  // toString, not URLSearchParams.size: Safari before 17 has no size, and the query would be dropped.
  const query = serialiseQuery(wire.query).toString();
  const body = wire.body === undefined ? undefined : wire.form ? { form: formOf(wire.body) } : { json: wire.body };
  for (let attempt = 1; ; attempt++) {
    const retry = wire.retry === true && attempt < COMMAND_ATTEMPTS;
    let wait: number | null = null;
    let response: Response | undefined;
    try {
      response = await instance.send(pathOf(contract, wire.params), {
        method: contract.method,
        query,
        body,
        signal: wire.signal,
        bearer: wire.bearer,
        headers: wire.headers,
      });
      if (response.status === 503) wait = retryAfterMs(response.headers.get('Retry-After'));
    } catch (error) {
      const failure = toApiRequestError(error, wire.signal);
      if (!retry || (failure.kind !== 'network' && failure.kind !== 'timeout')) throw failure;
      wait = 1000 * attempt;
    }
    if (retry && wait !== null && wait <= MAX_RETRY_AFTER_MS) {
      await new Promise((resolve) => setTimeout(resolve, wait));
      continue;
    }
    if (!response) throw new ApiRequestError({ kind: 'network', message: 'no reply' });
    const { status } = response;
    try {
      if (status >= 200 && status <= 299) return await read(response);
    } catch (error) {
      // An ApiRequestError (a reply its contract does not allow) passes through as it is.
      throw toApiRequestError(error, wire.signal);
    }
    let data: unknown;
    try {
      data = await readBody(response);
    } catch (error) {
      throw toApiRequestError(error, wire.signal);
    }
    throw statusError(status, data);
  }
};

export const sendRequest = <C extends RouteContract>(instance: HttpInstance, contract: C, parts: RequestParts<C>): Promise<ReplyOf<C>> =>
  sendCall(instance, contract, parts, async (response) => parseReply(contract, response.status, await readBody(response)));

/** A file reply (a report's PDF or CSV) as a Blob, with the same headers and error mapping as `sendRequest`. */
export const sendFileRequest = <C extends RouteContract>(instance: HttpInstance, contract: C, parts: RequestParts<C>): Promise<Blob> =>
  sendCall(instance, contract, parts, (response) => response.blob());

export interface ApiClient {
  request<C extends RouteContract>(contract: C, parts: RequestParts<C>): Promise<ReplyOf<C>>;
  /** A file reply as a Blob (`sendFileRequest`): a report's PDF or CSV. */
  requestFile<C extends RouteContract>(contract: C, parts: RequestParts<C>): Promise<Blob>;
  /** Base address of a backend (live streams open their own connections). */
  baseUrl(backend: Backend): string;
  getAccessToken(): string | null;
}

export const createApiClient = (config: RuntimeConfig, options: HttpClientOptions = {}): ApiClient => {
  const instances = new Map<Backend, HttpInstance>();
  const instanceFor = (backend: Backend): HttpInstance => {
    let instance = instances.get(backend);
    if (!instance) {
      instance = createHttpInstance(config.backends[backend], options);
      instances.set(backend, instance);
    }
    return instance;
  };
  return {
    request: (contract, parts) => sendRequest(instanceFor(backendOf(contract.path)), contract, parts),
    requestFile: (contract, parts) => sendFileRequest(instanceFor(backendOf(contract.path)), contract, parts),
    baseUrl: (backend) => config.backends[backend],
    getAccessToken: () => options.getAccessToken?.() ?? null,
  };
};
