import { useEffect, useRef } from 'react';
import type { RefObject } from 'react';
import { useLocation } from 'react-router';

/**
 * After a client-side navigation, focus moves to the main region so keyboard and screen-reader users start at the
 * new screen's content (as after a page load), not at the link they left. The first render keeps the browser's focus.
 */
export const useRouteFocus = (target: RefObject<HTMLElement | null>): void => {
  const { pathname } = useLocation();
  const previous = useRef(pathname);
  useEffect(() => {
    if (previous.current === pathname) return;
    previous.current = pathname;
    target.current?.focus({ preventScroll: false });
  }, [pathname, target]);
};
