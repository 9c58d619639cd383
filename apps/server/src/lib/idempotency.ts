/**
 * Idempotency-Key for commands (robot and job commands, operator decisions): a retried command with the same
 * key has exactly one effect and answers the first reply again. The reply is stored in `command_replies` in
 * the command's own transaction, so a command that fails stores nothing and may be retried.
 */
import { and, eq, lt, sql } from 'drizzle-orm';
import type { FastifyRequest } from 'fastify';
import type { z } from 'zod';
import type { Executor, Tx } from '../db/client.ts';
import { commandReplies } from '../db/schema.ts';
import { badRequest } from './http-error.ts';

export const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';
const MAX_KEY_LENGTH = 200;

/** The request's Idempotency-Key, or undefined; a key that is empty or too long is a 400 naming the header. */
export function idempotencyKey(request: FastifyRequest): string | undefined {
  const header = request.headers[IDEMPOTENCY_KEY_HEADER];
  if (header === undefined) return undefined;
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined || value.trim() === '' || value.length > MAX_KEY_LENGTH) {
    throw badRequest(`Invalid header "Idempotency-Key": expected 1 to ${MAX_KEY_LENGTH} characters.`, {
      issues: [{ field: 'Idempotency-Key', message: `expected 1 to ${MAX_KEY_LENGTH} characters` }],
    });
  }
  return value;
}

export interface IdempotentCommand<T> {
  orgId: string;
  /** The client's key; undefined runs the command as it is. */
  key: string | undefined;
  /** What the key is for (method and path): the same key sent to another command is another command. */
  scope: string;
  /** The reply's schema, to read a stored reply back. */
  reply: z.ZodType<T>;
}

/**
 * Runs `command` in `tx` once per key. Concurrent retries wait on a transaction-scoped advisory lock of the
 * key, so the second sees the first's stored reply instead of running again.
 */
export async function idempotent<T>(tx: Tx, options: IdempotentCommand<T>, command: () => Promise<T>): Promise<T> {
  if (options.key === undefined) return command();
  const key = `${options.scope} ${options.key}`;
  await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtextextended(${`${options.orgId}\n${key}`}, 0))`);
  const [stored] = await tx
    .select({ reply: commandReplies.reply })
    .from(commandReplies)
    .where(and(eq(commandReplies.orgId, options.orgId), eq(commandReplies.key, key)));
  if (stored) return options.reply.parse(stored.reply);
  const reply = await command();
  await tx.insert(commandReplies).values({ orgId: options.orgId, key, reply });
  return reply;
}

/** Replies are kept this long: a client retries within seconds or minutes, not days. */
export const COMMAND_REPLY_RETENTION_MS = 24 * 3600_000;

/** Deletes stored replies older than `before`; returns how many. */
export async function pruneCommandReplies(executor: Executor, before: Date): Promise<number> {
  const deleted = await executor.delete(commandReplies).where(lt(commandReplies.createdAt, before)).returning({ key: commandReplies.key });
  return deleted.length;
}
