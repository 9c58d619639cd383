import { and, eq, sql } from 'drizzle-orm';
import type { Executor } from '../db/client.ts';
import { deviceSubscriptions } from '../db/schema.ts';

export interface Subscription {
  orgId: string;
  userId: string;
  token: string;
  topic: string;
}

/** A device token handed to another user (shared ward phone) moves its subscription to them. */
export async function upsertSubscription(db: Executor, subscription: Subscription): Promise<void> {
  await db
    .insert(deviceSubscriptions)
    .values(subscription)
    .onConflictDoUpdate({
      target: [deviceSubscriptions.token, deviceSubscriptions.topic],
      set: { orgId: subscription.orgId, userId: subscription.userId, createdAt: sql`now()` },
    });
}

export async function deleteSubscription(db: Executor, subscription: Subscription): Promise<void> {
  await db
    .delete(deviceSubscriptions)
    .where(
      and(
        eq(deviceSubscriptions.orgId, subscription.orgId),
        eq(deviceSubscriptions.userId, subscription.userId),
        eq(deviceSubscriptions.token, subscription.token),
        eq(deviceSubscriptions.topic, subscription.topic),
      ),
    );
}

export async function deleteDevice(db: Executor, orgId: string, userId: string, token: string): Promise<void> {
  await db
    .delete(deviceSubscriptions)
    .where(
      and(
        eq(deviceSubscriptions.orgId, orgId),
        eq(deviceSubscriptions.userId, userId),
        eq(deviceSubscriptions.token, token),
      ),
    );
}
