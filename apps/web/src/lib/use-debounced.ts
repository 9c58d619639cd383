import { useEffect, useState } from 'react';

/** Behaviour §9: search boxes filter 500 ms after the last keystroke. */
export const SEARCH_DEBOUNCE_MS = 500;

export const useDebounced = <T,>(value: T, delayMs = SEARCH_DEBOUNCE_MS): T => {
  const [debounced, setDebounced] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => {
      setDebounced(value);
    }, delayMs);
    return () => {
      clearTimeout(timer);
    };
  }, [value, delayMs]);
  return debounced;
};

/** Case-insensitive "contains" over any of the given texts. */
export const matches = (term: string, ...texts: string[]): boolean => {
  const needle = term.trim().toLocaleLowerCase();
  return needle === '' || texts.some((text) => text.toLocaleLowerCase().includes(needle));
};
