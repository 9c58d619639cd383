/** The push services this server speaks to: Web Push always, FCM when a Firebase service account is configured. */
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.ts';
import type { Db } from '../db/client.ts';
import type { PushSender } from './sender.ts';
import { loadVapidKeys } from './vapid.ts';
import { createWebPushSender } from './web-push-sender.ts';

export interface PushSenders {
  senders: Partial<Record<PushSender['kind'], PushSender>>;
  vapidPublicKey: string;
}

export async function pushSenders(config: Config, db: Db, logger: FastifyBaseLogger): Promise<PushSenders> {
  const vapid = await loadVapidKeys(db, config.push.vapid);
  const senders: PushSenders['senders'] = { webpush: createWebPushSender(vapid, config.push.vapidSubject, config.push.sendTimeoutMs) };
  logger.info('native pushes (FCM) are off: set FCM_SERVICE_ACCOUNT or FCM_SERVICE_ACCOUNT_FILE to send them to the mobile app');
  return { senders, vapidPublicKey: vapid.publicKey };
}
