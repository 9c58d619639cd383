/**
 * The hash chain of each organization's audit entries. The triggers only append (drizzle/handwritten/audit.sql);
 * the chainer, after commit and outside every business transaction, gives each new entry its place: `seq`, the
 * previous entry's hash, and its own hash. So the stop path and every other write never wait on the chain, and
 * entries committed out of id order are chained in the order they became visible.
 *
 * hash = sha256hex(prev_hash ?? '' + '\n' + canonical JSON of the entry's content), where the content is the
 * organization and every field of the API's entry except the two hashes, keys sorted at every depth.
 */
import { createHash } from 'node:crypto';
import { and, asc, eq, gt, isNotNull, isNull, sql } from 'drizzle-orm';
import type { AuditEntry, AuditVerification } from '@uvd/contracts';
import { ADVISORY_LOCKS } from '../db/advisory-locks.ts';
import type { Db, Executor, Notifier } from '../db/client.ts';
import { auditEntries } from '../db/schema.ts';
import { wakeable, type Wakeable } from '../lib/wakeable.ts';

type AuditRow = typeof auditEntries.$inferSelect;

/** JSON with keys sorted at every depth: the same value always gives the same text. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value instanceof Date) return JSON.stringify(value.toISOString());
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
  }
  // Parsed JSON holds nothing else than these; undefined (a missing array item) reads as null, as in JSON.stringify.
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return JSON.stringify(value);
  return 'null';
}

/** The entry as the API gives it (and the export writes it). */
export function toAuditEntry(row: AuditRow): AuditEntry {
  return {
    seq: row.seq,
    at: row.at.toISOString(),
    source: row.source,
    actor: row.actor,
    actor_id: row.actorId,
    ip: row.ip,
    request: row.request,
    entity: row.entity,
    entity_id: row.entityId,
    operation: row.operation,
    before: row.before,
    after: row.after,
    hash: row.hash,
    prev_hash: row.prevHash,
  };
}

/**
 * The hash of an entry at `seq` after `prevHash`. Exported entries verify offline with the same recipe: the
 * entry's fields without `hash` and `prev_hash`, plus `org_id`, in canonical JSON.
 */
export function entryHash(orgId: string, entry: Omit<AuditEntry, 'hash' | 'prev_hash'> & Partial<AuditEntry>, prevHash: string | null): string {
  const { hash: _hash, prev_hash: _prevHash, ...fields } = entry;
  const content = canonicalJson({ ...fields, org_id: orgId });
  return createHash('sha256')
    .update(`${prevHash ?? ''}\n${content}`)
    .digest('hex');
}

const BATCH = 500;

const rowsOf = (result: unknown): Record<string, unknown>[] =>
  typeof result === 'object' && result !== null && 'rows' in result && Array.isArray(result.rows) ? (result.rows as Record<string, unknown>[]) : [];

/**
 * How a caller meets another process chaining the same organization: the chainer `skip`s it (that process does the
 * work); a reader `wait`s for its commit, so that what it then reads carries every place and hash.
 */
export type ChainContention = 'skip' | 'wait';

/**
 * Chains up to one batch of an organization's unchained entries. Returns how many it chained, or undefined when
 * another process holds the organization's chain and `contention` is `skip`.
 */
async function chainBatch(db: Db, orgId: string, contention: ChainContention): Promise<number | undefined> {
  return db.transaction(async (tx) => {
    const key = sql`${ADVISORY_LOCKS.auditChainClass}, hashtext(${orgId})`;
    if (contention === 'wait') await tx.execute(sql`SELECT pg_advisory_xact_lock(${key})`);
    else {
      const [lock] = rowsOf(await tx.execute(sql`SELECT pg_try_advisory_xact_lock(${key}) AS locked`));
      if (lock?.locked !== true) return undefined;
    }
    const [head] = await tx
      .select({ seq: auditEntries.seq, hash: auditEntries.hash })
      .from(auditEntries)
      .where(and(eq(auditEntries.orgId, orgId), isNotNull(auditEntries.hash)))
      .orderBy(sql`${auditEntries.seq} DESC`)
      .limit(1);
    const pending = await tx
      .select()
      .from(auditEntries)
      .where(and(eq(auditEntries.orgId, orgId), isNull(auditEntries.hash)))
      .orderBy(asc(auditEntries.id))
      .limit(BATCH);
    let seq = head?.seq ?? 0;
    let prevHash = head?.hash ?? null;
    const links = pending.map((row) => {
      seq += 1;
      const hash = entryHash(orgId, toAuditEntry({ ...row, seq }), prevHash);
      const link = sql`(${row.id}::bigint, ${seq}::bigint, ${prevHash}::text, ${hash}::text)`;
      prevHash = hash;
      return link;
    });
    if (links.length === 0) return 0;
    await tx.execute(sql`
      UPDATE audit_entries SET seq = link.seq, prev_hash = link.prev_hash, hash = link.hash
      FROM (VALUES ${sql.join(links, sql`, `)}) AS link(id, seq, prev_hash, hash)
      WHERE audit_entries.id = link.id`);
    return links.length;
  });
}

/**
 * Chains every unchained entry of `orgId` (or of every organization). A reader (`wait`, the default) returns once
 * everything recorded before the call is chained, by this process or another; the chainer (`skip`) leaves an
 * organization another process is chaining to it.
 */
export async function chainPending(db: Db, orgId?: string, contention: ChainContention = 'wait'): Promise<number> {
  const orgs =
    orgId !== undefined
      ? [orgId]
      : (await db.selectDistinct({ orgId: auditEntries.orgId }).from(auditEntries).where(isNull(auditEntries.hash))).map((row) => row.orgId);
  let chained = 0;
  for (const org of orgs) {
    for (;;) {
      const count = await chainBatch(db, org, contention);
      if (count === undefined || count === 0) break;
      chained += count;
      if (count < BATCH) break;
    }
  }
  return chained;
}

/**
 * Checks an organization's whole chain, oldest first: each entry's place follows the previous one (`gap`: one was
 * removed before it), its `prev_hash` is the previous entry's hash (`link_broken`: the previous one was changed
 * and its hash recomputed, or removed with its successor's place rewritten), and its hash is that of its own
 * content (`hash_mismatch`: it was changed). A removed last entry leaves no trace in the chain itself: compare the
 * head (`checked` and the last hash) with one kept elsewhere, e.g. the last export.
 */
export async function verifyChain(executor: Executor, orgId: string): Promise<AuditVerification> {
  let checked = 0;
  let expectedSeq = 1;
  let prevHash: string | null = null;
  let after = 0;
  for (;;) {
    const rows = await executor
      .select()
      .from(auditEntries)
      .where(and(eq(auditEntries.orgId, orgId), isNotNull(auditEntries.seq), gt(auditEntries.seq, after)))
      .orderBy(asc(auditEntries.seq))
      .limit(1000);
    for (const row of rows) {
      const seq = row.seq ?? 0;
      const broken = (reason: AuditVerification['reason']): AuditVerification => ({ ok: false, checked, broken_at: seq, reason });
      if (seq !== expectedSeq) return broken('gap');
      if (row.prevHash !== prevHash) return broken('link_broken');
      if (row.hash !== entryHash(orgId, toAuditEntry(row), row.prevHash)) return broken('hash_mismatch');
      checked += 1;
      expectedSeq += 1;
      prevHash = row.hash;
      after = seq;
    }
    if (rows.length < 1000) return { ok: true, checked, broken_at: null, reason: null };
  }
}

export const AUDIT_CHANNEL = 'uvd_audit';

export interface AuditChainer {
  /** Settles once everything recorded before the call is chained (by this process or another). */
  flush(orgId?: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * The chainer of this process: woken by the triggers' NOTIFY at commit, whose payload names the organization, and by
 * a poll that looks at every organization (a notification missed while the listening connection was down, or taken
 * by another process that then stopped). Several processes may run one; the per-organization lock lets one of them
 * chain an organization at a time.
 *
 * A notification chains its organization `delayMs` later, with whatever else committed meanwhile: a round costs six
 * statements however many entries it chains, and an API test's writes came a few milliseconds apart, each with a
 * round of its own (two thirds of the statements of jobs.test.ts). Nothing reads the chain without chaining the
 * organization it reads first (routes.ts, verify.ts), so the delay is never seen.
 */
export async function startAuditChainer(
  db: Db,
  notifier: Notifier,
  options: { pollMs: number; delayMs: number; onError: (error: unknown) => void },
): Promise<AuditChainer> {
  /** Organizations notified since the last round began; `everyOrganization` for the first round and the polls. */
  const notified = new Set<string>();
  let everyOrganization = true;
  const worker: Wakeable = wakeable(async (self) => {
    do {
      const orgs = everyOrganization ? undefined : [...notified];
      everyOrganization = false;
      notified.clear();
      if (orgs === undefined) await chainPending(db, undefined, 'skip');
      else for (const org of orgs) await chainPending(db, org, 'skip');
    } while (self.again() && !self.closed);
  }, options.onError);
  const wakeForAll = () => {
    everyOrganization = true;
    worker.wake();
  };
  let delayed: NodeJS.Timeout | undefined;
  const unlisten = await notifier.listen(
    AUDIT_CHANNEL,
    (orgId) => {
      if (orgId === '') everyOrganization = true;
      else notified.add(orgId);
      delayed ??= setTimeout(() => {
        delayed = undefined;
        worker.wake();
      }, options.delayMs);
    },
    { onRestored: wakeForAll },
  );
  const poll = setInterval(wakeForAll, options.pollMs);
  poll.unref();
  worker.wake();
  return {
    flush: async (orgId) => {
      await worker.idle();
      await chainPending(db, orgId);
    },
    close: async () => {
      clearInterval(poll);
      clearTimeout(delayed);
      await unlisten();
      await worker.close();
    },
  };
}
