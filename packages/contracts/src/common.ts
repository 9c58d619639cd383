import { z } from 'zod';

/** Every entity id is a UUID; a malformed one is a 400 naming the field, an unknown one a 404. */
export const Id = z.uuid();
export type Id = z.infer<typeof Id>;

/** `true`/`false` in a query string. */
export const BooleanQuery = z
  .enum(['true', 'false'])
  .transform((value) => value === 'true');

/** An id list in a query string: repeated (`a=1&a=2`) or one value; always an array after parsing. */
export const idListQuery = <T extends z.ZodType>(item: T) =>
  z.preprocess(
    (value: unknown): unknown[] => (value === undefined ? [] : Array.isArray(value) ? (value as unknown[]) : [value]),
    z.array(item),
  );

/** Spec §9: robots, rooms, floors and buildings are listed 50 at a time; jobs and logs default to 10. */
export const PAGE_LIMIT_MAX = 200;
export const pagination = (defaultLimit: number) => ({
  offset: z.coerce.number().int().min(0).default(0),
  limit: z.coerce.number().int().min(1).max(PAGE_LIMIT_MAX).default(defaultLimit),
});

/** A calendar day (yyyy-MM-dd) or a full ISO 8601 timestamp, as the list filters send them. */
export const DateOrDateTime = z.union([z.iso.date(), z.iso.datetime({ offset: true })]);

/** Timestamps travel as ISO 8601 strings with offset. */
export const Timestamp = z.iso.datetime({ offset: true });

/** Reply of a command-like call: spec §7 "a command response with a falsy data value is a failure". */
export const DataFlag = z.object({ data: z.boolean() });
export type DataFlag = z.infer<typeof DataFlag>;
