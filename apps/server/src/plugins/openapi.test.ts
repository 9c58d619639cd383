/**
 * The OpenAPI document (GET /api/docs/json) against the server it describes: it must validate, declare the media
 * type each success reply really has, and mark a parameter required exactly when the server refuses a request
 * without it. The document drives the test, so a route added later is checked without editing this file.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import SwaggerParser from '@apidevtools/swagger-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ApiError } from '@uvd/contracts';
import { startRouteTestServer, type TestServer, type TestUser } from '../testing/harness.ts';
import { addFloorMap } from '../testing/rooms-fixtures.ts';
import { createSite } from '../testing/site-fixtures.ts';

interface JsonSchema {
  type?: string | undefined;
  format?: string | undefined;
  enum?: unknown[] | undefined;
  default?: unknown;
  minimum?: number | undefined;
  minLength?: number | undefined;
  minItems?: number | undefined;
  items?: JsonSchema | undefined;
  properties?: Record<string, JsonSchema> | undefined;
  required?: string[] | undefined;
  anyOf?: JsonSchema[] | undefined;
  oneOf?: JsonSchema[] | undefined;
}
const JsonSchema: z.ZodType<JsonSchema> = z.lazy(() =>
  z.object({
    type: z.string().optional(),
    format: z.string().optional(),
    enum: z.array(z.unknown()).optional(),
    default: z.unknown().optional(),
    minimum: z.number().optional(),
    minLength: z.number().optional(),
    minItems: z.number().optional(),
    items: JsonSchema.optional(),
    properties: z.record(z.string(), JsonSchema).optional(),
    required: z.array(z.string()).optional(),
    anyOf: z.array(JsonSchema).optional(),
    oneOf: z.array(JsonSchema).optional(),
  }),
);

/** The part of an OpenAPI 3 document this test reads (after swagger-parser resolved every $ref). */
const Media = z.record(z.string(), z.object({ schema: JsonSchema.optional() }));
const Operation = z.object({
  parameters: z
    .array(z.object({ name: z.string(), in: z.enum(['path', 'query', 'header', 'cookie']), required: z.boolean().optional(), schema: JsonSchema }))
    .default([]),
  requestBody: z.object({ content: Media }).optional(),
  responses: z.record(z.string(), z.object({ content: Media.optional() })),
});
type Operation = z.infer<typeof Operation>;
const OpenApiDocument = z.object({
  openapi: z.string(),
  paths: z.record(z.string(), z.record(z.string(), z.unknown())),
});
const METHODS = new Set(['get', 'put', 'post', 'patch', 'delete']);

let server: TestServer;
let admin: TestUser;
let operations: { method: string; route: string; operation: Operation }[];
/** Ids that exist, by parameter name, so that the routes can answer 2xx; any other id is a fresh UUID. */
const known = new Map<string, string>();

beforeAll(async () => {
  server = await startRouteTestServer();
  const orgId = await server.createOrg();
  admin = await server.createUser(orgId, ['done-admin', 'done-superadmin']);
  const site = await createSite(server.context.db, orgId, { robots: 1 });
  const floor = site.floors[0];
  if (!floor) throw new Error('no floor');
  await addFloorMap(server.context.db, floor.id);
  known.set('floor_id', floor.id);
  known.set('building_id', site.buildingId);
  // Through a file: swagger-parser reads the document as it would any published one, without a cast from JSON.
  const served = await server.request('GET', '/api/docs/json');
  expect(served.status).toBe(200);
  const file = path.join(await mkdtemp(path.join(tmpdir(), 'openapi-')), 'openapi.json');
  await writeFile(file, JSON.stringify(served.body));
  const document = OpenApiDocument.parse(await SwaggerParser.validate(file));
  operations = Object.entries(document.paths).flatMap(([route, item]) =>
    Object.entries(item)
      .filter(([method]) => METHODS.has(method))
      .map(([method, operation]) => ({ method: method.toUpperCase(), route, operation: Operation.parse(operation) })),
  );
});
afterAll(async () => {
  await server.close();
});

/** A value the schema accepts (as far as a JSON schema tells): its default, a known id, or the simplest fit. */
function sample(schema: JsonSchema, name = ''): unknown {
  if (schema.default !== undefined) return schema.default;
  const alternative = schema.anyOf?.[0] ?? schema.oneOf?.[0];
  if (alternative) return sample(alternative, name);
  if (schema.enum?.length) return schema.enum[0];
  switch (schema.type) {
    case 'array': {
      const item = schema.items ? sample(schema.items, name) : 'x';
      return Array.from({ length: Math.max(1, schema.minItems ?? 1) }, () => item);
    }
    case 'object':
      return Object.fromEntries(
        Object.entries(schema.properties ?? {})
          .filter(([key]) => schema.required?.includes(key))
          .map(([key, property]) => [key, sample(property, key)]),
      );
    case 'integer':
    case 'number':
      return Math.max(1, schema.minimum ?? 1);
    case 'boolean':
      return false;
    default:
      if (schema.format === 'uuid') return known.get(name) ?? randomUUID();
      if (schema.format === 'email') return `${randomUUID()}@example.test`;
      if (schema.format === 'date') return '2026-01-01';
      if (schema.format === 'date-time') return '2026-01-01T00:00:00Z';
      return 'x'.repeat(Math.max(1, schema.minLength ?? 1));
  }
}

interface Sent {
  status: number;
  mediaType: string | undefined;
  /** Fields a 400 names (`details.issues[].field`). */
  fields: string[];
}

/** Sends the operation with every path parameter and the given query parameters; reads a stream's head only. */
async function send(method: string, route: string, operation: Operation, queryNames: readonly string[]): Promise<Sent> {
  let url = route;
  const target = new URL(server.url);
  for (const parameter of operation.parameters) {
    if (parameter.in === 'path') url = url.replace(`{${parameter.name}}`, String(sample(parameter.schema, parameter.name)));
  }
  target.pathname = url;
  for (const parameter of operation.parameters) {
    if (parameter.in !== 'query' || !queryNames.includes(parameter.name)) continue;
    const value = sample(parameter.schema, parameter.name);
    for (const item of Array.isArray(value) ? value : [value]) target.searchParams.append(parameter.name, String(item));
  }
  const bodySchema = operation.requestBody?.content['application/json']?.schema;
  const headers: Record<string, string> = { authorization: `Bearer ${admin.token}` };
  if (bodySchema) headers['content-type'] = 'application/json';
  const abort = new AbortController();
  const response = await fetch(target, {
    method,
    headers,
    body: bodySchema ? JSON.stringify(sample(bodySchema)) : undefined,
    signal: abort.signal,
  });
  const mediaType = response.headers.get('content-type')?.split(';')[0]?.trim();
  let fields: string[] = [];
  if (mediaType === 'text/event-stream') abort.abort();
  else {
    const text = await response.text();
    if (response.status === 400) {
      const error = ApiError.parse(JSON.parse(text));
      const details = z.object({ issues: z.array(z.object({ field: z.string() })) }).safeParse(error.details);
      fields = details.success ? details.data.issues.map((issue) => issue.field) : [];
    }
  }
  return { status: response.status, mediaType: response.status === 204 ? undefined : mediaType, fields };
}

const requiredQuery = (operation: Operation) =>
  operation.parameters.filter((parameter) => parameter.in === 'query' && parameter.required).map((parameter) => parameter.name);

describe('the OpenAPI document matches the server', () => {
  it('validates as OpenAPI and documents the API routes', () => {
    expect(operations.length).toBeGreaterThan(40);
  });

  it('declares for each success reply the media type the server sends', async () => {
    const mismatches: string[] = [];
    const answered = new Set<string>();
    for (const { method, route, operation } of operations) {
      const sent = await send(method, route, operation, requiredQuery(operation));
      if (sent.status < 200 || sent.status > 299) continue;
      answered.add(`${method} ${route}`);
      const declared = Object.keys(operation.responses[String(sent.status)]?.content ?? {});
      const actual = sent.mediaType === undefined ? [] : [sent.mediaType];
      if (declared.join() !== actual.join()) {
        mismatches.push(`${method} ${route} ${sent.status}: declared [${declared.join()}], sent [${actual.join()}]`);
      }
    }
    expect(mismatches).toEqual([]);
    // The replies that are not JSON must have been reached, or the check above proves nothing about them.
    expect([...answered]).toEqual(
      expect.arrayContaining([
        'GET /api/floors/floor/map',
        'GET /api/jobs/v2/jobs/stream',
        'GET /api/action/action/stream',
        'GET /api/robot/stream',
        'GET /api/jobs/v2/jobs',
      ]),
    );
  });

  it('marks a query parameter required exactly when a request without it is a 400 naming it', async () => {
    const mismatches: string[] = [];
    for (const { method, route, operation } of operations) {
      const required = requiredQuery(operation);
      for (const parameter of operation.parameters.filter((candidate) => candidate.in === 'query')) {
        const others = required.filter((name) => name !== parameter.name);
        const sent = await send(method, route, operation, others);
        const refused = sent.status === 400 && sent.fields.includes(parameter.name);
        if (parameter.required && !refused) mismatches.push(`${method} ${route} ${parameter.name}: required, but ${sent.status} without it`);
        if (!parameter.required && refused) mismatches.push(`${method} ${route} ${parameter.name}: optional, but 400 without it`);
      }
    }
    expect(mismatches).toEqual([]);
  });

  it('declares no body for a 204 reply (RFC 9110: a 204 has no content)', () => {
    const withBody = operations
      .filter(({ operation }) => Object.keys(operation.responses['204']?.content ?? {}).length > 0)
      .map(({ method, route }) => `${method} ${route}`);
    expect(withBody).toEqual([]);
  });

  it('marks every path parameter required', () => {
    const optional = operations.flatMap(({ method, route, operation }) =>
      operation.parameters.filter((parameter) => parameter.in === 'path' && !parameter.required).map((parameter) => `${method} ${route} ${parameter.name}`),
    );
    expect(optional).toEqual([]);
  });
});
