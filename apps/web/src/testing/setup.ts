import '@testing-library/jest-dom/vitest';
import { cleanup, configure } from '@testing-library/react';
import { toast } from 'react-toastify';
import { afterAll, afterEach, vi } from 'vitest';
import { disposeAll } from './disposables.ts';

// The first render of a screen loads its lazy route chunk, which under the full suite (the node project's
// PGlite servers share the two cores) can take longer than Testing Library's default 1 s wait.
configure({ asyncUtilTimeout: 5000 });

// Vitest runs without globals, so Testing Library cannot register its own cleanup.
afterEach(() => {
  // react-toastify keeps its toasts, and those waiting past the limit of 3, in its own module: a test's toasts
  // must not take the next test's places (a job's failing stop waited behind the previous test's "Stop sent").
  toast.dismiss();
  toast.clearWaitingQueue();
  cleanup();
  disposeAll();
  window.localStorage.clear();
  window.sessionStorage.clear();
  for (const cookie of document.cookie.split(';')) {
    const name = cookie.split('=')[0]?.trim();
    if (name) document.cookie = `${name}=; expires=Thu, 01 Jan 1970 00:00:00 GMT; path=/`;
  }
  window.history.replaceState(null, '', '/');
});

// The web files share their worker's modules and window (vitest.config.ts, `isolate: false`): what a file stubbed or
// spied on for all its tests (a global `fetch`, `URL`, a prototype's method) is put back before the next file.
afterAll(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});
