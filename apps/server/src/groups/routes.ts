import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../context.ts';

/** The groups backend (spec §7). */
export const groupsRoutes: FastifyPluginAsync<AppContext> = async (_app, _ctx) => {};
