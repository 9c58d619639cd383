/**
 * Sending: claims due mails (FOR UPDATE SKIP LOCKED, with a lease), hands each to the SMTP transport and records the
 * outcome. Accepted: sent. Refused for good (a 5xx answer to the recipient or the message): failed. Anything else
 * (no connection, a 4xx, a timeout) is tried again after a jittered, doubling wait (lib/retry.ts) until
 * MAIL_GIVE_UP_SECONDS after it was written. A mail whose process died mid-send is taken again when its lease runs
 * out: at least once. Sent or given up, its text is blanked: a reset link is kept no longer than needed.
 */
import { and, asc, eq, inArray, lt, lte, or, sql } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import { mailOutbox } from '../db/schema.ts';
import { nextOutboxDue } from '../lib/outbox-due.ts';
import { nextAttemptAt } from '../lib/retry.ts';

type MailRow = typeof mailOutbox.$inferSelect;

export interface SendMail {
  (mail: { to: string; subject: string; text: string }): Promise<void>;
}

export interface MailDeliveryOptions {
  send: SendMail;
  giveUpMs: number;
  retryBaseMs: number;
  /** How long a claim holds: a send unfinished by then is presumed dead with its process. */
  leaseMs: number;
  onFailure?: (mail: MailRow, reason: string, givenUp: boolean) => void;
}

const MAX_RETRY_WAIT_MS = 3600_000;
const CLAIM_BATCH = 16;
const BLANK = '';

async function claim(db: Db, leaseMs: number): Promise<MailRow[]> {
  const due = db
    .select({ id: mailOutbox.id })
    .from(mailOutbox)
    .where(
      or(
        and(eq(mailOutbox.status, 'pending'), lte(mailOutbox.nextAttemptAt, sql`now()`)),
        and(eq(mailOutbox.status, 'sending'), lt(mailOutbox.leaseUntil, sql`now()`)),
      ),
    )
    .orderBy(asc(mailOutbox.nextAttemptAt))
    .limit(CLAIM_BATCH)
    .for('update', { skipLocked: true });
  return db
    .update(mailOutbox)
    .set({
      status: 'sending',
      attempts: sql`${mailOutbox.attempts} + 1`,
      leaseUntil: sql`now() + make_interval(secs => ${leaseMs / 1000})`,
    })
    .where(inArray(mailOutbox.id, due))
    .returning();
}

/** An SMTP reply code 5xx on the transaction is permanent (RFC 5321 §4.2.1); nodemailer puts it in `responseCode`. */
function permanent(error: unknown): boolean {
  if (typeof error !== 'object' || error === null || !('responseCode' in error)) return false;
  const code = error.responseCode;
  return typeof code === 'number' && code >= 500 && code < 600;
}

async function deliver(db: Db, mail: MailRow, options: MailDeliveryOptions): Promise<void> {
  // Only the claim this process holds: a mail taken over after a lapsed lease is the other process's.
  const ours = and(eq(mailOutbox.id, mail.id), eq(mailOutbox.status, 'sending'), eq(mailOutbox.attempts, mail.attempts));
  try {
    await options.send({ to: mail.to, subject: mail.subject, text: mail.text });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    const next = permanent(error)
      ? null
      : nextAttemptAt({ baseMs: options.retryBaseMs, maxWaitMs: MAX_RETRY_WAIT_MS, giveUpMs: options.giveUpMs }, mail, Date.now());
    options.onFailure?.(mail, reason, next === null);
    await db
      .update(mailOutbox)
      .set(
        next === null
          ? { status: 'failed', leaseUntil: null, lastError: reason, text: BLANK }
          : { status: 'pending', nextAttemptAt: next, leaseUntil: null, lastError: reason },
      )
      .where(ours);
    return;
  }
  await db.update(mailOutbox).set({ status: 'sent', sentAt: new Date(), leaseUntil: null, lastError: null, text: BLANK }).where(ours);
}

/** Sends the mails due now; returns how many it tried (0: none due). */
export async function deliverDueMail(db: Db, options: MailDeliveryOptions): Promise<number> {
  const claimed = await claim(db, options.leaseMs);
  await Promise.all(claimed.map((mail) => deliver(db, mail, options)));
  return claimed.length;
}

/** When the next mail falls due (a retry, or a lease running out), if any. */
export const nextMail = (db: Db): Promise<Date | undefined> => nextOutboxDue(db, mailOutbox, mailOutbox);
