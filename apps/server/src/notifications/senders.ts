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
  close(): Promise<void>;
}

export async function pushSenders(config: Config, db: Db, logger: FastifyBaseLogger): Promise<PushSenders> {
  const vapid = await loadVapidKeys(db, config.push.vapid);
  const senders: PushSenders['senders'] = { webpush: createWebPushSender(vapid, config.push.vapidSubject, config.push.sendTimeoutMs) };
  // A bad service account stops the start (FcmConfigError names the problem) rather than failing every push later.
  // firebase-admin (with google-auth-library, gaxios, OpenTelemetry's API) is loaded only then: 3 MB of the
  // JavaScript heap a server without FCM does not need (bench/README.md "bench:memory").
  const fcm = config.push.fcmServiceAccount
    ? (await import('./fcm-sender.ts')).createFcmSender({ serviceAccount: config.push.fcmServiceAccount })
    : undefined;
  if (fcm) {
    senders.fcm = fcm;
    logger.info({ project: fcm.projectId }, 'native pushes (FCM) are on');
  } else {
    logger.info('native pushes (FCM) are off: set FCM_SERVICE_ACCOUNT or FCM_SERVICE_ACCOUNT_FILE to send them to the mobile app');
  }
  return {
    senders,
    vapidPublicKey: vapid.publicKey,
    close: async () => {
      await fcm?.close();
    },
  };
}
