import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../context.ts';

/** The settings backend (spec §7). */
export const settingsRoutes: FastifyPluginAsync<AppContext> = async (_app, _ctx) => {};
