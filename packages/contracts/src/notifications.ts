// Contracts of the notifications backend (spec §3, §7).
import { z } from 'zod';
import { DataFlag, Id } from './common.ts';
import { defineRoute } from './route.ts';

const token = z
  .string({ error: 'A device token is required' })
  .trim()
  .min(1, 'A device token is required')
  .max(4096, 'The device token is too long');

/**
 * Spec §7: a device subscribes twice, to the topic of its user (the token's `sub`) and to the topic of its
 * organization (the realm name). Other topics answer 403.
 */
export const SubscriptionInput = z.object({
  token,
  topic: z.string({ error: 'A topic is required' }).trim().min(1, 'A topic is required').max(200),
});
export type SubscriptionInput = z.infer<typeof SubscriptionInput>;

/** Spec §7 remove: every subscription of a device token of a user (the caller, or any user for an admin). */
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
