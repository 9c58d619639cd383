import { useSyncExternalStore } from 'react';
import type { ReactNode } from 'react';
import type * as ReactToastify from 'react-toastify';

/** Behaviour §9 toasts: bottom-center, 3000 ms, at most 3 on screen (one on a phone: components/toasts.css). */
export const TOAST_POSITION = 'bottom-center';
export const TOAST_AUTO_CLOSE_MS = 3000;
export const TOAST_LIMIT = 3;
/**
 * An error says why and what to do next in two sentences, which 3 s does not leave time to read (WCAG 2.2.1); it
 * can be closed sooner.
 */
export const ERROR_TOAST_MS = 8000;
/**
 * A push shown in the console: 20 s (behaviour §9), not the 600 000 ms it once was, which left ten minutes of "Job finished" toasts over
 * a phone's rows (issue #25). Nothing is lost when it goes: the job's row, its log and the prompt banner stay.
 */
export const PUSH_TOAST_MS = 20_000;

type Toastify = typeof ReactToastify;

/**
 * react-toastify (6 KB gzipped) is loaded with the first toast, not with the page: no screen starts with one.
 * A toast raised before its container has mounted waits in react-toastify's queue.
 */
let toastify: Promise<Toastify> | null = null;
const listeners = new Set<() => void>();
const loadToastify = (): Promise<Toastify> => {
  if (!toastify) {
    toastify = import('react-toastify');
    for (const listener of listeners) listener();
  }
  return toastify;
};

const subscribe = (listener: () => void) => {
  listeners.add(listener);
  return () => {
    listeners.delete(listener);
  };
};

/** True once a toast has been raised: the app shell mounts the container from then on. */
export const useToastsRequested = (): boolean => useSyncExternalStore(subscribe, () => toastify !== null);

// Each call chains on the same import, so toasts show in the order they were raised.
const show = (kind: 'success' | 'error' | 'info', autoClose?: number) => (message: string) => {
  void loadToastify().then((module) => module.toast[kind](message, autoClose === undefined ? undefined : { autoClose }));
};

export const toast = {
  success: show('success'),
  error: show('error', ERROR_TOAST_MS),
  info: show('info'),
  /**
   * A push shown in the console (PUSH_TOAST_MS), one per push id however often it is delivered. The content gets
   * `close` for its own buttons; a click elsewhere on it does not dismiss it.
   */
  push: (id: string, content: (close: () => void) => ReactNode): void => {
    void loadToastify().then((module) =>
      module.toast(({ closeToast }) => content(closeToast), { toastId: id, autoClose: PUSH_TOAST_MS, closeOnClick: false }),
    );
  },
  dismiss: (): void => {
    void loadToastify().then((module) => {
      module.toast.dismiss();
    });
  },
};
