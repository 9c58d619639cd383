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
  /**
   * (class, hashtext(org)): one organization's audit chain, extended by one process at a time (two-key form): the
   * chainer tries it (pg_try_advisory_xact_lock), a reader of the trail waits for it (pg_advisory_xact_lock).
   */
  auditChainClass: 726_351_024,
} as const;
