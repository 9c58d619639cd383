/**
 * Behaviour §3 "timezones as [name, offset] pairs". Offsets change with daylight saving time, so they are computed,
 * not stored; the list is rebuilt at most once per quarter hour, which is finer than any zone's transitions
 * (all fall on a quarter hour of UTC).
 */
import type { TimezoneOption } from '@uvd/contracts';

const QUARTER_HOUR_MS = 15 * 60 * 1000;

const zoneNames = (): string[] => {
  const names = new Set(Intl.supportedValuesOf('timeZone'));
  // ICU lists canonical locations only; UTC is what servers and many users pick.
  names.add('UTC');
  return [...names].sort();
};

let formatters: Map<string, Intl.DateTimeFormat> | undefined;
let cached: { bucket: number; list: TimezoneOption[] } | undefined;

/** "GMT+05:30" → "+05:30"; "GMT" (UTC itself) → "+00:00". */
export function offsetOf(formatter: Intl.DateTimeFormat, at: Date): string {
  const name = formatter.formatToParts(at).find((part) => part.type === 'timeZoneName')?.value ?? 'GMT';
  const match = /^GMT([+-])(\d{1,2})(?::(\d{2}))?$/.exec(name);
  if (!match) return '+00:00';
  const [, sign = '+', hours = '0', minutes = '00'] = match;
  return `${sign}${hours.padStart(2, '0')}:${minutes}`;
}

export function timezoneList(now: Date = new Date()): TimezoneOption[] {
  const bucket = Math.floor(now.getTime() / QUARTER_HOUR_MS);
  if (cached?.bucket === bucket) return cached.list;
  formatters ??= new Map(
    zoneNames().map((zone) => [zone, new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'longOffset' })]),
  );
  const at = new Date(bucket * QUARTER_HOUR_MS);
  const list = [...formatters].map(([zone, formatter]): TimezoneOption => [zone, offsetOf(formatter, at)]);
  cached = { bucket, list };
  return list;
}
