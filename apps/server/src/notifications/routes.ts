import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../context.ts';

/** The notifications backend (spec §7). */
export const notificationsRoutes: FastifyPluginAsync<AppContext> = async (_app, _ctx) => {};
