/**
 * The devices a push goes to: one per device token (a device subscribed on both topics is one device), of enabled
 * users of the organization who match a condition on `users` (who may see a robot, a delivery's people, the admins).
 */
import { and, asc, eq, sql, type SQL } from 'drizzle-orm';
import { RESTRICTED_ROLES } from '@uvd/contracts';
import type { Tx } from '../db/client.ts';
import { deviceSubscriptions, users } from '../db/schema.ts';

export interface Recipient {
  userId: string;
  token: string;
  language: string;
  timezone: string;
}

/** `users` with a restricted role: the organization's admins. */
export const restrictedRole = sql`${users.roles} && ARRAY[${sql.join(
  RESTRICTED_ROLES.map((role) => sql`${role}`),
  sql`, `,
)}]::text[]`;

/** The devices of `orgId`'s enabled users matching `who`, newest subscription per token. */
export function devicesOf(tx: Tx, orgId: string, who: SQL): Promise<Recipient[]> {
  return tx
    .selectDistinctOn([deviceSubscriptions.token], {
      userId: users.id,
      token: deviceSubscriptions.token,
      language: users.language,
      timezone: users.timezone,
    })
    .from(deviceSubscriptions)
    .innerJoin(users, and(eq(users.id, deviceSubscriptions.userId), eq(users.orgId, deviceSubscriptions.orgId)))
    .where(and(eq(deviceSubscriptions.orgId, orgId), eq(users.enabled, true), who))
    .orderBy(asc(deviceSubscriptions.token), sql`${deviceSubscriptions.createdAt} DESC`);
}
