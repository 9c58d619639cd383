import type { QueryClient } from '@tanstack/react-query';
import type { i18n as I18n } from 'i18next';
import type { RuntimeConfig } from '../config/runtime-config.ts';
import { createApiClient, createHttpInstance } from '../lib/api-client.ts';
import type { ApiClient } from '../lib/api-client.ts';
import type { ApiRequestError } from '../lib/api-error.ts';
import { AuthClient } from '../lib/auth/auth-client.ts';
import { createQueryClient } from '../lib/query-client.ts';
import { createTokenStore } from '../lib/storage.ts';
import { toast } from '../lib/toast.ts';

/** Everything the app holds once per page: built from the runtime config, passed down by the providers. */
export interface AppServices {
  config: RuntimeConfig;
  i18n: I18n;
  api: ApiClient;
  auth: AuthClient;
  queryClient: QueryClient;
}

export interface ServiceOptions {
  config: RuntimeConfig;
  i18n: I18n;
  /** Tests pass a fake network; the browser's fetch otherwise. */
  fetch?: typeof fetch;
  sessionStorage?: Storage;
  localStorage?: Storage;
}

export const createServices = ({ config, i18n, fetch, sessionStorage, localStorage }: ServiceOptions): AppServices => {
  const tokens = createTokenStore(sessionStorage ?? window.sessionStorage);
  const api = createApiClient(config, { fetch, getAccessToken: () => tokens.readAccessToken() });
  const queryClient = createQueryClient();
  const onRefreshError = (error: ApiRequestError) => {
    // Only a refused refresh ends the session; a network blip is retried by the next tick without a word.
    if (error.status === 400) toast.error(i18n.t('auth.sessionExpired'));
  };
  const auth = new AuthClient({
    config,
    api,
    identity: createHttpInstance(config.identity, { fetch }),
    tokens,
    localStorage: localStorage ?? window.localStorage,
    onRefreshError,
    onDeviceRemovalError: () => {
      toast.error(i18n.t('notifications.removeFailed'));
    },
  });
  // Nothing of one user's cache may show to the next one on this device.
  auth.subscribe(() => {
    if (auth.getSnapshot().status === 'unauthenticated') queryClient.clear();
  });
  return { config, i18n, api, auth, queryClient };
};
