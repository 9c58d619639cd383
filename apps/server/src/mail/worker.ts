/**
 * The mail service of a server process: the SMTP transport (nodemailer on SMTP_URL, or the local catcher when
 * none is set) and one worker loop that sends due mails (lib/outbox-worker.ts), woken at once on the mail channel's
 * NOTIFY at the commit that wrote a mail and polling for retries.
 */
import type { FastifyBaseLogger } from 'fastify';
import nodemailer from 'nodemailer';
import type { AppContext } from '../context.ts';
import { startOutboxWorker } from '../lib/outbox-worker.ts';
import { startMailCatcher, type MailCatcher } from './catcher.ts';
import { deliverDueMail, nextMail, type SendMail } from './delivery.ts';
import { MAIL_CHANNEL } from './outbox.ts';

/** An SMTP server slower than this counts as unreachable (retried). */
const SEND_TIMEOUT_MS = 30_000;

export interface MailService {
  wake(): void;
  /** Resolves when no round runs (tests). */
  idle(): Promise<void>;
  /** The local catcher, when no SMTP_URL is set. */
  catcher: MailCatcher | undefined;
  close(): Promise<void>;
}

export async function startMail(ctx: Pick<AppContext, 'config' | 'database'>, logger: FastifyBaseLogger): Promise<MailService> {
  const config = ctx.config.mail;
  const catcher = config.smtpUrl
    ? undefined
    : await startMailCatcher((error) => {
        logger.warn({ err: error }, 'mail catcher: a message could not be read');
      });
  const smtpUrl = config.smtpUrl ?? catcher?.url ?? '';
  const transport = nodemailer.createTransport({
    url: smtpUrl,
    connectionTimeout: SEND_TIMEOUT_MS,
    greetingTimeout: SEND_TIMEOUT_MS,
    socketTimeout: SEND_TIMEOUT_MS,
    // The catcher offers no TLS; a real server on smtp:// still upgrades with STARTTLS when it offers it.
    ...(catcher ? { ignoreTLS: true } : {}),
  });
  const send: SendMail = async (mail) => {
    await transport.sendMail({ from: config.from, to: mail.to, subject: mail.subject, text: mail.text });
  };
  const db = ctx.database.db;
  const options = {
    send,
    giveUpMs: config.giveUpMs,
    retryBaseMs: config.retryBaseMs,
    leaseMs: 2 * SEND_TIMEOUT_MS,
    onFailure: (mail: { id: string; attempts: number }, reason: string, givenUp: boolean) => {
      logger.warn({ mail: mail.id, attempts: mail.attempts, reason, givenUp }, givenUp ? 'mail given up' : 'mail not sent; retried');
    },
  };

  const worker = await startOutboxWorker({
    notifier: ctx.database.notifier,
    channel: MAIL_CHANNEL,
    work: () => deliverDueMail(db, options),
    nextDue: () => nextMail(db),
    onError: (error) => {
      logger.error({ err: error }, 'mail worker failed; it tries again at its next poll');
    },
  });

  return {
    wake: worker.wake,
    idle: worker.idle,
    catcher,
    async close() {
      await worker.close();
      transport.close();
      await catcher?.close();
    },
  };
}
