/**
 * Idempotency-Key for every command (robot and job commands, job start, operator decisions): a retried command
 * with the same key has exactly one effect and answers the first reply again; the key sent with another
 * command is refused with 409 `idempotency_key_reused`. The reply is stored in `command_replies` in the
 * command's own transaction (with the command it answered), so a command that fails stores nothing and may be
 * retried, and a command's outbox row (robot-link/outbox.ts) exists exactly when its stored reply does.
 */
import { and, eq, lt, sql } from 'drizzle-orm';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { CommandRefusal, IDEMPOTENCY_KEY_HEADER, IdempotencyKey } from '@uvd/contracts';
import type { Executor, Tx } from '../db/client.ts';
import { commandReplies } from '../db/schema.ts';
import { badRequest, conflict } from './http-error.ts';

/** The request's Idempotency-Key, or undefined; a key that is empty or too long is a 400 naming the header. */
export function idempotencyKey(request: FastifyRequest): string | undefined {
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

export interface IdempotentCommand<T> {
  orgId: string;
  /** The client's key; undefined runs the command as it is. */
  key: string | undefined;
  /** Which command the key is for (what, and on which robot, job or prompt): the same key sent with another is refused. */
  scope: string;
  /** The reply's schema, to read a stored reply back. */
  reply: z.ZodType<T>;
}

/** What is stored under a key: the command it was used for and the reply given. */
const StoredReply = z.object({ scope: z.string(), reply: z.unknown() });

/**
 * Runs `command` in `tx` once per key. Concurrent retries wait on a transaction-scoped advisory lock of the
 * key, so the second sees the first's stored reply instead of running again.
 */
export async function idempotent<T>(tx: Tx, options: IdempotentCommand<T>, command: () => Promise<T>): Promise<T> {
  if (options.key === undefined) return command();
  const { orgId, key } = options;
  await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtextextended(${`${orgId}\n${key}`}, 0))`);
  const [stored] = await tx
    .select({ reply: commandReplies.reply })
    .from(commandReplies)
    .where(and(eq(commandReplies.orgId, orgId), eq(commandReplies.key, key)));
  if (stored) {
    const entry = StoredReply.safeParse(stored.reply).data;
    const reply = entry?.scope === options.scope ? options.reply.safeParse(entry.reply) : undefined;
    if (!reply?.success) throw conflict('This Idempotency-Key was already used for another command.', CommandRefusal.keyReused);
    return reply.data;
  }
  const reply = await command();
  await tx.insert(commandReplies).values({ orgId, key, reply: { scope: options.scope, reply } });
  return reply;
}

/** Replies are kept this long: a client retries within seconds or minutes, not days. */
export const COMMAND_REPLY_RETENTION_MS = 24 * 3600_000;

/** Deletes stored replies older than `before`; returns how many. */
export async function pruneCommandReplies(executor: Executor, before: Date): Promise<number> {
  const deleted = await executor.delete(commandReplies).where(lt(commandReplies.createdAt, before)).returning({ key: commandReplies.key });
  return deleted.length;
}
