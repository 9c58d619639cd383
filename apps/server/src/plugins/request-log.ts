/**
 * The two lines Fastify logs for each HTTP request ("incoming request", "request completed") at a level of their
 * own (REQUEST_LOG_LEVEL): `debug` keeps them out of an `info` log, as the demo's terminal wants, while a deployment
 * keeps them at `info` (the default, Fastify's own). Errors, 404s and everything else Fastify logs keep their levels.
 */
import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Config } from '../config.ts';

export class RequestLogController extends LogController {
  constructor(private readonly level: Config['requestLogLevel']) {
    super();
  }

  override incomingRequest(request: FastifyRequest): void {
    if (this.isLogDisabled(request)) return;
    request.log[this.level]({ req: request }, 'incoming request');
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (error) {
      super.requestCompleted(error, request, reply);
      return;
    }
    if (this.isLogDisabled(request)) return;
    reply.log[this.level]({ res: reply, responseTime: reply.elapsedTime }, 'request completed');
  }
}
