/**
 * The push outbox: the events that should reach people become `push_events` rows in the very transaction that
 * records them (the bus's record hook), so a push exists exactly when its event commits and survives any crash
 * after that. Workers fan them out to devices (fan-out.ts) and send them (delivery.ts).
 */
import { sql } from 'drizzle-orm';
import { z } from 'zod';
import {
  ActionChange,
  DELIVERY_HANDOFF_LOCKED_EVENT,
  DeliveryHandoffLocked,
  DeliveryStatus,
  NotStartedReason,
  STOP_UNCONFIRMED_EVENT,
  StopAlert,
  type PushEventKind,
} from '@uvd/contracts';
import type { Executor } from '../db/client.ts';
import { pushEvents, type DeliveryPushAudience } from '../db/schema.ts';
import type { LiveEvent, RecordHook } from '../live/bus.ts';

/** Workers LISTEN here: a NOTIFY at commit wakes them at once instead of at their next poll. */
export const PUSH_CHANNEL = 'uvd_push';

const JobEvent = z.object({
  job_id: z.uuid(),
  robot_id: z.uuid(),
  name: z.string(),
  completion_status: z.string().nullable(),
  reason: NotStartedReason.nullable().optional(),
});
/** A due job its robot could not take (robot-link/scheduler.ts): one push per job and reason. */
const JobNotStarted = z.object({ job_id: z.uuid(), robot_id: z.uuid(), name: z.string(), reason: NotStartedReason });
const BatteryLow = z.object({ robot_id: z.uuid(), battery: z.number() });

/** What the fan-out needs besides the rows it reads then (names may change; these are as they were). */
export const PushEventFacts = z.object({
  jobName: z.string().nullable(),
  completionStatus: z.string().nullable(),
  button: z.string().nullable(),
  battery: z.number().nullable(),
  /** Why a job did not start, or why it ended so (absent from rows written before it). */
  reason: NotStartedReason.nullable().default(null),
  /** A requested delivery's hand-off PIN, for its recipient (delivery-pushes.ts). */
  pin: z.string().nullable().default(null),
  /** A delivery's escalation because it is past `deliver_by` (else it waited too long). */
  late: z.boolean().default(false),
  /** Who asked for a password reset link (recovery/routes.ts), for the admins' push. */
  userId: z.uuid().nullable().default(null),
  userName: z.string().nullable().default(null),
  occurredAt: z.iso.datetime({ offset: true }),
});
export type PushEventFacts = z.infer<typeof PushEventFacts>;

interface Candidate {
  kind: PushEventKind;
  dedupeKey: string;
  robotId: string | null;
  jobId: string | null;
  actionId: string | null;
  deliveryId?: string;
  audience?: DeliveryPushAudience;
  facts: PushEventFacts;
}

/** A push event's facts when it has none of them: each event names only its own. */
export const noFacts: Omit<PushEventFacts, 'occurredAt'> = { jobName: null, completionStatus: null, button: null, battery: null, reason: null, pin: null, late: false, userId: null, userName: null };

/** A delivery_change's delivery: what decides its push (Blocked, Delivered). */
const DeliveryChangePayload = z.object({
  delivery_id: z.uuid(),
  status: z.number(),
  robot_id: z.uuid().nullable(),
  reason: z.string().nullable(),
  dispatch_attempts: z.number(),
});

/** The push a delivery's event calls for: a locked hand-off, a Blocked or a Delivered delivery. */
function deliveryCandidate(event: LiveEvent, occurredAt: string): Candidate | undefined {
  const facts = { ...noFacts, occurredAt };
  if (event.type === DELIVERY_HANDOFF_LOCKED_EVENT) {
    const locked = DeliveryHandoffLocked.safeParse(event.payload).data;
    if (!locked) return undefined;
    const { delivery_id: deliveryId, robot_id: robotId } = locked;
    return { kind: 'delivery_handoff_locked', dedupeKey: `delivery_handoff_locked:${deliveryId}`, robotId, jobId: null, actionId: null, deliveryId, audience: 'sender_and_admins', facts };
  }
  if (event.type !== 'delivery_change') return undefined;
  const delivery = DeliveryChangePayload.safeParse(event.payload).data;
  if (!delivery) return undefined;
  const { delivery_id: deliveryId, robot_id: robotId } = delivery;
  if (delivery.status === DeliveryStatus.blocked)
    // Once per block: another change while it stays Blocked for the same reason and robot is not news.
    return {
      kind: 'delivery_blocked',
      dedupeKey: `delivery_blocked:${deliveryId}:${delivery.dispatch_attempts}:${delivery.reason ?? ''}`,
      robotId,
      jobId: null,
      actionId: null,
      deliveryId,
      audience: 'sender_and_admins',
      facts,
    };
  if (delivery.status === DeliveryStatus.delivered)
    return { kind: 'delivery_delivered', dedupeKey: `delivery_delivered:${deliveryId}`, robotId, jobId: null, actionId: null, deliveryId, audience: 'sender', facts };
  return undefined;
}

/** The push an event calls for, if any. */
export function candidateOf(event: LiveEvent, at: Date): Candidate | undefined {
  const occurredAt = at.toISOString();
  if (event.stream === 'jobs' && (event.type === 'job_started' || event.type === 'job_finished' || event.type === 'job_failed')) {
    const job = JobEvent.safeParse(event.payload).data;
    if (!job) return undefined;
    return {
      kind: event.type,
      dedupeKey: `${event.type}:${job.job_id}`,
      robotId: job.robot_id,
      jobId: job.job_id,
      actionId: null,
      facts: { ...noFacts, jobName: job.name, completionStatus: job.completion_status, reason: job.reason ?? null, occurredAt },
    };
  }
  if (event.stream === 'jobs' && event.type === 'job_not_started') {
    const job = JobNotStarted.safeParse(event.payload).data;
    if (!job) return undefined;
    return {
      kind: 'job_not_started',
      dedupeKey: `job_not_started:${job.job_id}:${job.reason}`,
      robotId: job.robot_id,
      jobId: job.job_id,
      actionId: null,
      facts: { ...noFacts, jobName: job.name, reason: job.reason, occurredAt },
    };
  }
  if (event.stream === 'actions' && event.type === 'action_change') {
    const action = ActionChange.safeParse(event.payload).data;
    // A new question: not answered, not withdrawn by the robot.
    if (!action || action.resolved || action.button.disabled) return undefined;
    return {
      kind: 'prompt',
      dedupeKey: `prompt:${action.action_id}`,
      robotId: action.robot_id,
      jobId: action.job_id,
      actionId: action.action_id,
      facts: { ...noFacts, button: action.button.text, occurredAt },
    };
  }
  if (event.stream === 'deliveries') return deliveryCandidate(event, occurredAt);
  if (event.stream === 'robots' && event.type === 'battery_low') {
    const battery = BatteryLow.safeParse(event.payload).data;
    if (!battery) return undefined;
    return {
      kind: 'battery_low',
      // The job runner publishes battery_low once per crossing below the threshold; each crossing is its own push.
      dedupeKey: `battery_low:${event.id}`,
      robotId: battery.robot_id,
      jobId: null,
      actionId: null,
      facts: { ...noFacts, battery: Math.round(battery.battery), occurredAt },
    };
  }
  if (event.stream === 'robots' && event.type === STOP_UNCONFIRMED_EVENT) {
    const alert = StopAlert.safeParse(event.payload).data;
    if (!alert) return undefined;
    return {
      kind: 'stop_unconfirmed',
      dedupeKey: `stop_unconfirmed:${alert.command_id}`,
      robotId: alert.robot_id,
      jobId: alert.job_id,
      actionId: null,
      facts: { ...noFacts, occurredAt: alert.issued_at },
    };
  }
  return undefined;
}

export interface OutboxOptions {
  /** A prompt still unanswered this long after it was asked is pushed to the organization's admins. */
  escalationMs: number;
}

async function insertPushEvent(executor: Executor, orgId: string, candidate: Candidate, dueAt: Date): Promise<void> {
  await executor
    .insert(pushEvents)
    .values({ orgId, ...candidate, dueAt })
    .onConflictDoNothing({ target: [pushEvents.orgId, pushEvents.dedupeKey] });
}

export function pushOutbox(options: OutboxOptions): RecordHook {
  return async (event, executor) => {
    const now = new Date();
    const candidate = candidateOf(event, now);
    if (!candidate) return;
    await insertPushEvent(executor, event.orgId, candidate, now);
    if (candidate.kind === 'prompt' && candidate.actionId !== null) {
      const escalation = { ...candidate, kind: 'prompt_escalation' as const, dedupeKey: `prompt_escalation:${candidate.actionId}` };
      await insertPushEvent(executor, event.orgId, escalation, new Date(now.getTime() + options.escalationMs));
    }
    await executor.execute(sql`SELECT pg_notify(${PUSH_CHANNEL}, '')`);
  };
}
