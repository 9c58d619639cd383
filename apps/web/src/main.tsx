import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import 'bootstrap/dist/css/bootstrap.min.css';
import './styles/theme.css';
import { App } from './app/index.tsx';
import { createServices } from './app/services.ts';
import { loadRuntimeConfig } from './config/runtime-config.ts';
import { createI18n } from './lib/i18n.ts';
import { linkManifest } from './lib/manifest-language.ts';
import { registerServiceWorker } from './lib/push/register-service-worker.ts';

const container = document.getElementById('root');
if (!container) throw new Error('index.html lacks #root');
const root = createRoot(container);

/** The runtime config is loaded before the first render: every address the app calls comes from it. */
const start = async () => {
  const i18n = await createI18n();
  linkManifest(i18n.language);
  i18n.on('languageChanged', (language) => {
    linkManifest(language);
  });
  try {
    const config = await loadRuntimeConfig();
    const services = createServices({ config, i18n });
    root.render(
      <StrictMode>
        <App services={services} />
      </StrictMode>,
    );
    registerServiceWorker();
  } catch (error) {
    console.error(error);
    // Offline, the service worker answered with the shell (sw.ts): the console says so and opens once the
    // connection is back.
    const offline = !navigator.onLine;
    if (offline) {
      window.addEventListener('online', () => {
        window.location.reload();
      });
    }
    root.render(
      <main className="container py-5" data-testid={offline ? 'offline-screen' : 'startup-failed'}>
        <h1 className="h3">{i18n.t(offline ? 'startup.offlineTitle' : 'startup.title')}</h1>
        <p>{i18n.t(offline ? 'startup.offline' : 'startup.configFailed')}</p>
        <button type="button" className="btn btn-primary" onClick={() => {
            window.location.reload();
          }}>
          {i18n.t('routeError.reload')}
        </button>
      </main>,
    );
  }
};

void start();
