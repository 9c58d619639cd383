import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../context.ts';

/** The rooms backend (spec §7). */
export const roomsRoutes: FastifyPluginAsync<AppContext> = async (_app, _ctx) => {};
