/**
 * FCM HTTP v1 for the mobile shell (apps/mobile): the `firebase-admin` SDK signs a JWT with the project's service
 * account, trades it for an OAuth2 access token at Google's token endpoint, and posts one message per device token
 * to `https://fcm.googleapis.com/v1/projects/{project_id}/messages:send`.
 *
 * Android shows the `notification` part itself while the app is in the background; the `data` part carries the
 * whole push message (behaviour §3) as strings for the app to read back with `fromFcmData`. iOS gets the same through
 * FCM's APNs bridge; the PROMPT category is what gives a prompt its Confirm and Skip buttons there.
 */
import { randomUUID } from 'node:crypto';
import type { Agent } from 'node:http';
import { cert, deleteApp, initializeApp } from 'firebase-admin/app';
import { getMessaging, type TokenMessage } from 'firebase-admin/messaging';
import { z } from 'zod';
import { toFcmData, type PushMessage } from '@uvd/contracts';
import type { PushSender, SendOptions, SendOutcome } from './sender.ts';

/**
 * The fields of a Google service account key file that FCM needs. Its `token_uri` is not read:
 * google-auth-library (10.x, under firebase-admin 13) always posts to https://oauth2.googleapis.com/token.
 */
const ServiceAccountKey = z.object({
  project_id: z.string().min(1, 'project_id is required'),
  client_email: z.email('client_email must be the service account e-mail'),
  private_key: z.string().includes('PRIVATE KEY', { message: 'private_key must be a PEM private key' }),
});

export interface FcmSenderConfig {
  /** The service account key file's JSON text (Firebase console → Project settings → Service accounts). */
  serviceAccount: string;
  /**
   * Carries the connections to FCM (an outbound proxy in a deployment, a local stand-in in the tests). The OAuth
   * token exchange does not use it although `cert()` takes it: firebase-admin 13.10 builds the service account's
   * google-auth-library client with `GoogleAuth.fromJSON(key)`, which drops the agent, so that request goes through
   * `https.globalAgent`, or through the proxy named by HTTPS_PROXY (gaxios honours HTTPS_PROXY and NO_PROXY).
   */
  httpAgent?: Agent;
}

export interface FcmSender extends PushSender {
  readonly kind: 'fcm';
  readonly projectId: string;
  /** Releases the firebase-admin app (its token refresh and sockets). */
  close(): Promise<void>;
}

/** The Android notification channel the app creates for prompts (high importance: heads-up, sound). */
export const PROMPT_CHANNEL_ID = 'prompts';
/** The iOS notification category the app registers with Confirm and Skip actions. */
export const PROMPT_CATEGORY = 'PROMPT';

export class FcmConfigError extends Error {
  override readonly name = 'FcmConfigError';
}

export function createFcmSender(config: FcmSenderConfig): FcmSender {
  let json: unknown;
  try {
    json = JSON.parse(config.serviceAccount);
  } catch {
    throw new FcmConfigError('The FCM service account is not JSON: give the key file downloaded from the Firebase console.');
  }
  const parsed = ServiceAccountKey.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new FcmConfigError(`The FCM service account is incomplete: ${issue ? `${issue.path.join('.')}: ${issue.message}` : 'malformed'}`);
  }
  const key = parsed.data;
  // A unique name: several senders (tests, a key rotation) may live in one process beside other firebase-admin apps.
  const app = initializeApp(
    {
      credential: cert({ projectId: key.project_id, clientEmail: key.client_email, privateKey: key.private_key }, config.httpAgent),
      projectId: key.project_id,
      ...(config.httpAgent ? { httpAgent: config.httpAgent } : {}),
    },
    `uvd-fcm-${randomUUID()}`,
  );
  const messaging = getMessaging(app);

  return {
    kind: 'fcm',
    projectId: key.project_id,
    async send(token, message, options): Promise<SendOutcome> {
      // firebase-admin gives each request 15 s and itself retries a 503 without a Retry-After beyond a minute up
      // to 4 times (1 + 2 + 4 s of back-off): a send may take over a minute before its outcome is known.
      try {
        await messaging.send(toFcmMessage(token, message, options));
        return { kind: 'sent', status: 200 };
      } catch (error) {
        return outcomeOfFcmError(error);
      }
    },
    async close() {
      await deleteApp(app);
    },
  };
}

export function toFcmMessage(token: string, message: PushMessage, options: SendOptions): TokenMessage {
  const prompt = message.choices !== undefined && message.choices.length > 0;
  const high = options.urgency === 'high';
  return {
    token,
    notification: { title: message.title, body: message.body },
    data: toFcmData(message),
    android: {
      priority: high ? 'high' : 'normal',
      ttl: options.ttlSeconds * 1000,
      collapseKey: options.collapseKey,
      // No `icon`: Android wants a drawable of the app here, and message.icon is the web console's image path.
      notification: { tag: message.push_id, ...(prompt ? { channelId: PROMPT_CHANNEL_ID } : {}) },
    },
    apns: {
      headers: {
        // APNs: 10 delivers at once and may wake the device, 5 lets iOS choose a power-friendly moment.
        'apns-priority': high ? '10' : '5',
        'apns-collapse-id': options.collapseKey.slice(0, 64),
        'apns-expiration': String(Math.floor(Date.now() / 1000) + options.ttlSeconds),
      },
      // iOS plays no sound for a push whose aps names none.
      payload: { aps: { ...(prompt ? { category: PROMPT_CATEGORY } : {}), ...(high ? { sound: 'default' } : {}) } },
    },
  };
}

/** What firebase-admin's errors carry: a `messaging/…` or `app/…` code and the server's message. */
const FirebaseErrorShape = z.object({ code: z.string(), message: z.string() });

/**
 * The HTTP status FCM answers with each error (FCM HTTP v1 ErrorCode reference). firebase-admin keeps only the
 * code, so the outcome's status is derived from it.
 */
const STATUS_OF_CODE: Record<string, number> = {
  'messaging/registration-token-not-registered': 404,
  'messaging/invalid-registration-token': 400,
  'messaging/invalid-argument': 400,
  'messaging/mismatched-credential': 403,
  'messaging/third-party-auth-error': 401,
  'messaging/authentication-error': 401,
  'messaging/message-rate-exceeded': 429,
  'messaging/device-message-rate-exceeded': 429,
  'messaging/internal-error': 500,
  'messaging/server-unavailable': 503,
};

export function outcomeOfFcmError(error: unknown): SendOutcome {
  const parsed = FirebaseErrorShape.safeParse(error);
  if (!parsed.success) return { kind: 'retry', reason: error instanceof Error ? error.message : 'unknown error' };
  const { code, message } = parsed.data;
  const status = STATUS_OF_CODE[code];
  const reason = `${code}: ${message}`;
  switch (code) {
    case 'messaging/registration-token-not-registered':
    case 'messaging/invalid-registration-token':
      return { kind: 'gone', status: status ?? 404, reason };
    case 'messaging/invalid-argument':
      // FCM answers a token it never issued (an APNs token, a typo) with INVALID_ARGUMENT naming the token: that
      // device can never be reached. Any other invalid argument is this message's fault; the device stays.
      return /registration token/i.test(message) ? { kind: 'gone', status: 400, reason } : { kind: 'failed', status: 400, reason };
    case 'messaging/invalid-payload':
    case 'messaging/invalid-data-payload-key':
    case 'messaging/payload-size-limit-exceeded':
    case 'messaging/invalid-options':
    case 'messaging/invalid-recipient':
    case 'messaging/invalid-package-name':
      // Refused before sending (firebase-admin validates the message) or by FCM: resending cannot help.
      return { kind: 'failed', ...(status ? { status } : {}), reason };
    case 'messaging/mismatched-credential':
    case 'messaging/third-party-auth-error':
      // The token belongs to another Firebase project, or APNs refuses the project's key: the deployment's
      // configuration is wrong, not the device. Keeping the device lets pushes resume once it is fixed.
      return { kind: 'failed', ...(status ? { status } : {}), reason };
    default:
      // 429, 5xx, timeouts, refused or reset connections (app/network-error, app/network-timeout), a failed
      // OAuth token exchange (app/invalid-credential) and anything unknown: worth another try later.
      return { kind: 'retry', ...(status ? { status } : {}), reason };
  }
}
