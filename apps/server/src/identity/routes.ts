import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../context.ts';

/** The identity backend (spec §7). */
export const identityRoutes: FastifyPluginAsync<AppContext> = async (_app, _ctx) => {};
