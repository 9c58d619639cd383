import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../context.ts';

/** The deliveries backend (spec §7). */
export const deliveriesRoutes: FastifyPluginAsync<AppContext> = async (_app, _ctx) => {};
