import { z } from 'zod';

/** Every entity id is a UUID; a malformed one is a 400 naming the field, an unknown one a 404. */
export const Id = z.uuid();
export type Id = z.infer<typeof Id>;

/** `true`/`false` in a query string. */
export const BooleanQuery = z
  .enum(['true', 'false'])
  .transform((value) => value === 'true');

/**
 * An id list in a query string: repeated (`a=1&a=2`) or one value; always an array after parsing, empty when left
 * out. The default (not only the preprocess) is what marks the parameter optional in the OpenAPI document.
 */
export const idListQuery = <T extends z.ZodType>(item: T) =>
  z
    .preprocess(
      (value: unknown): unknown[] => (value === undefined ? [] : Array.isArray(value) ? (value as unknown[]) : [value]),
      z.array(item),
    )
    .default([]);

/** Behaviour §9: robots, rooms, floors and buildings are listed 50 at a time; jobs and logs default to 10. */
export const PAGE_LIMIT_MAX = 200;
export const pagination = (defaultLimit: number) => ({
  offset: z.coerce.number().int().min(0).default(0),
  limit: z.coerce.number().int().min(1).max(PAGE_LIMIT_MAX).default(defaultLimit),
});

/**
 * PostgreSQL's `text` cannot hold U+0000 (the insert fails), and an unpaired UTF-16 surrogate is no Unicode
 * character at all: the drivers encode it to UTF-8 as U+FFFD, so the row would differ from what was sent.
 */
export const TEXT_MESSAGES = {
  nul: 'must not contain the NUL character (U+0000)',
  surrogate: 'must not contain an unpaired UTF-16 surrogate',
} as const;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
export const hasNul = (value: string): boolean => value.includes('\u0000');
export const hasLoneSurrogate = (value: string): boolean => LONE_SURROGATE.test(value);
export const isStorableText = (value: string): boolean => !hasNul(value) && !hasLoneSurrogate(value);

/** UTF-8 length in bytes: what PostgreSQL counts against an index row's limit. */
export const utf8Length = (value: string): number => new TextEncoder().encode(value).length;

/**
 * The one text schema of every request field (bodies, queries, path parameters, headers): a string that
 * PostgreSQL stores exactly as sent. Length limits stay with each field; chain `.trim()`, `.min()`, `.max()`.
 * The API's error handler names the field, so the messages say only what is wrong with it.
 */
export const Text = (params?: Parameters<typeof z.string>[0]) =>
  z
    .string(params)
    .refine((value) => !hasNul(value), TEXT_MESSAGES.nul)
    .refine((value) => !hasLoneSurrogate(value), TEXT_MESSAGES.surrogate);

/**
 * PostgreSQL dates span 4713 BC to 5874897 AD, but ISO 8601 without an expanded year (what JavaScript writes
 * for years 0–9999, and what drivers send) has four digits, and year 0 is no year in PostgreSQL: so an instant
 * is accepted when it falls in years 1–9999 in UTC, after its offset is applied (9999-12-31T23:59-23:59 is
 * year 10000, 0001-01-01T00:30+01:00 year 0).
 */
export const EARLIEST_INSTANT_MS = Date.parse('0001-01-01T00:00:00Z');
export const LATEST_INSTANT_MS = Date.parse('9999-12-31T23:59:59.999Z');
export const DATE_RANGE_MESSAGE = 'must fall in years 1 to 9999 (UTC)';
const inDateRange = (value: string): boolean => {
  const instant = Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T00:00:00Z` : value);
  return instant >= EARLIEST_INSTANT_MS && instant <= LATEST_INSTANT_MS;
};

/** Timestamps travel as ISO 8601 strings with offset. */
export const Timestamp = z.iso.datetime({ offset: true });

/** A timestamp a request sends: also within years 1–9999 in UTC (see EARLIEST_INSTANT_MS). */
export const TimestampInput = Timestamp.refine(inDateRange, DATE_RANGE_MESSAGE);

/** A calendar day (yyyy-MM-dd) or a full ISO 8601 timestamp, as the list filters send them; years 1–9999 in UTC. */
export const DateOrDateTime = z.union([z.iso.date(), z.iso.datetime({ offset: true })]).refine(inDateRange, DATE_RANGE_MESSAGE);

/** Reply of a command-like call: behaviour §7 "a command response with a falsy data value is a failure". */
export const DataFlag = z.object({ data: z.boolean() });
export type DataFlag = z.infer<typeof DataFlag>;
