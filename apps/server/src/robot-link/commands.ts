/**
 * Robot commands (spec §3: play/resume, pause, stop, home) as VDA 5050 instant actions, and the stored
 * replies that make a retried command (same Idempotency-Key) answer the first reply without a second send.
 */
import { randomUUID } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { z } from 'zod';
import { RobotCommand, UvdActionType, VdaInstantAction, type DataFlag, type VdaAction } from '@uvd/contracts';
import type { Executor } from '../db/client.ts';
import { commandReplies } from '../db/schema.ts';

const ACTION_OF: Record<RobotCommand, string> = {
  play: VdaInstantAction.resume,
  resume: VdaInstantAction.resume,
  pause: VdaInstantAction.pause,
  stop: VdaInstantAction.cancel,
  home: UvdActionType.goHome,
};

export const instantActionFor = (command: RobotCommand): VdaAction => ({
  actionType: ACTION_OF[command],
  actionId: `${command}-${randomUUID()}`,
  // cancelOrder and pause act on the whole robot, which is what an operator's button means.
  blockingType: 'HARD',
});

/** What is stored under an Idempotency-Key: the command it was used for and the reply given. */
export const StoredRobotCommand = z.object({
  scope: z.literal('robot_command'),
  robot_id: z.string(),
  command: RobotCommand,
  reply: z.object({ data: z.boolean() }),
});
export type StoredRobotCommand = z.infer<typeof StoredRobotCommand>;

/**
 * The stored entry of `key`: `undefined` when the key is new, `{ entry: undefined }` when the key is taken by
 * something that is not a robot command (a job command of the same organization, say).
 */
export async function findStoredCommand(
  db: Executor,
  orgId: string,
  key: string,
): Promise<{ entry: StoredRobotCommand | undefined } | undefined> {
  const [row] = await db
    .select({ reply: commandReplies.reply })
    .from(commandReplies)
    .where(and(eq(commandReplies.orgId, orgId), eq(commandReplies.key, key)));
  if (!row) return undefined;
  return { entry: StoredRobotCommand.safeParse(row.reply).data };
}

/** Claims `key` for this command; false when another request holds it already. */
export async function claimKey(tx: Executor, orgId: string, key: string, entry: StoredRobotCommand): Promise<boolean> {
  const inserted = await tx
    .insert(commandReplies)
    .values({ orgId, key, reply: entry })
    .onConflictDoNothing()
    .returning({ key: commandReplies.key });
  return inserted.length > 0;
}

export const sameCommand = (entry: StoredRobotCommand, robotId: string, command: RobotCommand): boolean =>
  entry.robot_id === robotId && entry.command === command;

export type CommandReply = DataFlag;
