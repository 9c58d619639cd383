import type { FastifyPluginAsync } from 'fastify';
import {
  addRobotsToGroup,
  getAdminRobots,
  getFloorRobots,
  getGroupRobots,
  getRobotSummary,
  getRobots,
  removeRobotsFromGroup,
} from '@uvd/contracts';
import type { AppContext } from '../context.ts';
import { registerRoute } from '../lib/route.ts';
import * as repository from './repository.ts';

/** The robots backend (spec §7): robot lists, robots on a floor, summary and group robots. Commands come later. */
export const robotsRoutes: FastifyPluginAsync<AppContext> = async (app, ctx) => {
  registerRoute(app, getRobots, async ({ query, principal }) => repository.listRobots(ctx.db, principal, query));

  registerRoute(app, getAdminRobots, async ({ query, principal }) =>
    repository.listRobots(ctx.db, principal, query, true),
  );

  registerRoute(app, getFloorRobots, async ({ query, principal }) => ({
    robot_list: await repository.robotsOnFloor(ctx.db, principal, query.floor_id),
  }));

  registerRoute(app, getRobotSummary, async ({ principal }) => repository.robotSummary(ctx.db, principal));

  registerRoute(app, getGroupRobots, async ({ params, principal }) =>
    repository.groupRobots(ctx.db, principal, params.groupId),
  );

  registerRoute(app, addRobotsToGroup, async ({ query, body, principal }) => {
    await ctx.db.transaction((tx) => repository.addRobotsToGroup(tx, principal, query.group_id, body));
    return { data: true };
  });

  registerRoute(app, removeRobotsFromGroup, async ({ query, body, principal }) => {
    await ctx.db.transaction((tx) => repository.removeRobotsFromGroup(tx, principal, query.group_id, body));
    return { data: true };
  });
};
