import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../context.ts';

/** The contacts backend (spec §7). */
export const contactsRoutes: FastifyPluginAsync<AppContext> = async (_app, _ctx) => {};
