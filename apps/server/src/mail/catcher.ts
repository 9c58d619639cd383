/**
 * The local mail catcher: with no SMTP_URL the server sends its mail to this SMTP server (smtp-server) on a free
 * loopback port, which parses each message (mailparser) and keeps the latest in memory, for the demo and the tests
 * to read through GET /api/dev/mail. Real SMTP on the wire, so the whole sending path is the one used in production.
 */
import { SMTPServer } from 'smtp-server';
import type { AddressObject, simpleParser as SimpleParser } from 'mailparser';
import type { CaughtMail } from '@uvd/contracts';

/** Mails kept; older ones are dropped. */
const KEPT = 500;

export interface MailCatcher {
  /** smtp://127.0.0.1:PORT */
  url: string;
  mails(): CaughtMail[];
  close(): Promise<void>;
}

const addressesOf = (field: AddressObject | AddressObject[] | undefined): string[] =>
  (Array.isArray(field) ? field : field ? [field] : []).flatMap((group) => group.value.map((entry) => entry.address ?? '')).filter(Boolean);

/**
 * mailparser, loaded with the first mail: with its encodings and HTML libraries it is 6 MB of the server's
 * JavaScript heap (bench/README.md "bench:memory"), and a catcher may never receive one.
 */
let parser: Promise<typeof SimpleParser> | undefined;
const loadParser = () => (parser ??= import('mailparser').then((module) => module.simpleParser));

export async function startMailCatcher(onError: (error: unknown) => void): Promise<MailCatcher> {
  const caught: CaughtMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, _session, callback) {
      loadParser()
        .then((simpleParser) => simpleParser(stream))
        .then((parsed) => {
          caught.push({
            id: parsed.messageId ?? `${Date.now()}-${caught.length}`,
            from: addressesOf(parsed.from)[0] ?? '',
            to: addressesOf(parsed.to),
            subject: parsed.subject ?? '',
            text: parsed.text ?? '',
            received_at: new Date().toISOString(),
          });
          if (caught.length > KEPT) caught.splice(0, caught.length - KEPT);
          callback();
        })
        .catch((error: unknown) => {
          onError(error);
          callback(error instanceof Error ? error : new Error('unreadable message'));
        });
    },
  });
  server.on('error', onError);
  const port = await new Promise<number>((resolve, reject) => {
    server.listen(0, '127.0.0.1', () => {
      const address = server.server.address();
      if (address && typeof address === 'object') resolve(address.port);
      else reject(new Error('mail catcher has no port'));
    });
  });
  return {
    url: `smtp://127.0.0.1:${port}`,
    mails: () => [...caught],
    close: () =>
      new Promise((resolve) => {
        server.close(() => {
          resolve();
        });
      }),
  };
}
