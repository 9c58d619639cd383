/**
 * When an outbox's next row falls due without a NOTIFY: a pending row's retry, or the lapsed lease of a row a
 * process claimed and may have died sending (another process takes it then). The outbox workers set their alarm
 * to it (lib/outbox-worker.ts).
 */
import { and, inArray, sql, type SQL } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { Db } from '../db/client.ts';

export interface OutboxColumns {
  status: PgColumn;
  nextAttemptAt: PgColumn;
  leaseUntil: PgColumn;
}

/** `where` narrows the rows (a webhook's deliveries are due only while it is enabled). */
export async function nextOutboxDue(db: Db, table: PgTable, columns: OutboxColumns, where?: SQL): Promise<Date | undefined> {
  const [row] = await db
    .select({
      // The minimum of no rows is null; drivers give a timestamp as a Date or as its text.
      at: sql`min(CASE WHEN ${columns.status} = 'pending' THEN ${columns.nextAttemptAt} ELSE ${columns.leaseUntil} END)`.mapWith(
        (value: unknown): Date | null => (value instanceof Date ? value : typeof value === 'string' ? new Date(value) : null),
      ),
    })
    .from(table)
    .where(and(inArray(columns.status, ['pending', 'sending']), where));
  return row?.at ?? undefined;
}
