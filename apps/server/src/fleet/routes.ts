import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../context.ts';

/** Robot commands and the robot stream (spec §7: POST /command/{robot_id}, GET /robot/stream). */
export const fleetRoutes: FastifyPluginAsync<AppContext> = async (_app, _ctx) => {};
