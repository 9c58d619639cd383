/** Verifying the chains of one or every organization, as `npm run audit:verify` reports it. */
import { and, count, eq, isNull } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import { auditEntries } from '../db/schema.ts';
import { verifyChain } from './chain.ts';

export interface ChainReport {
  ok: boolean;
  /** One line per organization: how many entries hold, or where and why the chain breaks. */
  lines: string[];
}

const REASONS = {
  hash_mismatch: 'its content does not match its hash (the entry was changed)',
  link_broken: "its prev_hash is not the previous entry's hash (the previous entry was changed or removed)",
  gap: 'an entry before it is missing (removed)',
} as const;

export async function verifyOrganizations(db: Db, orgId?: string): Promise<ChainReport> {
  const orgs =
    orgId !== undefined
      ? [orgId]
      : (await db.selectDistinct({ orgId: auditEntries.orgId }).from(auditEntries).orderBy(auditEntries.orgId)).map((row) => row.orgId);
  const lines: string[] = [];
  let ok = true;
  for (const org of orgs) {
    const result = await verifyChain(db, org);
    const [pending] = await db
      .select({ n: count() })
      .from(auditEntries)
      .where(and(eq(auditEntries.orgId, org), isNull(auditEntries.hash)));
    const unchained = pending && pending.n > 0 ? ` (${pending.n} newer not chained yet: the server chains them)` : '';
    if (result.ok) lines.push(`${org}: ok, ${result.checked} entries${unchained}`);
    else {
      ok = false;
      const reason = result.reason ? REASONS[result.reason] : 'broken';
      lines.push(`${org}: BROKEN at entry ${result.broken_at ?? '?'}: ${reason}; ${result.checked} entries before it hold`);
    }
  }
  if (orgs.length === 0) lines.push('no audit entries');
  return { ok, lines };
}
