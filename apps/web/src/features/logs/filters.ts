import { format, subDays } from 'date-fns';

/**
 * Spec §2 list filters in the query string (startDate, endDate, robot, offset, limit). The jobs list has the same
 * rules; features cannot import each other, so this belongs in a shared lib module once both screens exist.
 */
export const PAGE_SIZES = [5, 10, 20, 50] as const;
export const DEFAULT_LIMIT = 10;
export const DEFAULT_START_DAYS_AGO = 7;
const DATE_PATTERN = /^\d{4}-\d{2}-\d{2}$/;

export interface ListFilters {
  startDate: string;
  endDate: string | undefined;
  robots: string[];
  offset: number;
  limit: number;
}

export const defaultStartDate = (now: Date = new Date()): string => format(subDays(now, DEFAULT_START_DAYS_AGO), 'yyyy-MM-dd');

const wholeNumber = (text: string | null, fallback: number, min: number): number => {
  if (text === null || !/^\d+$/.test(text)) return fallback;
  const value = Number(text);
  return value >= min ? value : fallback;
};

const dateOf = (text: string | null): string | undefined => (text !== null && DATE_PATTERN.test(text) ? text : undefined);

export const readFilters = (search: URLSearchParams, now: Date = new Date()): ListFilters => ({
  startDate: dateOf(search.get('startDate')) ?? defaultStartDate(now),
  endDate: dateOf(search.get('endDate')),
  robots: (search.get('robot') ?? '').split(',').filter((id) => id !== ''),
  offset: wholeNumber(search.get('offset'), 0, 0),
  limit: wholeNumber(search.get('limit'), DEFAULT_LIMIT, 1),
});

export interface FilterChoice {
  startDate: string;
  endDate: string;
  robots: string[];
}

/** Changing dates or robots starts over at the first page: offset leaves the address. */
export const applyChoice = (search: URLSearchParams, choice: FilterChoice): URLSearchParams => {
  const next = new URLSearchParams(search);
  const set = (name: string, value: string) => {
    if (value === '') next.delete(name);
    else next.set(name, value);
  };
  set('startDate', choice.startDate);
  set('endDate', choice.endDate);
  set('robot', choice.robots.join(','));
  next.delete('offset');
  return next;
};

/** A new page size keeps the first row in view: the offset snaps down to a multiple of the new limit. */
export const applyLimit = (search: URLSearchParams, limit: number): URLSearchParams => {
  const next = new URLSearchParams(search);
  const offset = wholeNumber(search.get('offset'), 0, 0);
  next.set('limit', String(limit));
  const snapped = Math.floor(offset / limit) * limit;
  if (next.has('offset') || snapped > 0) next.set('offset', String(snapped));
  return next;
};

export const applyOffset = (search: URLSearchParams, offset: number): URLSearchParams => {
  const next = new URLSearchParams(search);
  next.set('offset', String(offset));
  return next;
};

/** Reset clears every parameter. */
export const resetFilters = (): URLSearchParams => new URLSearchParams();

/** Spec §9: page count = ceil(items/limit); current page = offset/limit + 1. */
export const pageInfo = (count: number, { offset, limit }: Pick<ListFilters, 'offset' | 'limit'>) => ({
  pages: Math.max(1, Math.ceil(count / limit)),
  page: Math.floor(offset / limit) + 1,
});
