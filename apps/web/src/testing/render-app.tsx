import { render } from '@testing-library/react';
import { RouterProvider, createMemoryRouter } from 'react-router';
import { AppProvider } from '../app/provider.tsx';
import { createAppRoutes } from '../app/router.tsx';
import { createServices } from '../app/services.ts';
import type { RuntimeConfig } from '../config/runtime-config.ts';
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
}

/** The whole app (real providers, routes, guards, i18n) at a path, with only the network faked. */
export const renderApp = async ({ path = '/', network = new FakeNetwork(), config = testConfig(), language = 'en' }: RenderAppOptions = {}) => {
  const i18n = await createI18n({ language });
  const services = createServices({ config, i18n, fetch: network.fetch });
  trackDisposable(services.auth);
  const router = createMemoryRouter(createAppRoutes(), { initialEntries: [path] });
  const view = render(
    <AppProvider services={services}>
      <RouterProvider router={router} />
    </AppProvider>,
  );
  return { ...view, router, services, network, i18n };
};
