import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../context.ts';

/** The users backend (spec §7). */
export const usersRoutes: FastifyPluginAsync<AppContext> = async (_app, _ctx) => {};
