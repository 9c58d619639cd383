import { TZDate, tz } from '@date-fns/tz';
import { format } from 'date-fns';

/** Behaviour §9: dates show as dd.MM.yyyy hh:mm AM/PM in the user's chosen timezone. */
export const DATE_TIME_FORMAT = 'dd.MM.yyyy hh:mm a';
export const DATE_FORMAT = 'dd.MM.yyyy';
/** The time of day alone, as DATE_TIME_FORMAT writes it. */
export const TIME_FORMAT = 'hh:mm a';
/** Behaviour §3 default when the session user has none. */
export const DEFAULT_TIME_ZONE = 'Europe/Helsinki';

/** An ISO 8601 timestamp of the API shown in a timezone (the session user's `timezone`); invalid input shows as is. */
export const formatDateTime = (iso: string, timeZone: string = DEFAULT_TIME_ZONE, pattern: string = DATE_TIME_FORMAT): string => {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  try {
    return format(date, pattern, { in: tz(timeZone) });
  } catch {
    // An unknown zone name (a stale setting) falls back to the default rather than hiding the date.
    return format(date, pattern, { in: tz(DEFAULT_TIME_ZONE) });
  }
};

/** The instant of a wall-clock date and time in `timeZone` (an unknown zone falls back to the default). */
export const zonedInstant = (date: string, hours: number, minutes: number, timeZone: string): Date => {
  const [year = 0, month = 1, day = 1] = date.split('-').map(Number);
  const at = (zone: string) => new Date(new TZDate(year, month - 1, day, hours, minutes, 0, 0, zone).getTime());
  const instant = at(timeZone);
  return Number.isNaN(instant.getTime()) ? at(DEFAULT_TIME_ZONE) : instant;
};
