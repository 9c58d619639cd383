// Contracts of the notifications backend (behaviour §3, §7).
import { z } from 'zod';
import { DataFlag, Id, Text, utf8Length } from './common.ts';
import { defineRoute } from './route.ts';

/** Base64url without padding, as the Push API's `PushSubscription.toJSON()` writes keys. */
const base64url = (bytes: number, name: string) =>
  z
    .string({ error: `${name} is required` })
    .regex(/^[A-Za-z0-9_-]+$/, `${name} must be base64url`)
    // Unpadded base64url: 4 characters per 3 bytes, a last group of 2 or 3 characters for 1 or 2 bytes.
    .refine((value) => value.length % 4 !== 1 && Math.floor((value.length * 3) / 4) === bytes, `${name} must be ${bytes} bytes`);

/**
 * A browser's Web Push subscription (the JSON of its `PushSubscription`): where the push service accepts
 * messages for it, and the keys that encrypt them (RFC 8291): the browser's P-256 public key (65 bytes,
 * uncompressed) and its 16-byte auth secret.
 */
export const WebPushSubscription = z.object({
  endpoint: z.url({ protocol: /^https?$/, error: 'The subscription endpoint must be an http(s) URL' }).max(2048),
  expirationTime: z.number().nullable().optional(),
  keys: z.object({ p256dh: base64url(65, 'keys.p256dh'), auth: base64url(16, 'keys.auth') }),
});
export type WebPushSubscription = z.infer<typeof WebPushSubscription>;

/**
 * Subscriptions are keyed by (token, topic) in a btree index, whose rows hold at most 2704 bytes: a token of
 * DEVICE_TOKEN_MAX_BYTES and a topic of TOPIC_MAX characters (4 bytes each at most) fit with room for the row
 * header. Real tokens are far shorter (FCM about 160 characters, a Web Push subscription's JSON a few hundred).
 */
export const DEVICE_TOKEN_MAX_BYTES = 2048;
export const TOPIC_MAX = 100;

/** A native device token (FCM registration token, or an APNs token as hex): no spaces, no JSON. */
export const NATIVE_TOKEN_PATTERN = /^[A-Za-z0-9_:.-]{32,2048}$/;

export type DeviceTokenKind = 'webpush' | 'fcm';

/**
 * Behaviour §7's device token is either the JSON text of a Web Push subscription (a browser, the installable app)
 * or a native push token (the mobile shell, FCM). Anything else is malformed.
 */
export const parseDeviceToken = (
  token: string,
): { kind: 'webpush'; subscription: WebPushSubscription } | { kind: 'fcm'; token: string } | { error: string } => {
  if (token.startsWith('{')) {
    let value: unknown;
    try {
      value = JSON.parse(token);
    } catch {
      return { error: 'A device token that starts with "{" must be the JSON of a Web Push subscription' };
    }
    const parsed = WebPushSubscription.safeParse(value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      return { error: `Invalid Web Push subscription: ${issue ? `${issue.path.join('.') || 'token'}: ${issue.message}` : 'malformed'}` };
    }
    return { kind: 'webpush', subscription: parsed.data };
  }
  if (!NATIVE_TOKEN_PATTERN.test(token)) {
    return { error: 'A device token must be a Web Push subscription (JSON) or a native push token (32 or more of A-Z a-z 0-9 _ : . -)' };
  }
  return { kind: 'fcm', token };
};

const token = Text({ error: 'A device token is required' })
  .trim()
  .min(1, 'A device token is required')
  .refine((value) => utf8Length(value) <= DEVICE_TOKEN_MAX_BYTES, `The device token is longer than ${DEVICE_TOKEN_MAX_BYTES} bytes`)
  .superRefine((value, context) => {
    const parsed = parseDeviceToken(value);
    if ('error' in parsed) context.addIssue({ code: 'custom', message: parsed.error });
  });

/**
 * Behaviour §7: a device subscribes twice, to the topic of its user (the token's `sub`) and to the topic of its
 * organization (the realm name). Other topics answer 403.
 */
export const SubscriptionInput = z.object({
  token,
  topic: Text({ error: 'A topic is required' }).trim().min(1, 'A topic is required').max(TOPIC_MAX),
});
export type SubscriptionInput = z.infer<typeof SubscriptionInput>;

/** Behaviour §7 remove: every subscription of a device token of a user (the caller, or any user for an admin). */
export const RemoveDeviceInput = z.object({ deviceToken: token, userId: Id });
export type RemoveDeviceInput = z.infer<typeof RemoveDeviceInput>;

export const subscribe = defineRoute({
  method: 'POST',
  path: '/subscribe',
  summary: "Subscribe a device token to the caller's user topic (sub) or organization topic (realm)",
  tags: ['notifications'],
  body: SubscriptionInput,
  response: { 200: DataFlag },
});

export const unsubscribe = defineRoute({
  method: 'POST',
  path: '/unsubscribe',
  summary: "Unsubscribe one of the caller's device tokens from a topic (no subscription is not an error)",
  tags: ['notifications'],
  body: SubscriptionInput,
  response: { 200: DataFlag },
});

export const removeDevice = defineRoute({
  method: 'DELETE',
  path: '/remove',
  summary: "Remove every subscription of a device token of a user: the caller's own, or any user's for an admin",
  tags: ['notifications'],
  body: RemoveDeviceInput,
  response: { 200: DataFlag },
});

/** Behaviour §3 push message types. */
export const PushType = z.enum(['job', 'battery', 'delivery', 'account']);
export type PushType = z.infer<typeof PushType>;

/** What happened, for the service worker and the app to choose a screen and buttons. */
export const PushEventKind = z.enum([
  'job_started',
  'job_finished',
  'job_failed',
  'job_not_started',
  'prompt',
  'prompt_escalation',
  'battery_low',
  'stop_unconfirmed',
  // Deliveries (type delivery, related_id the delivery, url /deliveries/{id}): to the recipient with the PIN, the
  // hand-off locked and a delivery Blocked to the sender and the admins, Delivered to the sender, and the
  // escalation of a delivery waiting too long (or late) to the recipient, then the sender, then the admins.
  'delivery_requested',
  'delivery_handoff_locked',
  'delivery_blocked',
  'delivery_delivered',
  'delivery_escalation',
  // A user asked for a password reset link (type account, related_id the user, url /admin#users): to the admins.
  'password_reset_requested',
]);
export type PushEventKind = z.infer<typeof PushEventKind>;

/** The answers a prompt push offers as notification buttons (behaviour §4: confirm or skip). */
export const PushChoice = z.enum(['confirm', 'skip']);
export type PushChoice = z.infer<typeof PushChoice>;

/**
 * The data of a push (behaviour §3: title, body, icon, type, related_id), already in the recipient's language and
 * timezone. A prompt push (type job) also carries the action and its choices, answered with
 * POST /action/action/confirm { action_id, confirm, source: 'notification' }.
 */
export const PushMessage = z.object({
  title: z.string(),
  body: z.string(),
  icon: z.string(),
  type: PushType,
  /** The job id (type job), the robot id (type battery), the delivery id (type delivery) or the user id (type account). */
  related_id: Id,
  kind: PushEventKind,
  /** One per event: a device shows a repeated delivery of the same push once (notification tag). */
  push_id: z.string(),
  /** The console path to open on a click: /job/{id}, /map?robot={id} or /deliveries/{id}. */
  url: z.string(),
  /** The organization (realm) whose session may answer it. */
  realm: z.string(),
  action_id: Id.optional(),
  choices: z.array(PushChoice).optional(),
  /** Choice labels in the recipient's language, for the notification's buttons. */
  choice_labels: z.object({ confirm: z.string(), skip: z.string() }).optional(),
  sent_at: z.iso.datetime({ offset: true }),
});
export type PushMessage = z.infer<typeof PushMessage>;

/**
 * FCM data messages carry only strings (FCM HTTP v1 `data`): the push message with every field as text,
 * `choices` comma-separated and `choice_labels` as JSON.
 */
export const toFcmData = (message: PushMessage): Record<string, string> => {
  const data: Record<string, string> = {};
  const fields: Record<string, unknown> = { ...message };
  for (const [key, value] of Object.entries(fields)) {
    if (value === undefined) continue;
    data[key] = typeof value === 'string' ? value : Array.isArray(value) ? value.join(',') : JSON.stringify(value);
  }
  return data;
};

/** Reads FCM data back into a push message (the mobile shell); undefined when it is not one of ours. */
export const fromFcmData = (data: Record<string, unknown>): PushMessage | undefined => {
  const text = (key: string) => (typeof data[key] === 'string' ? data[key] : undefined);
  const choices = text('choices');
  const labels = text('choice_labels');
  let choiceLabels: unknown;
  try {
    choiceLabels = labels ? JSON.parse(labels) : undefined;
  } catch {
    return undefined;
  }
  const parsed = PushMessage.safeParse({
    ...data,
    action_id: text('action_id'),
    choices: choices ? choices.split(',') : undefined,
    choice_labels: choiceLabels,
  });
  return parsed.success ? parsed.data : undefined;
};
