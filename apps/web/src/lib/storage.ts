/**
 * Browser storage under the keys of behaviour §3: the session's tokens and realm in session storage (gone with the
 * tab), the last organization in local storage (remembered for the next sign-in).
 */
export const SESSION_KEYS = {
  refreshToken: 'refresh_token',
  accessToken: 'access_token',
  realm: 'realm',
} as const;
/**
 * The session kept on this device when the user ticked "Stay signed in" (lib/auth/auth-client.ts): the same three
 * values in local storage, where a tab opened after the last one closed finds them.
 */
export const KEPT_SESSION_KEYS = {
  refreshToken: 'kept_refresh_token',
  accessToken: 'kept_access_token',
  realm: 'kept_realm',
} as const;
type TokenKeys = Record<keyof typeof SESSION_KEYS, string>;
export const LOCAL_KEYS = {
  organization: 'organization',
  /** Per-user maps of the map screen's choices (behaviour §3 selected_building, selected_map). */
  selectedBuilding: 'selected_building',
  selectedMap: 'selected_map',
  /** Per-user notification on/off flags (behaviour §3). */
  notifications: 'notifications',
  /**
   * The device's push token: native preferences in the app, local storage in a browser (behaviour §3), where it is
   * the JSON of the browser's Web Push subscription (lib/push/web-push-device.ts).
   */
  deviceToken: 'device_token',
  /** When this device last registered for pushes (epoch ms): behaviour §9 renews the token after 7 days. */
  pushRegisteredAt: 'push_registered_at',
  /** Per-user opt-in to a sound when a robot asks the operator something ('on' or 'off'). */
  promptSound: 'prompt_sound',
} as const;

export interface SessionTokens {
  accessToken: string;
  refreshToken: string;
  realm: string;
}

/** Storage can throw (Safari private mode, quota, disabled cookies); the console then works without it. */
const read = (storage: Storage, key: string): string | null => {
  try {
    return storage.getItem(key);
  } catch {
    return null;
  }
};
const write = (storage: Storage, key: string, value: string | null): void => {
  try {
    if (value === null) storage.removeItem(key);
    else storage.setItem(key, value);
  } catch {
    // Nothing to do: the value lives only as long as the page.
  }
};

export interface TokenStore {
  read(): SessionTokens | null;
  readAccessToken(): string | null;
  write(tokens: SessionTokens): void;
  clear(): void;
}

/** The tab's session (session storage, behaviour §3 keys) or, with KEPT_SESSION_KEYS in local storage, the kept one. */
export const createTokenStore = (storage: Storage = window.sessionStorage, keys: TokenKeys = SESSION_KEYS): TokenStore => ({
  read() {
    const accessToken = read(storage, keys.accessToken);
    const refreshToken = read(storage, keys.refreshToken);
    const realm = read(storage, keys.realm);
    return accessToken && refreshToken && realm ? { accessToken, refreshToken, realm } : null;
  },
  readAccessToken: () => read(storage, keys.accessToken),
  write(tokens) {
    write(storage, keys.accessToken, tokens.accessToken);
    write(storage, keys.refreshToken, tokens.refreshToken);
    write(storage, keys.realm, tokens.realm);
  },
  clear() {
    for (const key of Object.values(keys)) write(storage, key, null);
  },
});

export const readSavedOrganization = (storage: Storage = window.localStorage): string | null =>
  read(storage, LOCAL_KEYS.organization);
export const saveOrganization = (organization: string, storage: Storage = window.localStorage): void => {
  write(storage, LOCAL_KEYS.organization, organization);
};

/** A JSON map keyed by user id in local storage (behaviour §3: selected_building and selected_map "by user id"). */
export const readUserChoice = (key: string, userId: string, storage: Storage = window.localStorage): string | null => {
  const text = read(storage, key);
  if (!text) return null;
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed !== 'object' || parsed === null) return null;
    const value = new Map<string, unknown>(Object.entries(parsed)).get(userId);
    return typeof value === 'string' ? value : null;
  } catch {
    return null;
  }
};
export const saveUserChoice = (key: string, userId: string, value: string, storage: Storage = window.localStorage): void => {
  let map: Record<string, unknown> = {};
  const text = read(storage, key);
  if (text) {
    try {
      const parsed: unknown = JSON.parse(text);
      if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) map = { ...parsed };
    } catch {
      // A corrupt entry is replaced.
    }
  }
  map[userId] = value;
  write(storage, key, JSON.stringify(map));
};
