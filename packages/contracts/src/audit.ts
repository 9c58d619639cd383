/**
 * Contracts of the audit trail: an append-only, hash-chained record of every state-changing call and robot
 * command of an organization (who, when, from where, what before and after). Admins search and export it; the
 * chain's verification says whether an entry was changed or removed.
 */
import { z } from 'zod';
import { DateOrDateTime, Id, Text, Timestamp, pagination } from './common.ts';
import { FROM_AFTER_TO, fromNotAfterTo } from './jobs.ts';
import { RESTRICTED_ROLES } from './roles.ts';
import { defineRoute } from './route.ts';

/** Who made a change: a person through the API, a robot (its reports), or the server itself (scheduler, dispatcher). */
export const AuditSource = z.enum(['api', 'robot', 'system']);
export type AuditSource = z.infer<typeof AuditSource>;

export const AuditOperation = z.enum(['insert', 'update', 'delete']);
export type AuditOperation = z.infer<typeof AuditOperation>;

export const AuditEntry = z.object({
  /** Position in the organization's chain, from 1; null while not yet chained, like `hash`. */
  seq: z.number().int().min(1).nullable(),
  at: Timestamp,
  source: AuditSource,
  /** The user's username, or null for a robot or the server. */
  actor: z.string().nullable(),
  actor_id: Id.nullable(),
  /** The caller's address as the server saw it (behind a trusted proxy, the forwarded one). */
  ip: z.string().nullable(),
  /** The call, e.g. `POST /api/jobs/jobs/:robotId`; null outside a call. */
  request: z.string().nullable(),
  /** What changed: a table of the product's vocabulary (job, job_room, room, user, group, robot, robot_command, …). */
  entity: z.string(),
  entity_id: z.string().nullable(),
  operation: AuditOperation,
  before: z.record(z.string(), z.unknown()).nullable(),
  after: z.record(z.string(), z.unknown()).nullable(),
  /** sha256 hex of the previous entry's hash and this entry's content; null while not yet chained (milliseconds). */
  hash: z.string().nullable(),
  prev_hash: z.string().nullable(),
});
export type AuditEntry = z.infer<typeof AuditEntry>;

const auditFilterShape = {
  /** Free text: matches actor, entity, entity id, request and the before/after values. */
  q: Text().max(200).optional(),
  actor: Text().max(200).optional(),
  entity: Text().max(100).optional(),
  from_date: DateOrDateTime.optional(),
  to_date: DateOrDateTime.optional(),
};

/** Filters of the trail's search; a bare date is a day in the caller's timezone, as in the jobs and logs lists. */
export const AuditListQuery = z
  .object({ ...pagination(50), ...auditFilterShape })
  .refine(fromNotAfterTo, { message: FROM_AFTER_TO, path: ['from_date'] });
export type AuditListQuery = z.input<typeof AuditListQuery>;

export const AuditList = z.object({ count: z.number().int().min(0), payload: z.array(AuditEntry) });
export type AuditList = z.infer<typeof AuditList>;

export const AuditVerification = z.object({
  ok: z.boolean(),
  /** Entries checked (the whole chain of the organization). */
  checked: z.number().int().min(0),
  /** The first entry that does not hold (edited, or following a removed one); null when the chain holds. */
  broken_at: z.number().int().nullable(),
  reason: z.enum(['hash_mismatch', 'link_broken', 'gap']).nullable(),
});
export type AuditVerification = z.infer<typeof AuditVerification>;

export const listAudit = defineRoute({
  method: 'GET',
  path: '/audit',
  summary: "Search the organization's audit trail, newest first",
  tags: ['audit'],
  querystring: AuditListQuery,
  response: { 200: AuditList },
  roles: RESTRICTED_ROLES,
});

export const exportAudit = defineRoute({
  method: 'GET',
  path: '/audit/export',
  summary: 'The audit entries matching the filters as NDJSON, oldest first, with their hashes (verifiable offline)',
  tags: ['audit'],
  querystring: z.object(auditFilterShape).refine(fromNotAfterTo, { message: FROM_AFTER_TO, path: ['from_date'] }),
  produces: 'application/x-ndjson',
  response: { 200: z.string().describe('NDJSON') },
  roles: RESTRICTED_ROLES,
});

export const verifyAudit = defineRoute({
  method: 'GET',
  path: '/audit/verify',
  summary: "Verify the organization's audit chain: whether any entry was changed or removed",
  tags: ['audit'],
  response: { 200: AuditVerification },
  roles: RESTRICTED_ROLES,
});
