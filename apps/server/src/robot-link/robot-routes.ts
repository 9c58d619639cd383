import { and, eq } from 'drizzle-orm';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import {
  IDEMPOTENCY_KEY_HEADER,
  IdempotencyKey,
  postRobotCommand,
  ROBOT_MODE,
  RobotCommandRefusal,
  streamRobots,
  type DataFlag,
  type RobotCommand,
} from '@uvd/contracts';
import type { AppContext } from '../context.ts';
import { robots } from '../db/schema.ts';
import { badRequest, conflict, notFound } from '../lib/http-error.ts';
import { registerRoute } from '../lib/route.ts';
import { robotVisible } from '../lib/visibility.ts';
import { registerStream } from '../live/sse.ts';
import { claimKey, findStoredCommand, instantActionFor, sameCommand, type StoredRobotCommand } from './commands.ts';

function idempotencyKeyOf(request: FastifyRequest): string | undefined {
  const header = request.headers[IDEMPOTENCY_KEY_HEADER];
  if (header === undefined) return undefined;
  const parsed = IdempotencyKey.safeParse(Array.isArray(header) ? header[0] : header);
  if (!parsed.success) {
    throw badRequest('Invalid header "Idempotency-Key": expected 1 to 200 characters.', {
      issues: [{ field: 'Idempotency-Key', message: 'expected 1 to 200 characters' }],
    });
  }
  return parsed.data;
}

const replayStored = (entry: StoredRobotCommand | undefined, robotId: string, command: RobotCommand): DataFlag => {
  if (entry && sameCommand(entry, robotId, command)) return entry.reply;
  throw conflict('This Idempotency-Key was already used for another command.', RobotCommandRefusal.keyReused);
};

/** Robot commands and the robot stream (spec §7: POST /command/{robot_id}, GET /robot/stream). */
export const fleetRoutes: FastifyPluginAsync<AppContext> = async (app, ctx) => {
  registerRoute(app, postRobotCommand, async ({ params, query, principal, request }) => {
    const robotId = params.robot_id;
    const { command } = query;
    const key = idempotencyKeyOf(request);
    if (key !== undefined) {
      const stored = await findStoredCommand(ctx.db, principal.orgId, key);
      if (stored) return replayStored(stored.entry, robotId, command);
    }

    const [robot] = await ctx.db
      .select({ id: robots.id, name: robots.name })
      .from(robots)
      .where(and(eq(robots.orgId, principal.orgId), eq(robots.id, robotId), robotVisible(ctx.db, principal, robots.id)));
    if (!robot) throw notFound('Robot');
    // The gateway's view is current to the last message; the row may lag by a few seconds.
    const link = ctx.fleet.link(robot.id);
    if (!link?.online) {
      throw conflict(`Robot ${robot.name} is offline: it cannot take commands.`, RobotCommandRefusal.offline);
    }
    if (link.mode !== ROBOT_MODE.autonomous) {
      throw conflict(
        `Robot ${robot.name} is not in Autonomous mode: commands are accepted only in Autonomous mode.`,
        RobotCommandRefusal.notAutonomous,
      );
    }
    const actions = [instantActionFor(command)];
    if (key === undefined) {
      await ctx.fleet.sendInstantActions(robot.id, actions);
      return { data: true };
    }
    const entry: StoredRobotCommand = { scope: 'robot_command', robot_id: robot.id, command, reply: { data: true } };
    return ctx.db.transaction(async (tx) => {
      // The key's row is taken first: a concurrent retry waits on it and then reads the stored reply. A
      // failed send rolls the claim back, so the retry sends again.
      if (!(await claimKey(tx, principal.orgId, key, entry))) {
        const stored = await findStoredCommand(tx, principal.orgId, key);
        return replayStored(stored?.entry, robot.id, command);
      }
      await ctx.fleet.sendInstantActions(robot.id, actions);
      return entry.reply;
    });
  });

  registerStream(app, ctx, streamRobots, {
    stream: 'robots',
    keysFromQuery: (query) => query.robot_list,
    // Spec §7: this stream carries robot_update only; other events of the robots stream (battery_low, for the
    // notifications service) are not for it. Answered synchronously for the restricted roles, so their
    // telemetry takes the stream's fast path.
    authorize: (event, viewer) =>
      event.type === 'robot_update' && (viewer.seesEverything || viewer.canSeeRobot(event.key)),
  });
};
