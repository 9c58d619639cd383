import type { QueryClient } from '@tanstack/react-query';
import type { i18n as I18n } from 'i18next';
import type { RuntimeConfig } from '../config/runtime-config.ts';
import { createApiClient, createHttpInstance } from '../lib/api-client.ts';
import type { ApiClient } from '../lib/api-client.ts';
import type { ApiRequestError } from '../lib/api-error.ts';
import { AuthClient } from '../lib/auth/auth-client.ts';
import { lazySessionMirror } from '../lib/auth/lazy-session-mirror.ts';
import type { SessionMirror } from '../lib/auth/session-mirror.ts';
import { lazySessionTabs } from '../lib/auth/lazy-session-tabs.ts';
import type { SessionTabs } from '../lib/auth/session-tabs.ts';
import { isNativeShell, loadPushDevice } from '../lib/push/load-push-device.ts';
import { createPushOpener } from '../lib/push/push-context.tsx';
import type { PushServices } from '../lib/push/push-context.tsx';
import type { PushDevice } from '../lib/push/push-device.ts';
import { createQueryClient } from '../lib/query-client.ts';
import { followProfileLanguage } from '../lib/i18n.ts';
import { KEPT_SESSION_KEYS, createTokenStore } from '../lib/storage.ts';
import { toast } from '../lib/toast.ts';

/** Everything the app holds once per page: built from the runtime config, passed down by the providers. */
export interface AppServices {
  config: RuntimeConfig;
  i18n: I18n;
  api: ApiClient;
  auth: AuthClient;
  queryClient: QueryClient;
  push: PushServices;
}

export interface ServiceOptions {
  config: RuntimeConfig;
  i18n: I18n;
  /** Tests pass a fake network; the browser's fetch otherwise. */
  fetch?: typeof fetch;
  sessionStorage?: Storage;
  localStorage?: Storage;
  /** Tests pass a push device over a fake browser; the real one (Web Push or native) otherwise. */
  pushDevice?: () => Promise<PushDevice>;
  /** Tests pass an in-memory mirror (jsdom has no IndexedDB). */
  sessionMirror?: SessionMirror;
  /** The other tabs sharing the session; tests pass their own (or none). */
  sessionTabs?: Promise<SessionTabs | null> | null;
}

export const createServices = ({
  config,
  i18n,
  fetch,
  sessionStorage,
  localStorage,
  pushDevice,
  sessionMirror,
  sessionTabs,
}: ServiceOptions): AppServices => {
  const tokens = createTokenStore(sessionStorage ?? window.sessionStorage);
  const kept = createTokenStore(localStorage ?? window.localStorage, KEPT_SESSION_KEYS);
  const api = createApiClient(config, { fetch, getAccessToken: () => tokens.readAccessToken() });
  const queryClient = createQueryClient();
  const opener = createPushOpener();
  // The device's chunk needs the session's client and the auth client below (the shell's notification buttons).
  const loadDevice = pushDevice ?? (() => loadPushDevice(config, { api, auth, i18n, open: opener.open }));
  let device: Promise<PushDevice> | null = null;
  const push: PushServices = {
    ...opener,
    device: () => {
      // Loaded once; a chunk that failed to load is tried again next time.
      device ??= loadDevice().catch((error: unknown) => {
        device = null;
        throw error;
      });
      return device;
    },
  };
  const onRefreshError = (error: ApiRequestError) => {
    // Only a refused refresh ends the session; a network blip is retried by the next tick without a word.
    if (error.code === 'invalid_grant') toast.error(i18n.t('auth.sessionExpired'));
  };
  const auth = new AuthClient({
    config,
    api,
    identity: createHttpInstance(config.identity, { fetch }),
    tokens,
    kept,
    localStorage: localStorage ?? window.localStorage,
    onUser: (user) => followProfileLanguage(i18n, user.language),
    onRefreshError,
    onDeviceRemovalError: () => {
      toast.error(i18n.t('notifications.removeFailed'));
    },
    removePushDevice: async (userId) => {
      const { removePushDevice } = await import('../lib/push/remove-push-device.ts');
      await removePushDevice(api, await push.device(), userId);
    },
    sessionMirror: sessionMirror ?? lazySessionMirror(),
    // Tests render many apps in one jsdom, which must not share sessions through Node's BroadcastChannel.
    tabs: sessionTabs === undefined ? lazySessionTabs() : sessionTabs,
  });
  // The mobile shell hands over a notification's button or tap that started the app only once a listener is
  // there: its device is created at once, not on first use.
  if (isNativeShell()) void push.device().catch(() => undefined);
  // Nothing of one user's cache may show to the next one on this device.
  auth.subscribe(() => {
    if (auth.getSnapshot().status === 'unauthenticated') queryClient.clear();
  });
  return { config, i18n, api, auth, queryClient, push };
};
