/**
 * The console's HTTP API as a test's own hands: what a browser test sets up or tidies away without clicking
 * (a running job to pause, cleaning up after a failure). Every call is a contract of `@uvd/contracts`, with its
 * reply parsed by that contract's schema, so a test never reads an unchecked network shape. Bearer-only (no
 * XSRF cookie), as any API client.
 */
import { buildPath, getRuntimeConfig, postToken, retryAfterMs, TokenResponse } from '@uvd/contracts';
import type { RouteContract } from '@uvd/contracts';
import type { z } from 'zod';
import { baseUrl } from './browser.ts';

export interface ApiSession {
  token: string;
}

type Reply<R extends RouteContract> = R['response'] extends { 200: infer S extends z.ZodType } ? z.output<S> : never;

interface CallParts {
  params?: Record<string, string>;
  query?: Record<string, string | number | boolean | readonly string[]>;
  body?: unknown;
}

function urlOf(prefix: string, route: RouteContract, parts: CallParts): string {
  const url = new URL(`${prefix}${buildPath(route.path, parts.params)}`, baseUrl());
  for (const [name, value] of Object.entries(parts.query ?? {})) {
    for (const item of Array.isArray(value) ? value : [value]) url.searchParams.append(name, String(item));
  }
  return url.toString();
}

/** Attempts of a call the server sheds, and the longest Retry-After waited for (the console's own bounds). */
const ATTEMPTS = 3;
const MAX_RETRY_AFTER_MS = 10_000;

/**
 * fetch, sent again after the server's Retry-After when it sheds the request (503 with Retry-After): the load
 * shedder refuses a request before any of it runs, so sending it again is safe whatever the method, and a
 * well-behaved client does (the browser tests' server sheds as a deployed one does, on a machine that also runs
 * the PostgreSQL suite).
 */
export async function fetchHonouringRetryAfter(url: string | URL, init: RequestInit): Promise<Response> {
  for (let attempt = 1; ; attempt++) {
    const reply = await fetch(url, init);
    const wait = reply.status === 503 ? retryAfterMs(reply.headers.get('retry-after')) : null;
    if (wait === null || wait > MAX_RETRY_AFTER_MS || attempt >= ATTEMPTS) return reply;
    await reply.body?.cancel();
    await new Promise((resolve) => setTimeout(resolve, wait));
  }
}

/** A password grant at the server's own identity provider, as the sign-in form makes it. */
export async function apiSignIn(organization: string, username: string, password: string): Promise<ApiSession> {
  const configReply = await fetch(new URL(getRuntimeConfig.path, baseUrl()));
  const config = getRuntimeConfig.response[200].parse(await configReply.json());
  const tokenUrl = new URL(`${config.identity}${buildPath(postToken.path, { organization })}`, baseUrl());
  const reply = await fetchHonouringRetryAfter(tokenUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ client_id: config.clientId, username, password, grant_type: 'password', scope: 'openid' }),
  });
  if (!reply.ok) throw new Error(`sign-in of ${username}@${organization} answered ${String(reply.status)}`);
  return { token: TokenResponse.parse(await reply.json()).access_token };
}

/** One call of the API (`/api` + the contract's path); rejects on any status but 200. */
export async function callApi<R extends RouteContract>(session: ApiSession, route: R, parts: CallParts = {}): Promise<Reply<R>> {
  const reply = await fetchHonouringRetryAfter(urlOf('/api', route, parts), {
    method: route.method,
    headers: {
      authorization: `Bearer ${session.token}`,
      ...(parts.body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: parts.body === undefined ? undefined : JSON.stringify(parts.body),
  });
  const text = await reply.text();
  if (reply.status !== 200) throw new Error(`${route.method} ${route.path} answered ${String(reply.status)}: ${text}`);
  const schema = route.response[200];
  if (schema === undefined) throw new Error(`${route.method} ${route.path} has no 200 reply in its contract`);
  return schema.parse(JSON.parse(text)) as Reply<R>;
}
