import { act, render } from '@testing-library/react';
import { MemoryRouter, useLocation, useNavigate } from 'react-router';
import type { Location, NavigateFunction } from 'react-router';
import { AppProvider } from '../app/provider.tsx';
import { AppRoutes } from '../app/router.tsx';
import { createServices } from '../app/services.ts';
import type { RuntimeConfig } from '../config/runtime-config.ts';
import type { SessionMirror } from '../lib/auth/session-mirror.ts';
import type { PushDevice } from '../lib/push/push-device.ts';
import { createI18n } from '../lib/i18n.ts';
import type { Language } from '../lib/i18n.ts';
import { trackDisposable } from './disposables.ts';
import { FakeNetwork } from './fake-network.ts';
import { testConfig } from './fixtures.ts';

export interface RenderAppOptions {
  path?: string;
  network?: FakeNetwork;
  config?: RuntimeConfig;
  language?: Language;
  /** The page starts in `language` but follows the signed-in user's profile, as a page opened without ?lng= does. */
  followProfile?: boolean;
  /** This device's push registration (e.g. a web device over a FakePushBrowser); jsdom's unsupported one otherwise. */
  pushDevice?: PushDevice;
  sessionMirror?: SessionMirror;
}

/** What a test reads of the router: where the app is now, and a way to go elsewhere as a link would. */
export interface TestRouter {
  location: () => Location;
  navigate: (to: string) => Promise<void>;
  /** The browser's Back button. */
  back: () => Promise<void>;
}

/** The whole app (real providers, routes, guards, i18n) at a path, with only the network faked. */
export const renderApp = async ({
  path = '/',
  network = new FakeNetwork(),
  config = testConfig(),
  language = 'en',
  followProfile = false,
  pushDevice,
  sessionMirror,
}: RenderAppOptions = {}) => {
  const i18n = await createI18n({ language, pinned: !followProfile });
  const services = createServices({
    config,
    i18n,
    fetch: network.fetch,
    pushDevice: pushDevice && (() => Promise.resolve(pushDevice)),
    sessionMirror,
    // Each rendered app is a browser of its own: no session shared with the apps of earlier tests.
    sessionTabs: null,
  });
  trackDisposable(services.auth);
  let current: { location: Location; navigate: NavigateFunction } | null = null;
  const Probe = () => {
    current = { location: useLocation(), navigate: useNavigate() };
    return null;
  };
  const view = render(
    <AppProvider services={services}>
      <MemoryRouter initialEntries={[path]}>
        <Probe />
        <AppRoutes />
      </MemoryRouter>
    </AppProvider>,
  );
  const probe = () => {
    if (!current) throw new Error('the router has not rendered');
    return current;
  };
  const router: TestRouter = {
    location: () => probe().location,
    navigate: async (to) => {
      await act(async () => {
        await probe().navigate(to);
      });
    },
    back: async () => {
      await act(async () => {
        await probe().navigate(-1);
      });
    },
  };
  return { ...view, router, services, network, i18n };
};
