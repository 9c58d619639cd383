import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../context.ts';

/** The jobs backend (spec §7). */
export const jobsRoutes: FastifyPluginAsync<AppContext> = async (_app, _ctx) => {};
