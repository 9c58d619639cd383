/**
 * Spec §3: "a per-user notification on/off flag" in local storage. A browser has no native push token, so the
 * device token is a random id made once per browser and kept in local storage (spec §3: "The device token lives
 * in native preferences", which a browser's local storage stands in for).
 */
import { LOCAL_KEYS } from '../../lib/storage.ts';

export const NOTIFICATIONS_KEY = LOCAL_KEYS.notifications;
export const DEVICE_TOKEN_KEY = LOCAL_KEYS.deviceToken;

const read = (key: string): string | null => {
  try {
    return window.localStorage.getItem(key);
  } catch {
    return null;
  }
};
const write = (key: string, value: string): void => {
  try {
    window.localStorage.setItem(key, value);
  } catch {
    // Without storage the choice lasts as long as the page.
  }
};

const readFlags = (): Record<string, unknown> => {
  const text = read(NOTIFICATIONS_KEY);
  if (!text) return {};
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? { ...parsed } : {};
  } catch {
    return {};
  }
};

/** Off unless this user turned notifications on in this browser. */
export const readNotificationsEnabled = (userId: string): boolean => new Map(Object.entries(readFlags())).get(userId) === true;

export const saveNotificationsEnabled = (userId: string, enabled: boolean): void => {
  write(NOTIFICATIONS_KEY, JSON.stringify({ ...readFlags(), [userId]: enabled }));
};

export const deviceToken = (): string => {
  const stored = read(DEVICE_TOKEN_KEY);
  if (stored) return stored;
  const token = `web-${crypto.randomUUID()}`;
  write(DEVICE_TOKEN_KEY, token);
  return token;
};
