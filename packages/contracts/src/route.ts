import type { z } from 'zod';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * One entry of the route table: the path (Fastify syntax, relative to the backend base address,
 * i.e. without `/api`), and the schemas of every part of the request and of each reply status.
 * The server registers routes from these; the web client builds URLs and parses replies with them.
 */
export interface RouteContract {
  method: HttpMethod;
  path: string;
  summary: string;
  tags: readonly string[];
  params?: z.ZodType;
  querystring?: z.ZodType;
  body?: z.ZodType;
  response: Record<number, z.ZodType>;
  /**
   * Media type of the success reply when it is not JSON (an SVG plan, an event stream). The server sets it on the
   * reply and the OpenAPI document declares it, so the two cannot disagree.
   */
  produces?: string;
  /** Roles allowed; omitted means any signed-in user. */
  roles?: readonly string[];
  /** False for the identity provider and health routes that need no bearer token. */
  auth?: boolean;
}

export const defineRoute = <const R extends RouteContract>(route: R): R => route;

/** Substitute `:name` parameters of a route path. */
export const buildPath = (path: string, params: Record<string, string | number> = {}): string =>
  path.replace(/:([A-Za-z_]+)\??/g, (_, name: string) => {
    const value = params[name];
    return value === undefined ? '' : encodeURIComponent(String(value));
  });
