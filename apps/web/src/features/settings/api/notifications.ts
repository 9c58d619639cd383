import { useMutation } from '@tanstack/react-query';
import { removeDevice, subscribe, unsubscribe } from '@uvd/contracts';
import type { SessionUser } from '@uvd/contracts';
import type { ApiClient } from '../../../lib/api-client.ts';
import { useApi } from '../../../lib/api-context.tsx';
import type { PushDevice } from '../../../lib/push/push-device.ts';
import { PushUnsupportedError, registrationFailureOf } from '../../../lib/push/push-errors.ts';
import { usePush } from '../../../lib/push/push-context.tsx';
import {
  PUSH_TOKEN_MAX_AGE_MS,
  readNotificationsEnabled,
  readRegisteredAt,
  saveNotificationsEnabled,
  saveRegisteredAt,
} from '../notifications.ts';

type PushUser = Pick<SessionUser, 'sub' | 'realm'>;

/** Behaviour §7: a device is subscribed twice, to its user's topic (sub) and its organization's (realm). */
const topicsOf = (user: PushUser): string[] => [user.sub, user.realm];

export const setSubscriptions = async (api: ApiClient, token: string, enabled: boolean, topics: readonly string[]): Promise<void> => {
  const contract = enabled ? subscribe : unsubscribe;
  const replies = await Promise.all(topics.map((topic) => api.request(contract, { body: { token, topic } })));
  // Behaviour §7: a command response with a falsy data value is a failure.
  if (replies.some((reply) => !reply.data)) throw new Error(enabled ? 'subscribe refused' : 'unsubscribe refused');
};

/**
 * Switch on: the device registers (asking the user's permission if needed), then its new token is subscribed to
 * both topics. Switch off: both topics are unsubscribed, then the device's subscription ends. The per-user flag
 * changes only when everything succeeded.
 */
export const switchNotifications = async (api: ApiClient, device: PushDevice, user: PushUser, enabled: boolean): Promise<void> => {
  if (enabled) {
    if (!device.supported()) throw new PushUnsupportedError('This device cannot receive pushes');
    const token = await device.register();
    await setSubscriptions(api, token, true, topicsOf(user));
    saveRegisteredAt(Date.now());
  } else {
    const token = await device.currentToken();
    if (token) await setSubscriptions(api, token, false, topicsOf(user));
    await device.unregister();
    saveRegisteredAt(null);
  }
  saveNotificationsEnabled(user.sub, enabled);
};

export const useSwitchNotifications = (user: PushUser) => {
  const api = useApi();
  const push = usePush();
  return useMutation({
    mutationFn: async (enabled: boolean) => {
      await switchNotifications(api, await push.device(), user, enabled);
    },
  });
};

export type RegistrationUpkeep = 'off' | 'current' | 'renewed' | 'refused';

/**
 * When a signed-in session starts with notifications on for its user: a device without a registration (logout
 * ends it) or with one older than 7 days (behaviour §9) registers again, subscribes the new token to both topics and
 * removes the old one (DELETE /remove). A device whose permission was withdrawn is switched off.
 */
export const renewRegistration = async (api: ApiClient, device: PushDevice, user: PushUser, now: number = Date.now()): Promise<RegistrationUpkeep> => {
  if (!readNotificationsEnabled(user.sub) || !device.supported()) return 'off';
  const previous = await device.currentToken();
  const registeredAt = readRegisteredAt();
  if (previous && registeredAt !== null && now - registeredAt < PUSH_TOKEN_MAX_AGE_MS) return 'current';
  let token: string;
  try {
    token = await device.register();
  } catch (error) {
    if (registrationFailureOf(error) !== 'denied') throw error;
    saveNotificationsEnabled(user.sub, false);
    return 'refused';
  }
  await setSubscriptions(api, token, true, topicsOf(user));
  saveRegisteredAt(now);
  if (previous && previous !== token) await api.request(removeDevice, { body: { deviceToken: previous, userId: user.sub } });
  return 'renewed';
};
