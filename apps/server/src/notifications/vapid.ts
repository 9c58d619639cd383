/**
 * The server's VAPID key pair (RFC 8292): from configuration when given, otherwise made once and kept in the
 * database, so every process and every restart signs with the same key and browsers' subscriptions stay valid.
 */
import { eq } from 'drizzle-orm';
import webpush from 'web-push';
import type { Db } from '../db/client.ts';
import { pushKeys } from '../db/schema.ts';
import type { VapidKeys } from './web-push-sender.ts';

const VAPID_ROW = 'vapid';

export async function loadVapidKeys(db: Db, configured: VapidKeys | undefined): Promise<VapidKeys> {
  if (configured) return configured;
  const read = async () => (await db.select().from(pushKeys).where(eq(pushKeys.id, VAPID_ROW)))[0];
  const existing = await read();
  if (existing) return { publicKey: existing.publicKey, privateKey: existing.privateKey };
  const made = webpush.generateVAPIDKeys();
  // Two processes starting at once: the first insert wins and both read the winner.
  await db.insert(pushKeys).values({ id: VAPID_ROW, ...made }).onConflictDoNothing();
  const stored = await read();
  if (!stored) throw new Error('VAPID keys were not stored');
  return { publicKey: stored.publicKey, privateKey: stored.privateKey };
}
