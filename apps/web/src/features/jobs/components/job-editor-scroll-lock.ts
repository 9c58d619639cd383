import { useEffect, useState } from 'react';

/** Behaviour §9 scroll-lock: the selects stay disabled until the page has not scrolled for this long. */
export const SCROLL_LOCK_MS = 200;

/**
 * Behaviour §4: building, floor and robot selects are disabled while the page scrolls, so a swipe that starts on a
 * select (phones) does not change the cascade and clear the selects below it. True while locked.
 */
export const useScrollLock = (lockMs: number = SCROLL_LOCK_MS): boolean => {
  const [locked, setLocked] = useState(false);
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const onScroll = () => {
      setLocked(true);
      clearTimeout(timer);
      timer = setTimeout(() => {
        setLocked(false);
      }, lockMs);
    };
    window.addEventListener('scroll', onScroll, { passive: true });
    return () => {
      window.removeEventListener('scroll', onScroll);
      clearTimeout(timer);
    };
  }, [lockMs]);
  return locked;
};
