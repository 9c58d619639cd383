/**
 * The mail outbox: a mail is a `mail_outbox` row written in the transaction that decides it, so it is sent exactly
 * when that transaction commits, and survives any crash after that; the worker (worker.ts) sends it.
 */
import { sql } from 'drizzle-orm';
import type { Executor } from '../db/client.ts';
import { mailOutbox } from '../db/schema.ts';

/** Workers LISTEN here: a NOTIFY at commit wakes them at once instead of at their next poll. */
export const MAIL_CHANNEL = 'uvd_mail';

export interface Mail {
  /** The organization it is about (null: the server's own); its mails go with it. */
  orgId: string | null;
  to: string;
  subject: string;
  text: string;
}

/** Records `mails` in the caller's transaction and wakes the workers at commit. */
export async function queueMail(executor: Executor, ...mails: Mail[]): Promise<void> {
  if (mails.length === 0) return;
  await executor.insert(mailOutbox).values(mails);
  await executor.execute(sql`SELECT pg_notify(${MAIL_CHANNEL}, '')`);
}
