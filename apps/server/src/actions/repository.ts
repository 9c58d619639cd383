/** SQL of the actions backend: the operator prompts of the jobs the caller sees. */
import { and, asc, desc, eq, isNull } from 'drizzle-orm';
import type { DecisionSource } from '@uvd/contracts';
import type { Executor } from '../db/client.ts';
import { actions, jobs, robots, rooms } from '../db/schema.ts';
import type { Principal } from '../identity/principal.ts';
import { robotVisible, seesEverything } from '../lib/visibility.ts';

export type ActionRow = typeof actions.$inferSelect;

const visibleJob = (executor: Executor, principal: Principal) =>
  seesEverything(principal) ? undefined : robotVisible(executor, principal, jobs.robotId);

/** Whether the caller sees the job. */
export async function jobVisible(executor: Executor, principal: Principal, jobId: string): Promise<boolean> {
  const [row] = await executor
    .select({ id: jobs.id })
    .from(jobs)
    .where(and(eq(jobs.id, jobId), eq(jobs.orgId, principal.orgId), visibleJob(executor, principal)));
  return row !== undefined;
}

/** The job's newest prompt the robot still asks. */
export async function openAction(executor: Executor, orgId: string, jobId: string): Promise<ActionRow | undefined> {
  const [row] = await executor
    .select()
    .from(actions)
    .where(and(eq(actions.orgId, orgId), eq(actions.jobId, jobId), isNull(actions.resolvedAt)))
    .orderBy(desc(actions.createdAt))
    .limit(1);
  return row;
}

/** The prompts still waiting for an answer (not answered, still asked) of the jobs the caller sees, oldest first. */
export async function waitingActions(executor: Executor, principal: Principal) {
  return executor
    .select({ action: actions, jobName: jobs.name, robotName: robots.name, roomName: rooms.name })
    .from(actions)
    .innerJoin(jobs, eq(jobs.id, actions.jobId))
    .innerJoin(robots, eq(robots.id, actions.robotId))
    .leftJoin(rooms, eq(rooms.id, actions.roomId))
    .where(
      and(
        eq(actions.orgId, principal.orgId),
        isNull(actions.resolvedAt),
        eq(actions.disabled, false),
        visibleJob(executor, principal),
      ),
    )
    .orderBy(asc(actions.createdAt), asc(actions.id));
}

/** The action if the caller sees its job, locked for the decision that follows. */
export async function findAction(executor: Executor, principal: Principal, actionId: string): Promise<ActionRow | undefined> {
  const [row] = await executor
    .select({ action: actions })
    .from(actions)
    .innerJoin(jobs, eq(jobs.id, actions.jobId))
    .where(and(eq(actions.id, actionId), eq(actions.orgId, principal.orgId), visibleJob(executor, principal)))
    .for('update', { of: actions });
  return row?.action;
}

export interface Decision {
  confirm: boolean;
  /** The username of who answered (kept in the job's log). */
  by: string;
  source: DecisionSource;
  /** When it was answered (the job's event has the same time); now by default. */
  at?: Date;
}

export async function markDecided(executor: Executor, actionId: string, decision: Decision): Promise<ActionRow | undefined> {
  const [row] = await executor
    .update(actions)
    .set({ disabled: true, confirm: decision.confirm, decidedBy: decision.by, decidedAt: decision.at ?? new Date(), decisionSource: decision.source })
    .where(eq(actions.id, actionId))
    .returning();
  return row;
}
