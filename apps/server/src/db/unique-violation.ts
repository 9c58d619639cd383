/**
 * PostgreSQL's unique_violation (SQLSTATE 23505). Drizzle wraps driver errors, so the code may sit on a cause.
 * A pre-check inside the transaction gives the friendly 409; this catches two admins racing past it.
 */
export function isUniqueViolation(error: unknown): boolean {
  for (let current: unknown = error, depth = 0; current instanceof Error && depth < 5; depth++) {
    if ('code' in current && current.code === '23505') return true;
    current = current.cause;
  }
  return false;
}
