import { useSyncExternalStore } from 'react';

/** Below Bootstrap's sm breakpoint (576 px, behaviour §9): phones. */
export const PHONE_QUERY = '(max-width: 575.98px)';

/**
 * Whether a CSS media query matches now, re-rendering when that changes. Where the browser offers no matchMedia
 * (jsdom) it never matches, so the wide layout is the default.
 */
export const useMediaQuery = (query: string): boolean =>
  useSyncExternalStore(
    (onChange) => {
      if (typeof window.matchMedia !== 'function') return () => undefined;
      const list = window.matchMedia(query);
      list.addEventListener('change', onChange);
      return () => {
        list.removeEventListener('change', onChange);
      };
    },
    () => typeof window.matchMedia === 'function' && window.matchMedia(query).matches,
  );
