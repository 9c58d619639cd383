/**
 * The server's public HTTP API as the console uses it: the identity provider's password grant for a token, then
 * the routes of `@uvd/contracts` under /api. Every reply is parsed with the contract's schema; a 401 (an expired
 * token) signs in again once and repeats the call; a 503 or 429 (the server shedding load, the sign-in rate limit)
 * is tried again after its Retry-After, a few times.
 */
import type { z } from 'zod';
import { buildPath, getRuntimeConfig, postToken, ROUTE_MOUNTS, TokenResponse, type RouteContract, type RouteMount, type RuntimeConfig } from '@uvd/contracts';

export interface ApiLogin {
  /** The organization's id: its realm name, such as `demo`. */
  organization: string;
  username: string;
  password: string;
}

export interface CallParts {
  params?: Record<string, string>;
  query?: Record<string, string | number | boolean | readonly string[] | undefined>;
  body?: unknown;
}

/** A reply the call did not expect (status and the server's error body as text). */
export class ApiCallError extends Error {
  constructor(
    readonly status: number,
    readonly route: string,
    readonly body: string,
  ) {
    super(`${route}: ${status} ${body.slice(0, 500)}`);
    this.name = 'ApiCallError';
  }
}

/** Attempts of one request while the server answers 503 or 429. */
const BUSY_ATTEMPTS = 5;
/** Longest wait between them, whatever Retry-After says. */
const BUSY_WAIT_MAX_MS = 10_000;

/** fetch, again after Retry-After (seconds; 1 s when absent) while the server is busy. */
async function fetchPolitely(url: string, init: RequestInit): Promise<Response> {
  for (let attempt = 1; ; attempt += 1) {
    const response = await fetch(url, init);
    if ((response.status !== 503 && response.status !== 429) || attempt >= BUSY_ATTEMPTS) return response;
    const seconds = Number(response.headers.get('retry-after') ?? '1');
    await response.body?.cancel();
    await new Promise((resolve) => setTimeout(resolve, Math.min(BUSY_WAIT_MAX_MS, Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : 1000)));
  }
}

export class ApiClient {
  private token: string | undefined;
  private config: RuntimeConfig | undefined;
  readonly baseUrl: string;

  constructor(
    baseUrl: string,
    readonly login: ApiLogin,
  ) {
    this.baseUrl = baseUrl.replace(/\/+$/, '');
  }

  get organization(): string {
    return this.login.organization;
  }

  private url(contract: RouteContract, mount: RouteMount, parts: CallParts): string {
    const url = new URL(`${this.baseUrl}${ROUTE_MOUNTS[mount]}${buildPath(contract.path, parts.params)}`);
    for (const [key, value] of Object.entries(parts.query ?? {})) {
      if (value === undefined) continue;
      if (Array.isArray(value)) for (const item of value as readonly string[]) url.searchParams.append(key, item);
      else url.searchParams.set(key, String(value));
    }
    return url.toString();
  }

  /** The server's /config.json (its variant, its client id), read once. */
  async runtimeConfig(): Promise<RuntimeConfig> {
    if (!this.config) {
      const response = await fetchPolitely(this.url(getRuntimeConfig, 'system', {}), {});
      if (!response.ok) throw new ApiCallError(response.status, getRuntimeConfig.path, await response.text());
      this.config = getRuntimeConfig.response[200].parse(await response.json());
    }
    return this.config;
  }

  /** Signs in with the password grant (the console's form). */
  async signIn(): Promise<void> {
    const { clientId } = await this.runtimeConfig();
    const form = new URLSearchParams({ grant_type: 'password', client_id: clientId, username: this.login.username, password: this.login.password, scope: 'openid' });
    const response = await fetchPolitely(this.url(postToken, 'identity', { params: { organization: this.login.organization } }), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: form.toString(),
    });
    const text = await response.text();
    if (!response.ok) throw new ApiCallError(response.status, `sign-in of ${this.login.username} to ${this.login.organization}`, text);
    this.token = TokenResponse.parse(JSON.parse(text)).access_token;
  }

  /** The raw reply of one call: its status and parsed JSON body (null when empty). */
  async send(contract: RouteContract, parts: CallParts = {}): Promise<{ status: number; body: unknown }> {
    if (!this.token) await this.signIn();
    const attempt = async () => {
      const headers: Record<string, string> = { authorization: `Bearer ${this.token ?? ''}` };
      if (parts.body !== undefined) headers['content-type'] = 'application/json';
      const response = await fetchPolitely(this.url(contract, 'api', parts), {
        method: contract.method,
        headers,
        ...(parts.body === undefined ? {} : { body: JSON.stringify(parts.body) }),
      });
      const text = await response.text();
      return { status: response.status, text };
    };
    let reply = await attempt();
    if (reply.status === 401) {
      await this.signIn();
      reply = await attempt();
    }
    let body: unknown = null;
    if (reply.text !== '') {
      try {
        body = JSON.parse(reply.text);
      } catch {
        body = reply.text;
      }
    }
    if (reply.status >= 300) throw new ApiCallError(reply.status, `${contract.method} ${contract.path}`, reply.text);
    return { status: reply.status, body };
  }

  /** One call whose success reply is parsed with `schema` (the contract's own). */
  async call<S extends z.ZodType>(contract: RouteContract, schema: S, parts: CallParts = {}): Promise<z.output<S>> {
    const { body } = await this.send(contract, parts);
    return schema.parse(body);
  }
}
