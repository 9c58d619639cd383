/** One error shape for every failure: `{ error, message, details? }` (behaviour §8). */
import type { FastifyError, FastifyInstance } from 'fastify';
import { hasZodFastifySchemaValidationErrors, isResponseSerializationError } from 'fastify-type-provider-zod';
import { ErrorCode, type ApiError } from '@uvd/contracts';
import { HttpError } from '../lib/http-error.ts';

export function registerErrorHandlers(app: FastifyInstance): void {
  app.setErrorHandler<FastifyError | HttpError | Error>((error, request, reply) => {
    if (error instanceof HttpError) {
      const body: ApiError = { error: error.code, message: error.message };
      if (error.details !== undefined) body.details = error.details;
      return reply.code(error.statusCode).send(body);
    }
    if (hasZodFastifySchemaValidationErrors(error)) {
      const where = error.validationContext ?? 'request';
      const issues = error.validation.map((issue) => {
        const path = issue.instancePath.replace(/^\//, '').replaceAll('/', '.');
        return { field: path || where, message: issue.message };
      });
      const first = issues[0];
      const message = first ? `Invalid ${where} field "${first.field}": ${first.message}` : `Invalid ${where}.`;
      return reply.code(400).send({ error: ErrorCode.validation, message, details: { issues } } satisfies ApiError);
    }
    if (isResponseSerializationError(error)) {
      request.log.error({ err: error, issues: error.cause.issues }, 'reply does not match its contract');
      return reply.code(500).send({ error: ErrorCode.internal, message: 'Internal server error.' } satisfies ApiError);
    }
    const status = 'statusCode' in error && typeof error.statusCode === 'number' ? error.statusCode : 500;
    if (status >= 500) {
      request.log.error({ err: error }, 'unhandled error');
      return reply.code(500).send({ error: ErrorCode.internal, message: 'Internal server error.' } satisfies ApiError);
    }
    // Fastify's own 4xx (malformed JSON, unsupported media type, body too large, rate limit …).
    const code = status === 429 ? ErrorCode.rateLimited : 'code' in error && typeof error.code === 'string' ? error.code : ErrorCode.validation;
    return reply.code(status).send({ error: code, message: error.message } satisfies ApiError);
  });

  app.setNotFoundHandler((request, reply) =>
    reply
      .code(404)
      .send({ error: ErrorCode.notFound, message: `No route ${request.method} ${request.url.split('?')[0] ?? ''}.` } satisfies ApiError),
  );
}
