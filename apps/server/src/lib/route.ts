/**
 * Registers a route from its contract in `@uvd/contracts`: the same declaration validates the request,
 * serialises the reply, types the handler and feeds the OpenAPI document.
 */
import type { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { z } from 'zod';
import { errorResponses, type RouteContract } from '@uvd/contracts';
import type { Principal } from '../identity/principal.ts';
import { unauthorized } from './http-error.ts';

type Out<T> = T extends z.ZodType ? z.output<T> : undefined;
type SuccessStatus<R extends RouteContract> = Extract<keyof R['response'], 200 | 201 | 202 | 204>;
type Reply<R extends RouteContract> = R['response'][SuccessStatus<R>] extends infer S
  ? S extends z.ZodType
    ? z.output<S>
    : never
  : never;

export interface RouteContext<R extends RouteContract> {
  params: Out<R['params']>;
  query: Out<R['querystring']>;
  body: Out<R['body']>;
  /** The verified caller; routes with `auth: false` must not read it. */
  principal: Principal;
  request: FastifyRequest;
  reply: FastifyReply;
}

/** A route that `produces` a file or an export (a PDF, a CSV, NDJSON) may stream it: Fastify pipes a Readable to the client. */
type Streamed<R extends RouteContract> = R['produces'] extends string ? Readable : never;

export type RouteHandler<R extends RouteContract> = (context: RouteContext<R>) => Promise<Reply<R> | Streamed<R>>;

/**
 * The reply schemas of a route as Fastify and @fastify/swagger read them: the success replies of a contract that
 * `produces` something other than JSON are declared under that media type, error replies stay JSON.
 */
export function responseSchemas(contract: RouteContract, needsAuth: boolean): Record<number, unknown> {
  const success = Object.fromEntries(
    Object.entries(contract.response).map(([status, schema]) => [
      status,
      contract.produces && Number(status) < 300 ? { description: schema.description, content: { [contract.produces]: { schema } } } : schema,
    ]),
  );
  return needsAuth ? { ...errorResponses, ...success } : success;
}

export function registerRoute<R extends RouteContract>(
  app: FastifyInstance,
  contract: R,
  handler: RouteHandler<R>,
): void {
  const needsAuth = contract.auth !== false;
  app.withTypeProvider<ZodTypeProvider>().route({
    method: contract.method,
    url: contract.path,
    schema: {
      summary: contract.summary,
      tags: [...contract.tags],
      ...(needsAuth ? { security: [{ bearer: [] }] } : {}),
      ...(contract.params ? { params: contract.params } : {}),
      ...(contract.querystring ? { querystring: contract.querystring } : {}),
      ...(contract.body ? { body: contract.body } : {}),
      response: responseSchemas(contract, needsAuth),
    },
    // Checked by the auth plugin's onRequest hook, before validation: 401, then 403, then 400.
    config: { auth: needsAuth, roles: contract.roles },
    handler: async (request, reply) => {
      const principal = request.principal;
      if (needsAuth && !principal) throw unauthorized();
      // The handler may refine it (a charset); the contract's type is the default the document promises.
      if (contract.produces) void reply.type(contract.produces);
      const result = await handler({
        params: request.params as Out<R['params']>,
        query: request.query as Out<R['querystring']>,
        body: request.body as Out<R['body']>,
        principal: principal as Principal,
        request,
        reply,
      });
      if (reply.sent) return reply;
      return reply.send(result);
    },
  });
}
