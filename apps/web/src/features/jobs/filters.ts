/** Spec §2 jobs list filters, kept in the query string. */
export const PAGE_SIZES = [5, 10, 20, 50] as const;
export const DEFAULT_LIMIT = 10;
export const DEFAULT_START_DAYS = 7;

export interface JobFilters {
  startDate: string;
  endDate: string | undefined;
  robots: string[];
  offset: number;
  limit: number;
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;

const pad = (value: number) => String(value).padStart(2, '0');
/** yyyy-MM-dd of a local day. */
export const isoDay = (date: Date): string => `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;

export const defaultStartDate = (now: Date = new Date()): string => {
  const start = new Date(now);
  start.setDate(start.getDate() - DEFAULT_START_DAYS);
  return isoDay(start);
};

const nonNegativeInt = (raw: string | null): number | undefined => {
  if (raw === null || !/^\d+$/.test(raw)) return undefined;
  return Number(raw);
};

/** Reads the filters from the address, falling back to the defaults for absent or malformed values. */
export const readFilters = (search: URLSearchParams, now: Date = new Date()): JobFilters => {
  const start = search.get('startDate');
  const end = search.get('endDate');
  const limit = nonNegativeInt(search.get('limit'));
  return {
    startDate: start !== null && DATE.test(start) ? start : defaultStartDate(now),
    endDate: end !== null && DATE.test(end) ? end : undefined,
    robots: (search.get('robot') ?? '')
      .split(',')
      .map((id) => id.trim())
      .filter((id) => id !== ''),
    offset: nonNegativeInt(search.get('offset')) ?? 0,
    limit: limit !== undefined && limit > 0 ? limit : DEFAULT_LIMIT,
  };
};

export type FilterChange = Partial<Pick<JobFilters, 'startDate' | 'endDate' | 'robots'>>;

/**
 * Spec §2: changing start date, end date or robot resets the offset to 0 and removes it from the address; the
 * other parameters stay as they are.
 */
export const applyFilterChange = (search: URLSearchParams, change: FilterChange): URLSearchParams => {
  const next = new URLSearchParams(search);
  if ('startDate' in change) {
    if (change.startDate) next.set('startDate', change.startDate);
    else next.delete('startDate');
  }
  if ('endDate' in change) {
    if (change.endDate) next.set('endDate', change.endDate);
    else next.delete('endDate');
  }
  if ('robots' in change) {
    if (change.robots && change.robots.length > 0) next.set('robot', change.robots.join(','));
    else next.delete('robot');
  }
  next.delete('offset');
  return next;
};

export const applyOffset = (search: URLSearchParams, offset: number): URLSearchParams => {
  const next = new URLSearchParams(search);
  next.set('offset', String(offset));
  return next;
};

/** Spec §2: changing the limit snaps the offset down to a multiple of the new limit. */
export const applyLimit = (search: URLSearchParams, limit: number, offset: number): URLSearchParams => {
  const next = new URLSearchParams(search);
  next.set('limit', String(limit));
  next.set('offset', String(Math.floor(offset / limit) * limit));
  return next;
};

/** Page count = ceil(count / limit) (at least 1), current = offset / limit + 1. */
export const pageInfo = (count: number, { offset, limit }: { offset: number; limit: number }) => ({
  page: Math.floor(offset / limit) + 1,
  pages: Math.max(1, Math.ceil(count / limit)),
});

/** The token a job's notes may hold for its current room (spec §2), replaced by localized text. */
export const CURRENT_ROOM_PLACEHOLDER = '{{current_room}}';
