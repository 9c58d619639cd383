/**
 * Sends a generated request for a route of the route table over real HTTP and checks the reply against the
 * route's contract; shared by the fuzz suite and the tenancy matrix.
 */
import { sql } from 'drizzle-orm';
import { ApiError, errorResponses, isStreamRoute, OAuthError, routeUrl, type RouteTableEntry } from '@uvd/contracts';
import type { z } from 'zod';
import type { Database } from '../db/client.ts';

export type BodyEncoding = 'json' | 'form' | 'invalid-json' | 'text' | 'none';

export interface RouteRequest {
  entry: RouteTableEntry;
  params: Record<string, unknown>;
  query: unknown;
  body: unknown;
  encoding: BodyEncoding;
  token?: string | undefined;
  headers?: Record<string, string>;
}

export interface RouteReply {
  status: number;
  contentType: string;
  /** Parsed JSON, or the text of a non-JSON reply; undefined for a stream that answered 200 (not read). */
  body: unknown;
  /** Node's HTTP parser refused the request's head as too large (431) before any route ran: no reply of ours. */
  refusedByParser?: boolean;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const asText = (value: unknown): string => (typeof value === 'string' ? value : value === undefined ? '' : JSON.stringify(value));

/**
 * encodeURIComponent throws on a lone surrogate; a client can still send its would-be UTF-8 bytes (CESU-8),
 * which is exactly what a server must survive.
 */
export function encodeSegment(value: string): string {
  return value.replace(/[\uD800-\uDFFF]|[^\uD800-\uDFFF]+/g, (part) => {
    if (part.length === 1 && /[\uD800-\uDFFF]/.test(part)) {
      const code = part.charCodeAt(0);
      return [0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f)].map((byte) => `%${byte.toString(16).toUpperCase()}`).join('');
    }
    return encodeURIComponent(part);
  });
}

export function requestUrl(baseUrl: string, request: RouteRequest): URL {
  const path = routeUrl(request.entry).replace(/:([A-Za-z_]+)/g, (_, name: string) => encodeSegment(asText(request.params[name] ?? '')));
  const url = new URL(path, baseUrl);
  const query = isRecord(request.query) ? request.query : request.query === undefined ? {} : { q: request.query };
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const item of value) url.searchParams.append(key, asText(item));
    else url.searchParams.append(key, asText(value));
  }
  return url;
}

function encodeBody(request: RouteRequest): { body?: string; contentType?: string } {
  if (request.entry.contract.method === 'GET' || request.encoding === 'none' || request.body === undefined) return {};
  switch (request.encoding) {
    case 'json':
      return { body: JSON.stringify(request.body), contentType: 'application/json' };
    case 'form': {
      const form = new URLSearchParams();
      const fields = isRecord(request.body) ? request.body : { value: request.body };
      for (const [key, value] of Object.entries(fields)) if (value !== undefined) form.append(key, asText(value));
      return { body: form.toString(), contentType: 'application/x-www-form-urlencoded' };
    }
    case 'invalid-json':
      return { body: `${JSON.stringify(request.body).slice(0, -1)},}`, contentType: 'application/json' };
    case 'text':
      return { body: asText(request.body), contentType: 'text/plain' };
  }
}

/** Node's HTTP parser refuses a request line and headers larger than this (its default `maxHeaderSize`). */
const NODE_MAX_HEADER_BYTES = 16 * 1024;
let previousWasOversize = false;

const closedWithoutReply = (error: unknown): boolean =>
  error instanceof TypeError && error.cause instanceof Error && 'code' in error.cause && error.cause.code === 'UND_ERR_SOCKET';

/**
 * Sends the request; a stream that answers 200 is closed once its headers arrive. A request whose head is larger
 * than Node accepts is answered 431 and its connection closed by Node's parser, before any route runs. Two races
 * follow from that close (both seen on a loaded machine): the closed connection may reach this client before the
 * 431 (for such a request only, it counts as that 431), and the pool may hand the closed connection to the next
 * request (which never reached the server, and is sent once more on a new connection).
 */
export async function sendRoute(baseUrl: string, request: RouteRequest, timeoutMs = 20_000): Promise<RouteReply> {
  const { body, contentType } = encodeBody(request);
  const headers: Record<string, string> = { ...request.headers };
  if (contentType) headers['content-type'] = contentType;
  if (request.token) headers.authorization = `Bearer ${request.token}`;
  const url = requestUrl(baseUrl, request);
  const headBytes = Buffer.byteLength(url.href) + Object.entries(headers).reduce((sum, [name, value]) => sum + Buffer.byteLength(`${name}: ${value}\r\n`), 0);
  const abort = new AbortController();
  const timer = setTimeout(() => {
    abort.abort(new Error(`${request.entry.contract.method} ${url.pathname}: no reply within ${timeoutMs} ms`));
  }, timeoutMs);
  try {
    const oversize = headBytes > NODE_MAX_HEADER_BYTES;
    const afterOversize = previousWasOversize;
    previousWasOversize = oversize;
    const send = () => fetch(url, { method: request.entry.contract.method, headers, body, signal: abort.signal });
    let response: Response;
    try {
      response = await send();
    } catch (error) {
      if (!closedWithoutReply(error)) throw error;
      if (oversize) return { status: 431, contentType: '', body: '', refusedByParser: true };
      if (!afterOversize) throw error;
      response = await send();
    }
    const type = response.headers.get('content-type') ?? '';
    // Node may also answer the 431 before it closes the connection (a bare status line, no body).
    if (oversize && response.status === 431) return { status: 431, contentType: type, body: await response.text(), refusedByParser: true };
    if (isStreamRoute(request.entry.contract) && response.status === 200) {
      abort.abort();
      return { status: 200, contentType: type, body: undefined };
    }
    const text = await response.text();
    return { status: response.status, contentType: type, body: type.includes('json') && text !== '' ? (JSON.parse(text) as unknown) : text };
  } finally {
    clearTimeout(timer);
  }
}

/** The reply schemas a route declares: its own, and for a bearer route the standard error replies. */
export function declaredReplies(entry: RouteTableEntry): Record<number, z.ZodType> {
  return entry.contract.auth === false ? entry.contract.response : { ...errorResponses, ...entry.contract.response };
}

/**
 * What is wrong with a reply, or undefined: a 5xx; a body that does not match the schema declared for its
 * status; an undeclared status whose body is not the mount's error shape (`{ error, message }` for the API,
 * OAuth's `{ error, error_description }` for the identity provider).
 */
export function replyProblem(entry: RouteTableEntry, reply: RouteReply): string | undefined {
  if (reply.status >= 500) return `status ${reply.status}: ${asText(reply.body).slice(0, 300)}`;
  if (reply.refusedByParser) return undefined;
  if (isStreamRoute(entry.contract) && reply.status === 200) {
    return reply.contentType.includes('text/event-stream') ? undefined : `stream answered ${reply.contentType}`;
  }
  if (reply.status === 204) return reply.body === '' ? undefined : 'a 204 with a body';
  const schema = declaredReplies(entry)[reply.status];
  if (schema) {
    const parsed = schema.safeParse(reply.body);
    return parsed.success ? undefined : `status ${reply.status} does not match its schema: ${parsed.error.message.slice(0, 300)}`;
  }
  const errorShape = entry.mount === 'identity' ? OAuthError : ApiError;
  if (reply.status >= 400 && errorShape.safeParse(reply.body).success) return undefined;
  return `undeclared status ${reply.status} with ${reply.contentType || 'no content type'}: ${asText(reply.body).slice(0, 200)}`;
}

/** The rows of a raw query; both drivers (node-postgres and PGlite) answer `{ rows }`. */
function rowsOf(result: unknown): Record<string, unknown>[] {
  if (!isRecord(result) || !Array.isArray(result.rows)) return [];
  return result.rows.filter(isRecord);
}

/**
 * What the notifications worker, the robot command dispatcher, the audit chainer, the webhook and mail workers write after the deciding transaction
 * committed: they mark outbox rows fanned out or sent and create and update deliveries on their own schedule,
 * so those columns and that table change between any two requests. The outbox rows themselves are compared.
 */
const WORKER_WRITTEN: Record<string, string | null> = {
  push_events: 'x.id, x.org_id, x.kind, x.dedupe_key, x.robot_id, x.job_id, x.action_id, x.facts, x.created_at',
  push_deliveries: null,
  // The robot command dispatcher (robot-link/outbox.ts) sends, resends, and marks acknowledged or given up.
  robot_commands: 'x.id, x.org_id, x.robot_id, x.job_id, x.seq, x.kind, x.body, x.created_at',
  // The audit chainer (audit/chain.ts) gives each entry its place in the chain after commit; the entries are compared.
  audit_entries: 'x.id, x.org_id, x.at, x.source, x.actor, x.actor_id, x.ip, x.request, x.entity, x.entity_id, x.operation, x.before, x.after',
  // The webhook worker (webhooks/) sends and retries; the events recorded for each webhook are compared.
  webhook_deliveries: 'x.id, x.org_id, x.webhook_id, x.event_type, x.dedupe_key, x.payload, x.test, x.created_at',
  // The mail worker (mail/) sends and retries, and blanks a mail's text once sent; the mails queued are compared.
  mail_outbox: 'x.id, x.org_id, x.to, x.subject, x.created_at',
};

/** Each database's checksum query, built once: its tables are those of the migrations, and stay. */
const checksumQueries = new WeakMap<Database, string>();
/** Each database's last checksums, with the write mark they were taken at (`tableChecksums`). */
const lastChecksums = new WeakMap<Database, { mark: string; sums: ReadonlyMap<string, string> }>();

/**
 * A mark that moves whenever a transaction that wrote has ended, committed or rolled back: the current snapshot's
 * xmax, the transaction id after the newest one finished. Only a transaction that writes gets an id; a read gets
 * none. On PostgreSQL it moves with every database of the server (other test files' too): a miss, never a stale hit.
 */
async function writeMark(database: Database): Promise<string> {
  const [row] = rowsOf(await database.db.execute(sql`SELECT pg_snapshot_xmax(pg_current_snapshot())::text AS mark`));
  return String(row?.mark);
}

/**
 * A checksum per table of the database, to prove that a refused request wrote nothing. A table is its row count
 * and the newest row version's transaction (`xmin`): any committed insert, update or delete changes one of the two,
 * even an update that leaves a row as it was, which a hash of the rows missed (checksums.test.ts). The tables the
 * workers write are compared by a hash of the columns they leave alone (WORKER_WRITTEN).
 *
 * While no transaction wrote since the last call (its write mark is the same), the last checksums stand and the
 * query over every table, most of a fuzzed request's time, is not run again. The mark is read before the tables,
 * so a write that ends between the two moves it past the one kept.
 */
export async function tableChecksums(database: Database): Promise<ReadonlyMap<string, string>> {
  const mark = await writeMark(database);
  const last = lastChecksums.get(database);
  if (last?.mark === mark) return last.sums;
  let query = checksumQueries.get(database);
  if (query === undefined) {
    query = await checksumQuery(database);
    checksumQueries.set(database, query);
  }
  const sums = query ? new Map(rowsOf(await database.db.execute(sql.raw(query))).map((row) => [String(row.name), String(row.sum)])) : new Map<string, string>();
  lastChecksums.set(database, { mark, sums });
  return sums;
}

async function checksumQuery(database: Database): Promise<string> {
  const tables = await database.db.execute(sql`SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename`);
  return rowsOf(tables)
    .map((row) => String(row.tablename))
    .filter((name) => WORKER_WRITTEN[name] !== null)
    .map((name) => {
      const columns = WORKER_WRITTEN[name];
      if (!columns) return `SELECT '${name}' AS name, count(*)::text || ':' || coalesce(max(x.xmin::text::bigint), 0)::text AS sum FROM "${name}" x`;
      const row = `ROW(${columns})::text`;
      return `SELECT '${name}' AS name, md5(coalesce(string_agg(${row}, '|' ORDER BY ${row}), '')) AS sum FROM "${name}" x`;
    })
    .join(' UNION ALL ');
}

/** Tables whose checksum differs. */
export const changedTables = (before: ReadonlyMap<string, string>, after: ReadonlyMap<string, string>, ignore: readonly string[] = []): string[] =>
  [...after.keys()].filter((name) => !ignore.includes(name) && before.get(name) !== after.get(name));
