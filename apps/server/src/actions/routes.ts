import type { FastifyPluginAsync } from 'fastify';
import { CommandRefusal, confirmAction, DataFlag, getAction, listWaitingActions } from '@uvd/contracts';
import type { AppContext } from '../context.ts';
import { recordPromptAnswered } from '../robot-link/interruptions.ts';
import { actionChange, publishActionChange, recordDecision } from '../robot-link/lifecycle.ts';
import { conflict, notFound } from '../lib/http-error.ts';
import { idempotencyKey, idempotent } from '../lib/idempotency.ts';
import { registerRoute } from '../lib/route.ts';
import * as repository from './repository.ts';

/** The actions backend (behaviour §7): the robot's questions to the operator and the operator's answers (the stream: live/streams.ts). */
export const actionsRoutes: FastifyPluginAsync<AppContext> = async (app, ctx) => {
  registerRoute(app, getAction, async ({ query, principal, reply }) => {
    if (!(await repository.jobVisible(ctx.db, principal, query.job_id))) throw notFound('Job');
    const row = await repository.openAction(ctx.db, principal.orgId, query.job_id);
    if (!row) {
      // Behaviour §7: 204 means no action.
      void reply.code(204).send();
      return null;
    }
    const { action_id, job_id, button } = actionChange(row);
    return { action_id, job_id, button };
  });

  registerRoute(app, listWaitingActions, async ({ principal }) => {
    const rows = await repository.waitingActions(ctx.db, principal);
    return {
      payload: rows.map(({ action, jobName, robotName, roomName }) => {
        const { action_id, job_id, button } = actionChange(action);
        return {
          action_id,
          job_id,
          button,
          job_name: jobName,
          robot_id: action.robotId,
          robot_name: robotName,
          room_id: action.roomId,
          room_name: roomName,
          created_at: action.createdAt.toISOString(),
        };
      }),
    };
  });

  // The decision is recorded for the robot with the answer and sent once both are committed.
  registerRoute(app, confirmAction, async ({ body, principal, request }) => {
    const key = idempotencyKey(request);
    const reply = await ctx.db.transaction(async (tx) =>
      idempotent(
        tx,
        { orgId: principal.orgId, key, scope: `decide ${body.confirm} ${body.action_id}`, reply: DataFlag },
        async () => {
          const action = await repository.findAction(tx, principal, body.action_id);
          if (!action) throw notFound('Action');
          if (action.resolvedAt !== null || action.disabled) {
            throw conflict('The action was already answered or the robot no longer asks.', CommandRefusal.jobState);
          }
          const decision = { confirm: body.confirm, by: principal.username, source: body.source, at: new Date() };
          // The job's event before the robot is locked (recordDecision): its row references the job, which the
          // job runner locks before the robot.
          await recordPromptAnswered(tx, action, decision);
          await recordDecision(ctx, tx, action, body.confirm);
          const decided = await repository.markDecided(tx, action.id, decision);
          if (decided) await publishActionChange(ctx, tx, decided);
          return { data: true };
        },
      ),
    );
    ctx.commands.wake();
    return reply;
  });
};
