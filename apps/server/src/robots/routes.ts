import type { FastifyPluginAsync } from 'fastify';
import {
  addRobotsToGroup,
  createRobotMqttCredentials,
  getAdminRobots,
  getFloorRobots,
  getGroupRobots,
  getRobotSummary,
  getRobots,
  removeRobotsFromGroup,
  type Robot,
} from '@uvd/contracts';
import type { AppContext } from '../context.ts';
import { registerRoute } from '../lib/route.ts';
import { makeMqttCredentials } from './mqtt-credentials.ts';
import * as repository from './repository.ts';

/**
 * The robots backend (behaviour §7): robot lists, robots on a floor, summary and group robots; and a robot's MQTT
 * login, which an admin makes anew (it is how robots join the fleet).
 */
export const robotsRoutes: FastifyPluginAsync<AppContext> = async (app, ctx) => {
  // Staleness is the gateway's live knowledge (a silent robot writes nothing), added to the stored rows.
  const withLink = (robot: repository.StoredRobot): Robot => ({
    ...robot,
    stale: ctx.fleet.link(robot.robot_id)?.stale ?? false,
  });
  const withLinks = ({ count, payload }: { count: number; payload: repository.StoredRobot[] }) => ({
    count,
    payload: payload.map(withLink),
  });

  registerRoute(app, getRobots, async ({ query, principal }) => withLinks(await repository.listRobots(ctx.db, principal, query)));

  registerRoute(app, getAdminRobots, async ({ query, principal }) =>
    withLinks(await repository.listRobots(ctx.db, principal, query, true)),
  );

  registerRoute(app, getFloorRobots, async ({ query, principal }) => ({
    robot_list: await repository.robotsOnFloor(ctx.db, principal, query.floor_id),
  }));

  registerRoute(app, getRobotSummary, async ({ principal }) => repository.robotSummary(ctx.db, principal));

  registerRoute(app, getGroupRobots, async ({ params, principal }) =>
    (await repository.groupRobots(ctx.db, principal, params.groupId)).map(withLink),
  );

  registerRoute(app, addRobotsToGroup, async ({ query, body, principal }) => {
    await ctx.db.transaction((tx) => repository.addRobotsToGroup(tx, principal, query.group_id, body));
    return { data: true };
  });

  registerRoute(app, removeRobotsFromGroup, async ({ query, body, principal }) => {
    await ctx.db.transaction((tx) => repository.removeRobotsFromGroup(tx, principal, query.group_id, body));
    return { data: true };
  });

  registerRoute(app, createRobotMqttCredentials, async ({ params, principal, reply }) => {
    // The password is in the reply: no cache may keep it.
    void reply.header('cache-control', 'no-store');
    return makeMqttCredentials(ctx.db, principal, params.robotId, ctx.fleet.brokerUrl);
  });
};
