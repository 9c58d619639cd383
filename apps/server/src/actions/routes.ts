import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../context.ts';

/** The actions backend (spec §7). */
export const actionsRoutes: FastifyPluginAsync<AppContext> = async (_app, _ctx) => {};
