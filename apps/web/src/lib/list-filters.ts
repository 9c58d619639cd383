import { format, parseISO, subDays } from 'date-fns';
import { DEFAULT_TIME_ZONE, formatDateTime } from './format-date.ts';

/**
 * Behaviour §2 list filters kept in the query string (startDate, endDate, robot, offset, limit). The jobs and logs
 * lists follow the same rules, so both read and write the address through this module.
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

/**
 * Behaviour §2 default start date: 7 days before the user's today in their timezone, the zone the server reads the
 * bare date in (not the browser's: at 01:30 in Helsinki a UTC browser is still on yesterday). Calendar days are
 * counted, so a DST change in between cannot shift it.
 */
export const defaultStartDate = (now: Date = new Date(), timeZone: string = DEFAULT_TIME_ZONE): string =>
  format(subDays(parseISO(formatDateTime(now.toISOString(), timeZone, 'yyyy-MM-dd')), DEFAULT_START_DAYS_AGO), 'yyyy-MM-dd');

const wholeNumber = (text: string | null, fallback: number, min: number): number => {
  if (text === null || !/^\d+$/.test(text)) return fallback;
  const value = Number(text);
  return value >= min ? value : fallback;
};

const dateOf = (text: string | null): string | undefined => (text !== null && DATE_PATTERN.test(text) ? text : undefined);

const offsetOf = (search: URLSearchParams): number => wholeNumber(search.get('offset'), 0, 0);

/**
 * The offered page size nearest to `limit` (the smaller on a tie): a limit the select does not offer (a typed or
 * old address, `limit=7`) would list rows the select cannot show, so the list and the select use the snapped one.
 */
export const snapLimit = (limit: number): number =>
  PAGE_SIZES.reduce<number>((best, size) => (Math.abs(size - limit) < Math.abs(best - limit) ? size : best), PAGE_SIZES[0]);

/**
 * Reads the filters from the address, falling back to the defaults for absent or malformed values. Dates are the
 * user's days in `timeZone` (their setting), which the server reads them in too.
 */
export const readFilters = (search: URLSearchParams, now: Date = new Date(), timeZone: string = DEFAULT_TIME_ZONE): ListFilters => ({
  startDate: dateOf(search.get('startDate')) ?? defaultStartDate(now, timeZone),
  endDate: dateOf(search.get('endDate')),
  robots: (search.get('robot') ?? '')
    .split(',')
    .map((id) => id.trim())
    .filter((id) => id !== ''),
  offset: offsetOf(search),
  limit: snapLimit(wholeNumber(search.get('limit'), DEFAULT_LIMIT, 1)),
});

/** The parameters that narrow a list (not paging): a list with any of them shows that a filter is active. */
const FILTER_PARAMETERS = ['startDate', 'endDate', 'robot', 'status'] as const;
export const activeFilterCount = (search: URLSearchParams): number => FILTER_PARAMETERS.filter((name) => search.get(name)).length;

/** A list's filters as the query of its call: robot_id repeated, from_date and to_date the user's days (behaviour §7). */
export const listQuery = (filters: ListFilters) => ({
  offset: filters.offset,
  limit: filters.limit,
  robot_id: filters.robots,
  from_date: filters.startDate,
  to_date: filters.endDate,
});

/** The comma-separated `status` parameter of the jobs list (its values are checked by the caller). */
export const readStatuses = (search: URLSearchParams): string[] =>
  (search.get('status') ?? '')
    .split(',')
    .map((status) => status.trim())
    .filter((status) => status !== '');

/** A from-date after the to-date matches nothing by mistake: the dialog refuses it, as the server does. */
export const datesInOrder = (startDate: string, endDate: string | undefined): boolean => !startDate || !endDate || startDate <= endDate;

/** The dialog's choice: only the fields present change; an empty value removes its parameter. */
export type FilterChange = Partial<Pick<ListFilters, 'startDate' | 'endDate' | 'robots'>> & { statuses?: string[] };

/** Changing start date, end date or robot starts over at the first page: offset leaves the address. */
export const applyFilterChange = (search: URLSearchParams, change: FilterChange): URLSearchParams => {
  const next = new URLSearchParams(search);
  const set = (name: string, value: string | undefined) => {
    if (value) next.set(name, value);
    else next.delete(name);
  };
  if ('startDate' in change) set('startDate', change.startDate);
  if ('endDate' in change) set('endDate', change.endDate);
  if ('robots' in change) set('robot', change.robots?.join(','));
  if ('statuses' in change) set('status', change.statuses?.join(','));
  next.delete('offset');
  return next;
};

export const applyOffset = (search: URLSearchParams, offset: number): URLSearchParams => {
  const next = new URLSearchParams(search);
  next.set('offset', String(offset));
  return next;
};

/** A new page size keeps the first row in view: the offset snaps down to a multiple of the new limit. */
export const applyLimit = (search: URLSearchParams, limit: number, offset: number = offsetOf(search)): URLSearchParams => {
  const next = new URLSearchParams(search);
  next.set('limit', String(limit));
  const snapped = Math.floor(offset / limit) * limit;
  if (next.has('offset') || snapped > 0) next.set('offset', String(snapped));
  return next;
};

/** "Clear filters" drops what narrows the list and starts at the first page, keeping the page size. */
export const clearFilters = (search: URLSearchParams): URLSearchParams => {
  const next = new URLSearchParams(search);
  for (const name of [...FILTER_PARAMETERS, 'offset']) next.delete(name);
  return next;
};

/** Reset clears every parameter. */
export const resetFilters = (): URLSearchParams => new URLSearchParams();

/** Behaviour §9: page count = ceil(items/limit) (at least 1); current page = offset/limit + 1. */
export const pageInfo = (count: number, { offset, limit }: Pick<ListFilters, 'offset' | 'limit'>) => ({
  page: Math.floor(offset / limit) + 1,
  pages: Math.max(1, Math.ceil(count / limit)),
});
