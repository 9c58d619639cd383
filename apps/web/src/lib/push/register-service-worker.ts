import { isNativeShell } from './load-push-device.ts';

/** The build's service worker (vite-plugin-pwa, src/sw.ts), at the root so its scope is the whole console. */
export const SERVICE_WORKER_URL = '/sw.js';
export const SERVICE_WORKER_OPTIONS: RegistrationOptions = { scope: '/' };

/**
 * How long after the page's load event the worker is registered. Installing it precaches the whole build (about
 * 1 MB before compression); on two cores, registered at the load event it raised Lighthouse's total blocking time
 * on /jobs from 75 to 260 ms (score 94 → 85, bench:web), registered 5 s later it measured 65 ms (score 97). The
 * settings switch registers it at once when it needs it sooner (web-push-device.ts).
 */
export const REGISTER_DELAY_MS = 5000;

/**
 * Registers the console's service worker once the first screen has settled. Not in development (Vite's dev server
 * builds no worker) nor in the mobile shell, whose pushes are native.
 */
export const registerServiceWorker = (): void => {
  if (!import.meta.env.PROD || isNativeShell() || !('serviceWorker' in navigator)) return;
  const register = () => {
    navigator.serviceWorker.register(SERVICE_WORKER_URL, SERVICE_WORKER_OPTIONS).catch((error: unknown) => {
      // The console works without it; only pushes and the installable app need it.
      console.warn('The service worker could not be registered', error);
    });
  };
  const later = () => setTimeout(register, REGISTER_DELAY_MS);
  if (document.readyState === 'complete') later();
  else window.addEventListener('load', later, { once: true });
};
