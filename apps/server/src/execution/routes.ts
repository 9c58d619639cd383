import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../context.ts';

/** Job start and job commands (spec §7: POST /jobs/job/start, POST /command/job/{job_id}). */
export const executionRoutes: FastifyPluginAsync<AppContext> = async (_app, _ctx) => {};
