// Behaviour §5 default job name, for every client that names jobs (the console's editor, the demo, the seed).
import { DEFAULT_TIMEZONE } from './users.ts';

const partsFormat = (timeZone: string) =>
  new Intl.DateTimeFormat('en-GB', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });

/** Day, month, year, hour and minute of an instant on the wall clock of `timeZone` (an unknown zone: the default). */
export function wallClock(at: Date, timeZone: string): { year: string; month: string; day: string; hour: string; minute: string } {
  let format: Intl.DateTimeFormat;
  try {
    format = partsFormat(timeZone);
  } catch {
    format = partsFormat(DEFAULT_TIMEZONE);
  }
  const parts = format.formatToParts(at);
  const part = (type: Intl.DateTimeFormatPartTypes) => parts.find((candidate) => candidate.type === type)?.value ?? '';
  return { year: part('year'), month: part('month'), day: part('day'), hour: part('hour'), minute: part('minute') };
}

/** DD.MM.YYYY HH:mm of an instant in the user's timezone: what the console shows as the job's start time. */
export function formatJobNameTime(at: Date, timeZone: string): string {
  const { year, month, day, hour, minute } = wallClock(at, timeZone);
  return `${day}.${month}.${year} ${hour}:${minute}`;
}

/** Behaviour §5: the user's given name plus the date and time as DD.MM.YYYY HH:mm, in the user's timezone. */
export const defaultJobName = (givenName: string, at: Date, timeZone: string): string =>
  `${givenName} ${formatJobNameTime(at, timeZone)}`.trim();
