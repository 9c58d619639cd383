/**
 * Behaviour §3: "a per-user notification on/off flag" in local storage, and (behaviour §9 "push token refresh after 7
 * days") when this device last registered. The device token itself belongs to the push device
 * (lib/push/web-push-device.ts in a browser, native preferences in the mobile shell).
 */
import { LOCAL_KEYS } from '../../lib/storage.ts';

export const NOTIFICATIONS_KEY = LOCAL_KEYS.notifications;
export const REGISTERED_AT_KEY = LOCAL_KEYS.pushRegisteredAt;

/** Behaviour §9: a device token older than this is renewed when the console starts. */
export const PUSH_TOKEN_MAX_AGE_MS = 7 * 24 * 60 * 60 * 1000;

const read = (key: string): string | null => {
  try {
    return window.localStorage.getItem(key);
  } catch {
    return null;
  }
};
const write = (key: string, value: string | null): void => {
  try {
    if (value === null) window.localStorage.removeItem(key);
    else window.localStorage.setItem(key, value);
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

/** Epoch ms of this device's last registration, or null. */
export const readRegisteredAt = (): number | null => {
  const value = Number(read(REGISTERED_AT_KEY) ?? Number.NaN);
  return Number.isFinite(value) ? value : null;
};

export const saveRegisteredAt = (at: number | null): void => {
  write(REGISTERED_AT_KEY, at === null ? null : String(at));
};
