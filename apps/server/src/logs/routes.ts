import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../context.ts';

/** The logs backend (spec §7). */
export const logsRoutes: FastifyPluginAsync<AppContext> = async (_app, _ctx) => {};
