import { useSyncExternalStore } from 'react';
import type * as ReactToastify from 'react-toastify';

/** Spec §9 toasts: bottom-center, 3000 ms, at most 3 on screen. */
export const TOAST_POSITION = 'bottom-center';
export const TOAST_AUTO_CLOSE_MS = 3000;
export const TOAST_LIMIT = 3;

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
const show = (kind: 'success' | 'error' | 'info') => (message: string) => {
  void loadToastify().then((module) => module.toast[kind](message));
};

export const toast = {
  success: show('success'),
  error: show('error'),
  info: show('info'),
  dismiss: (): void => {
    void loadToastify().then((module) => {
      module.toast.dismiss();
    });
  },
};
