import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../context.ts';

/** The robots backend (spec §7). */
export const robotsRoutes: FastifyPluginAsync<AppContext> = async (_app, _ctx) => {};
