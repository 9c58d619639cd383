/**
 * The keys of PostgreSQL's advisory locks that the server takes, in one place so that no two uses share one by
 * accident (two did once: the demo seed's and the first signing key's). PGlite takes them too, in its one process.
 * Locks keyed by a hash of a name (`hashtextextended(...)`: a robot's commands, an idempotency key) are not listed.
 */
export const ADVISORY_LOCKS = {
  /** pg_advisory_lock: migrations, when several server processes start on one database at once. */
  migrations: 726_351_001,
  /** pg_advisory_xact_lock: the demo organizations' seed, once. */
  demoSeed: 726_351_002,
  /** pg_advisory_xact_lock: the identity provider's first signing key, made once. */
  firstSigningKey: 726_351_003,
  /** pg_try_advisory_xact_lock(class, hashtext(org)): the audit chainer of one organization (two-key form). */
  auditChainClass: 726_351_024,
} as const;
