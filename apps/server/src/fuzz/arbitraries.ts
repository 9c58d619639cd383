/**
 * fast-check arbitraries derived from the contracts' zod schemas (through their JSON Schema), so generated
 * requests are mostly valid and reach past the first validation error, and mutations of them that are not.
 */
import fc from 'fast-check';
import { z } from 'zod';

type JsonSchema = Record<string, unknown>;

export type Kind = 'robot' | 'room' | 'floor' | 'building' | 'group' | 'job' | 'user' | 'contact' | 'action' | 'delivery';

/** Ids the fuzzer may use where a schema asks for a uuid: real ones of the fuzzed organization reach the handlers. */
export interface IdPool {
  ids: Partial<Record<Kind, readonly string[]>>;
  /** The realm (organization) for the identity provider's path. */
  realm: string;
  /** Values a field of this name usually takes (what no schema says: the organization's doses, an email). */
  words?: Record<string, readonly unknown[]>;
}

/** Which resource an id field of a route (contract path, without its mount) names; '' is a body that is a list. */
export function kindOf(path: string, field: string): Kind | undefined {
  switch (field) {
    case 'robotId':
    case 'robot_id':
    case 'robot_list':
      return 'robot';
    case 'jobId':
    case 'job_id':
    case 'job_list':
      return 'job';
    case 'room_id':
    case 'pickup_room_id':
    case 'dropoff_room_id':
    case 'room_list':
      return 'room';
    case 'floor_id':
    case 'floor_id_list':
      return 'floor';
    case 'building_id':
      return 'building';
    case 'groupId':
    case 'group_id':
    case 'group':
    case 'groups':
      return 'group';
    case 'scope_id':
      // A report's scope: the tenancy matrix asks for a group's (tenancy.test.ts fixes the scope to group).
      return path.startsWith('/reports/') ? 'group' : undefined;
    case 'user_id':
    case 'userId':
    case 'recipient_user_id':
      return 'user';
    case 'action_id':
      return 'action';
    case 'delivery_id':
    case 'delivery_list':
      return 'delivery';
    case 'id':
    case '':
      if (path.startsWith('/jobs/') || path.startsWith('/log/') || path.startsWith('/reports/job/')) return 'job';
      if (path.startsWith('/rooms/')) return 'room';
      if (path.startsWith('/user/')) return 'user';
      if (path.startsWith('/group/')) return 'group';
      if (path.startsWith('/contact/')) return 'contact';
      if (path.startsWith('/admin/robot/')) return 'robot';
      return undefined;
    default:
      return undefined;
  }
}

/** Where in a request a generated value goes: the route's path (for kindOf) and the field's name. */
export interface Slot {
  path: string;
  field: string;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const num = (value: unknown): number | undefined => (typeof value === 'number' ? value : undefined);
const schemas = (value: unknown): JsonSchema[] => (Array.isArray(value) ? value.filter(isRecord) : []);

/**
 * Hostile text: what PostgreSQL cannot store (NUL, lone surrogates) most often, then right-to-left overrides,
 * emoji, control and combining characters, and random code units.
 */
export const nastyText = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom('\u0000', 'a\u0000b', '\uD800', 'x\uDC00y', '\uDBFF\uDBFF') },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      '\u202Eevil\u202C',
      'مرحبا بالعالم',
      'שָׁלוֹם',
      '🧪👩‍⚕️🏥',
      '\u200B\uFEFF',
      'e\u0301\u0301\u0301',
      '\r\n\t',
      "'; DROP TABLE jobs; --",
      '%00',
      '../../etc/passwd',
      '',
      ' ',
    ),
  },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 20 }) },
);

/** Values of the wrong kind or out of any sensible range. */
export const nastyValue: fc.Arbitrary<unknown> = fc.oneof(
  nastyText,
  fc.constantFrom<unknown>(
    null,
    true,
    false,
    0,
    -1,
    -2147483649,
    2147483648,
    2 ** 53,
    -(2 ** 63),
    1e308,
    -1e308,
    0.5,
    {},
    [],
    [null],
    ['a', 'b'],
    { $gt: '' },
    '0000-01-01',
    '9999-12-31T23:59:00-23:59',
    '00000000-0000-0000-0000-000000000000',
  ),
  fc.integer({ min: 5000, max: 70_000 }).map((length) => 'x'.repeat(length)),
);

/** A date-time PostgreSQL stores (years 1–9999 after the offset), with a Z or a numeric offset. */
const dateTime = fc
  .tuple(
    fc.date({ min: new Date('0001-01-02T00:00:00Z'), max: new Date('9999-12-30T00:00:00Z'), noInvalidDate: true }),
    fc.constantFrom('Z', '+00:00', '+05:30', '-23:59'),
  )
  .map(([date, offset]) => date.toISOString().replace('Z', offset));

const stringOf = (schema: JsonSchema, pool: IdPool, slot: Slot): fc.Arbitrary<string> => {
  switch (schema.format) {
    case 'uuid': {
      const kind = kindOf(slot.path, slot.field);
      const ofKind = kind ? (pool.ids[kind] ?? []) : [];
      const any = Object.values(pool.ids).flat();
      return fc.oneof(
        { weight: ofKind.length > 0 ? 6 : 0, arbitrary: ofKind.length > 0 ? fc.constantFrom(...ofKind) : fc.uuid() },
        { weight: any.length > 0 ? 1 : 0, arbitrary: any.length > 0 ? fc.constantFrom(...any) : fc.uuid() },
        { weight: 1, arbitrary: fc.uuid() },
      );
    }
    case 'date-time':
      return dateTime;
    case 'date':
      return dateTime.map((value) => value.slice(0, 10));
    case 'email':
      return fc.emailAddress();
    default:
      break;
  }
  const minLength = num(schema.minLength) ?? 0;
  const maxLength = Math.max(minLength, Math.min(num(schema.maxLength) ?? 40, 40));
  return fc.string({ unit: 'grapheme', minLength, maxLength });
};

/** An arbitrary of values valid for `schema` as far as JSON Schema can say (refinements aside). */
export function fromJsonSchema(schema: JsonSchema, pool: IdPool, slot: Slot = { path: '', field: '' }, depth = 0): fc.Arbitrary<unknown> {
  const words = pool.words?.[slot.field];
  if (words && words.length > 0) {
    return fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...words) }, { weight: 1, arbitrary: fromJsonSchema(schema, { ...pool, words: {} }, slot, depth) });
  }
  if ('const' in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return fc.constantFrom(...(schema.enum as unknown[]));
  const alternatives = [...schemas(schema.anyOf), ...schemas(schema.oneOf)];
  if (alternatives.length > 0) return fc.oneof(...alternatives.map((option) => fromJsonSchema(option, pool, slot, depth + 1)));
  switch (schema.type) {
    case 'string':
      return stringOf(schema, pool, slot);
    case 'integer':
      return fc.integer({ min: Math.max(num(schema.minimum) ?? -1000, -1e6), max: Math.min(num(schema.maximum) ?? 1000, 1e6) });
    case 'number':
      return fc.double({ min: num(schema.minimum) ?? -1e4, max: num(schema.maximum) ?? 1e4, noNaN: true, noDefaultInfinity: true });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array': {
      const prefix = schemas(schema.prefixItems);
      if (prefix.length > 0) return fc.tuple(...prefix.map((item) => fromJsonSchema(item, pool, slot, depth + 1)));
      const items = isRecord(schema.items) ? schema.items : {};
      const minLength = num(schema.minItems) ?? 0;
      const array = fc.array(fromJsonSchema(items, pool, slot, depth + 1), { minLength, maxLength: Math.max(minLength, Math.min(num(schema.maxItems) ?? 3, 3)) });
      // Positions in a list (a job's rooms) must be 0..n-1: numbered so, the request gets past that check.
      return isRecord(items.properties) && 'order_no' in items.properties
        ? array.map((list) => list.map((item, index) => (isRecord(item) ? { ...item, order_no: index } : item)))
        : array;
    }
    case 'object': {
      const properties = isRecord(schema.properties) ? schema.properties : {};
      const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
      const model: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [key, value] of Object.entries(properties)) {
        model[key] = fromJsonSchema(isRecord(value) ? value : {}, pool, { path: slot.path, field: key }, depth + 1);
      }
      return fc.record(model, { requiredKeys: required.filter((key) => key in model) });
    }
    default:
      // Unrepresentable in JSON Schema (a transform, a preprocess): anything JSON, or the query words.
      return depth > 3
        ? fc.constant('x')
        : fc.oneof({ weight: 4, arbitrary: fc.constantFrom<unknown>('true', 'false') }, { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 1 }) });
  }
}

/** The JSON Schema of the values a zod schema accepts (`io: 'input'` for bodies: defaults may be left out). */
export const jsonSchemaOf = (schema: z.ZodType, io: 'input' | 'output'): JsonSchema =>
  z.toJSONSchema(schema, { io, unrepresentable: 'any' });

type Mutation = 'replace' | 'delete' | 'extra' | 'wrap';

/** `value` with one node changed: replaced by a hostile value, deleted, wrapped in an array, or an extra field. */
function mutate(value: unknown, pick: number, mutation: Mutation, nasty: unknown): unknown {
  const paths: (string | number)[][] = [[]];
  const walk = (node: unknown, path: (string | number)[]): void => {
    const children: [string | number, unknown][] = Array.isArray(node) ? node.map((item, index) => [index, item]) : isRecord(node) ? Object.entries(node) : [];
    for (const [key, item] of children) {
      paths.push([...path, key]);
      walk(item, [...path, key]);
    }
  };
  walk(value, []);
  // The root itself only when it has no fields: a whole body of the wrong kind is one check, its fields many.
  const candidates = paths.length > 1 ? paths.slice(1) : paths;
  const path = candidates[pick % candidates.length] ?? [];
  const copy: unknown = structuredClone(value);
  if (path.length === 0) {
    if (mutation === 'extra' && isRecord(copy)) return { ...copy, extra_field: nasty };
    return mutation === 'wrap' ? [copy] : nasty;
  }
  let parent: unknown = copy;
  for (const key of path.slice(0, -1)) parent = isRecord(parent) || Array.isArray(parent) ? (parent as Record<string | number, unknown>)[key] : undefined;
  const last = path[path.length - 1] ?? '';
  if (!isRecord(parent) && !Array.isArray(parent)) return copy;
  const container = parent as Record<string | number, unknown>;
  switch (mutation) {
    case 'replace':
      container[last] = nasty;
      break;
    case 'delete':
      if (Array.isArray(parent) && typeof last === 'number') parent.splice(last, 1);
      else Reflect.deleteProperty(container, last);
      break;
    case 'wrap':
      container[last] = [container[last], container[last]];
      break;
    case 'extra':
      if (isRecord(parent)) parent.unexpected = nasty;
      else container[last] = nasty;
      break;
  }
  return copy;
}

/** Values of `schema` valid as far as the generator knows, for the parts of a request not being fuzzed. */
export const validOf = (schema: JsonSchema, pool: IdPool, path = ''): fc.Arbitrary<unknown> => fromJsonSchema(schema, pool, { path, field: '' });

/** Paths of the free texts of `value` (strings whose schema has no format, enum or pattern: names, notes). */
function freeTexts(value: unknown, schema: JsonSchema, path: (string | number)[] = []): (string | number)[][] {
  if (typeof value === 'string') return schema.type === 'string' && !schema.format && !schema.enum && !schema.pattern ? [path] : [];
  if (Array.isArray(value)) return value.flatMap((item, index) => freeTexts(item, isRecord(schema.items) ? schema.items : {}, [...path, index]));
  if (isRecord(value)) {
    const properties = isRecord(schema.properties) ? schema.properties : {};
    return Object.entries(value).flatMap(([key, item]) => freeTexts(item, isRecord(properties[key]) ? properties[key] : {}, [...path, key]));
  }
  return [];
}

/**
 * `value` with one free text made hostile, the rest left valid: every other field must pass for the hostile one
 * to reach the handler and the database (validation reports all fields' issues at once).
 */
function poisonText(value: unknown, schema: JsonSchema, pick: number, text: string): unknown {
  const paths = freeTexts(value, schema);
  const path = paths[pick % Math.max(paths.length, 1)];
  if (!path) return value;
  if (path.length === 0) return text;
  const copy: unknown = structuredClone(value);
  let parent: unknown = copy;
  for (const key of path.slice(0, -1)) parent = isRecord(parent) ? parent[key] : Array.isArray(parent) ? (parent as unknown[])[Number(key)] : undefined;
  const last = path[path.length - 1] ?? '';
  if (isRecord(parent)) parent[last] = text;
  else if (Array.isArray(parent)) (parent as unknown[])[Number(last)] = text;
  return copy;
}

/**
 * Valid values of `schema` (a fifth), one mutation of such a value (two fifths), or a valid value with one free
 * text made hostile (two fifths): NUL and lone surrogates must be refused in whichever field they come.
 */
export function fuzzed(schema: JsonSchema, pool: IdPool, path = ''): fc.Arbitrary<unknown> {
  const valid = validOf(schema, pool, path);
  const mutated = fc
    .tuple(valid, fc.nat(), fc.constantFrom<Mutation>('replace', 'replace', 'delete', 'extra', 'wrap'), nastyValue)
    .map(([value, pick, mutation, nasty]) => mutate(value, pick, mutation, nasty));
  const poisoned = fc.tuple(valid, fc.nat(), nastyText).map(([value, pick, text]) => poisonText(value, schema, pick, `Ward ${text} 7`));
  return fc.oneof({ weight: 1, arbitrary: valid }, { weight: 2, arbitrary: mutated }, { weight: 2, arbitrary: poisoned });
}
