/**
 * Who is changing things, for the audit triggers: set while a state-changing request is handled (audit/plugin.ts),
 * or by a path that acts for a robot, and handed to the database as the transaction-local setting `uvd.audit`
 * by db/client.ts at the start of every transaction (and around a lone write) opened meanwhile.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { AuditSource } from '@uvd/contracts';

export interface AuditActor {
  source: AuditSource;
  actor?: string | null;
  actor_id?: string | null;
  ip?: string | null;
  /** `METHOD /api/route/:pattern` */
  request?: string | null;
}

const storage = new AsyncLocalStorage<string>();

/** Runs `work` with `actor` as the author of every audited change it makes. */
export const withAuditActor = <T>(actor: AuditActor, work: () => T): T => storage.run(JSON.stringify(actor), work);

/**
 * Runs `work` outside any author: for background work started from a request (a timer, a worker's first round)
 * that must not be recorded as that request's.
 */
export const withoutAuditActor = <T>(work: () => T): T => storage.exit(work);

/** The current author as the JSON the triggers read, or undefined (the change is then the server's own). */
export const auditSetting = (): string | undefined => storage.getStore();

/** The statement that hands the author to the triggers; `$1` is `auditSetting()`. */
export const SET_AUDIT_SQL = "SELECT set_config('uvd.audit', $1, true)";

/**
 * Whether a statement may change rows (and so fire an audit trigger). A lone write is wrapped in a transaction of
 * its own to carry the author; a read is not, so that reads cost nothing more.
 */
export const mayWrite = (text: string): boolean => /^\s*(insert|update|delete|with|merge)\b/i.test(text);
