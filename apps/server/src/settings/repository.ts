import { and, eq } from 'drizzle-orm';
import type { UserSettings } from '@uvd/contracts';
import type { Executor } from '../db/client.ts';
import { users } from '../db/schema.ts';

/** Saves the settings on the user's row; false when the user has no row in this organization. */
export async function saveUserSettings(
  db: Executor,
  orgId: string,
  userId: string,
  settings: UserSettings,
): Promise<boolean> {
  const rows = await db
    .update(users)
    .set({ language: settings.language, timezone: settings.timezone })
    .where(and(eq(users.orgId, orgId), eq(users.id, userId)))
    .returning({ id: users.id });
  return rows.length > 0;
}
