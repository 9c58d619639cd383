/**
 * Fan-out: a due push event becomes one delivery per device that may receive it, in one transaction, so every
 * device gets it once however many processes run this (rows are claimed with SKIP LOCKED).
 *
 * Who receives (behaviour §7 topics, behaviour §6 visibility): devices subscribed on their user's topic or their
 * organization's, of enabled users of the event's organization who may see its robot: the restricted roles, or a
 * member of a group that holds the robot. An escalation goes to the restricted roles only. A device subscribed
 * on both topics is one device. Texts follow each recipient's language and timezone.
 */
import { and, asc, eq, exists, isNull, lte, sql } from 'drizzle-orm';
import { ActionButtonText, PushEventKind, type PushMessage } from '@uvd/contracts';
import type { Db, Tx } from '../db/client.ts';
import { actions, jobs, pushDeliveries, pushEvents, robotGroups, robots, rooms, userGroups, users } from '../db/schema.ts';
import { devicesOf, restrictedRole, type Recipient } from './devices.ts';
import { deliveryMessageFor, deliveryPushStale, deliveryRecipientsOf, deliverySubjectOf, isDeliveryPushKind } from './delivery-pushes.ts';
import { accountMessageFor } from './account-pushes.ts';
import { languageOf, pushTexts, type PushFacts, type RobotPushKind } from './messages.ts';
import { PUSH_CHANNEL, PushEventFacts } from './outbox.ts';

/** The console's app icon (the web build's PWA icon), shown by the browser beside the text. */
export const PUSH_ICON = '/icons/icon-192.png';

type PushEventRow = typeof pushEvents.$inferSelect;

async function recipientsOf(tx: Tx, event: PushEventRow & { robotId: string }): Promise<Recipient[]> {
  const seesRobot = exists(
    tx
      .select({ one: sql`1` })
      .from(userGroups)
      .innerJoin(robotGroups, eq(robotGroups.groupId, userGroups.groupId))
      .where(and(eq(userGroups.userId, users.id), eq(robotGroups.robotId, event.robotId))),
  );
  const mayReceive = event.kind === 'prompt_escalation' ? restrictedRole : sql`(${restrictedRole} OR ${seesRobot})`;
  return devicesOf(tx, event.orgId, mayReceive);
}

interface Subject {
  robotName: string;
  jobName: string | null;
  roomName: string | null;
  /** For prompts: whether the robot still asks and nobody answered. */
  open: boolean;
}

async function subjectOf(tx: Tx, event: PushEventRow & { robotId: string }, facts: PushEventFacts): Promise<Subject | undefined> {
  const [robot] = await tx.select({ name: robots.name }).from(robots).where(eq(robots.id, event.robotId));
  if (!robot) return undefined; // the robot was removed since: nothing to tell
  let jobName = facts.jobName;
  if (jobName === null && event.jobId) {
    const [job] = await tx.select({ name: jobs.name }).from(jobs).where(eq(jobs.id, event.jobId));
    jobName = job?.name ?? null;
  }
  if (!event.actionId) return { robotName: robot.name, jobName, roomName: null, open: false };
  const [action] = await tx
    .select({ resolvedAt: actions.resolvedAt, disabled: actions.disabled, roomName: rooms.name })
    .from(actions)
    .leftJoin(rooms, eq(rooms.id, actions.roomId))
    .where(eq(actions.id, event.actionId));
  return {
    robotName: robot.name,
    jobName,
    roomName: action?.roomName ?? null,
    open: action !== undefined && action.resolvedAt === null && !action.disabled,
  };
}

function messageFor(
  event: PushEventRow & { robotId: string },
  kind: RobotPushKind,
  facts: PushEventFacts,
  subject: Subject,
  recipient: Recipient,
  escalationMs: number,
): PushMessage {
  const pushFacts: PushFacts = {
    kind,
    robotName: subject.robotName,
    jobName: subject.jobName,
    completionStatus: facts.completionStatus,
    button: facts.button ? ActionButtonText.catch('wait').parse(facts.button) : null,
    roomName: subject.roomName,
    battery: facts.battery,
    reason: facts.reason,
    occurredAt: new Date(facts.occurredAt),
    escalationMinutes: Math.max(1, Math.round(escalationMs / 60_000)),
  };
  const language = languageOf(recipient.language);
  const texts = pushTexts(pushFacts, language, recipient.timezone);
  const isPrompt = (kind === 'prompt' || kind === 'prompt_escalation') && event.actionId !== null;
  // Behaviour §3: a job push is about its job (opens /job/{id}); a battery push about its robot (its place on the map).
  const jobId = kind === 'battery_low' ? null : event.jobId;
  return {
    title: texts.title,
    body: texts.body,
    icon: PUSH_ICON,
    type: kind === 'battery_low' ? 'battery' : 'job',
    related_id: jobId ?? event.robotId,
    kind,
    push_id: event.id,
    url: jobId ? `/job/${jobId}` : `/map?robot=${event.robotId}`,
    realm: event.orgId,
    ...(isPrompt && event.actionId
      ? { action_id: event.actionId, choices: ['confirm', 'skip'] as const, choice_labels: texts.choiceLabels }
      : {}),
    sent_at: new Date().toISOString(),
  };
}

type NewDelivery = typeof pushDeliveries.$inferInsert;

/** One push per device that may receive `event`; none when it is stale (answered, withdrawn, ended, removed). */
async function deliveriesOf(tx: Tx, event: PushEventRow, escalationMs: number): Promise<NewDelivery[]> {
  const facts = PushEventFacts.parse(event.facts);
  const row = (recipient: { userId: string; token: string }, message: PushMessage): NewDelivery => ({
    pushEventId: event.id,
    orgId: event.orgId,
    userId: recipient.userId,
    token: recipient.token,
    message,
  });
  // Only outbox.ts and delivery-pushes.ts write the column, from the contracts' kinds.
  const kind = PushEventKind.parse(event.kind);
  const { deliveryId, robotId } = event;
  if (kind === 'password_reset_requested') {
    const userId = facts.userId;
    if (userId === null) return [];
    return (await devicesOf(tx, event.orgId, restrictedRole)).map((recipient) =>
      row(recipient, accountMessageFor(event, userId, facts.userName ?? '', recipient, PUSH_ICON)),
    );
  }
  if (isDeliveryPushKind(kind)) {
    if (deliveryId === null) return [];
    const subject = await deliverySubjectOf(tx, deliveryId);
    if (!subject || deliveryPushStale(kind, subject)) return [];
    return (await deliveryRecipientsOf(tx, event)).map((recipient) =>
      row(recipient, deliveryMessageFor({ ...event, deliveryId }, kind, facts, subject, recipient, PUSH_ICON)),
    );
  }
  if (robotId === null) return [];
  const robotEvent = { ...event, robotId };
  const subject = await subjectOf(tx, robotEvent, facts);
  if (subject === undefined || (event.actionId !== null && !subject.open)) return [];
  return (await recipientsOf(tx, robotEvent)).map((recipient) => row(recipient, messageFor(robotEvent, kind, facts, subject, recipient, escalationMs)));
}

/**
 * Fans out up to `limit` due events; returns how many it handled (0: nothing due). A prompt answered before its
 * turn (or its escalation's) is dropped without deliveries.
 */
export async function fanOutDue(db: Db, escalationMs: number, limit = 20): Promise<number> {
  return db.transaction(async (tx) => {
    const due = await tx
      .select()
      .from(pushEvents)
      .where(and(isNull(pushEvents.fannedOutAt), lte(pushEvents.dueAt, sql`now()`)))
      .orderBy(asc(pushEvents.dueAt))
      .limit(limit)
      .for('update', { skipLocked: true });
    let deliveries = 0;
    for (const event of due) {
      const rows = await deliveriesOf(tx, event, escalationMs);
      if (rows.length > 0) {
        await tx.insert(pushDeliveries).values(rows).onConflictDoNothing({ target: [pushDeliveries.pushEventId, pushDeliveries.token] });
        deliveries += rows.length;
      }
      await tx.update(pushEvents).set({ fannedOutAt: new Date() }).where(eq(pushEvents.id, event.id));
    }
    if (deliveries > 0) await tx.execute(sql`SELECT pg_notify(${PUSH_CHANNEL}, '')`);
    return due.length;
  });
}

/** When the next push event falls due (an escalation), if any. */
export async function nextFanOut(db: Db): Promise<Date | undefined> {
  const [row] = await db
    .select({ at: pushEvents.dueAt })
    .from(pushEvents)
    .where(isNull(pushEvents.fannedOutAt))
    .orderBy(asc(pushEvents.dueAt))
    .limit(1);
  return row?.at;
}
