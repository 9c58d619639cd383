// Contracts of the deliveries backend: the logistics variant's deliveries, from request to a proven hand-off.
// The base address is `backends.logistics` of /config.json (mounted under /api by default).
import { z } from 'zod';
import { Id, idListQuery, pagination, Text, Timestamp, TimestampInput } from './common.ts';
import { FROM_AFTER_TO, fromNotAfterTo, listFilterShape } from './jobs.ts';
import { EventStreamReply } from './live.ts';
import { defineRoute } from './route.ts';

/** Behaviour §3 delivery statuses. */
export const DeliveryStatus = {
  queued: 0,
  inTransit: 1,
  paused: 2,
  /** At the pickup for loading, or at the drop-off for the recipient (`waiting_for` says which). */
  waiting: 3,
  delivered: 4,
  cancelled: 5,
  /** The robot reports it cannot go on, or the delivery was handed back too often: a person must act. */
  blocked: 6,
} as const;
export type DeliveryStatus = (typeof DeliveryStatus)[keyof typeof DeliveryStatus];
/** Statuses a delivery never leaves. */
export const FINAL_DELIVERY_STATUSES: readonly DeliveryStatus[] = [DeliveryStatus.delivered, DeliveryStatus.cancelled];

/** stat before urgent before routine: the dispatcher serves priority first, then age. */
export const DeliveryPriority = z.enum(['routine', 'urgent', 'stat']);
export type DeliveryPriority = z.infer<typeof DeliveryPriority>;

export const ItemCategory = z.enum(['specimen', 'medication', 'blood', 'supplies', 'linen', 'meal', 'document', 'other']);
export type ItemCategory = z.infer<typeof ItemCategory>;

export const DELIVERY_TEXT_MAX = 200;
export const DELIVERY_NOTES_MAX = 1000;
export const DELIVERY_ITEMS_MAX = 20;
export const DELIVERY_QUANTITY_MAX = 999;
/** The hand-off PIN: this many digits, shown once to the sender and pushed to the recipient. */
export const HANDOFF_PIN_LENGTH = 4;
/** The third wrong PIN locks the hand-off and alerts the sender and the admins. */
export const HANDOFF_PIN_ATTEMPTS = 3;

export const DeliveryItem = z.object({
  description: Text().trim().min(1).max(DELIVERY_TEXT_MAX),
  category: ItemCategory,
  quantity: z.number().int().min(1).max(DELIVERY_QUANTITY_MAX),
});
export type DeliveryItem = z.infer<typeof DeliveryItem>;

/** What the robot is waiting for while Waiting: the sender to load it, or the recipient to take it. */
export const DeliveryWaitingFor = z.enum(['loading', 'recipient']);
export type DeliveryWaitingFor = z.infer<typeof DeliveryWaitingFor>;

export const DrawerState = z.enum(['open', 'closed']);
export type DrawerState = z.infer<typeof DrawerState>;

/** A place on a floor, metres on the floor's map frame (as robots report it), and the room when it is one. */
export const DeliveryPlace = z.object({
  floor_id: Id.nullable(),
  x: z.number(),
  y: z.number(),
  room_id: Id.nullable(),
});
export type DeliveryPlace = z.infer<typeof DeliveryPlace>;

/**
 * One step of a delivery's chain of custody: requested, dispatched (to a robot), loaded, departed (from the pickup),
 * arrived (at the drop-off), received (the PIN verified: by whom, at the console or the robot), delivered (the drop
 * finished, the drawer closed), and what happened in between. `at` is the robot's time for steps the robot reported (departed,
 * arrived, received at the robot), else the server's; `recorded_at` is when the server recorded it. The record is
 * append-only, and nothing is added once the delivery is Delivered.
 */
export const CustodyStepKind = z.enum([
  'requested',
  'dispatched',
  'loaded',
  'departed',
  'arrived',
  'received',
  'delivered',
  'handoff_failed',
  'handoff_locked',
  'paused',
  'resumed',
  'blocked',
  'unblocked',
  'requeued',
  'escalated',
  'cancelled',
  'drawer_opened',
  'drawer_closed',
]);
export type CustodyStepKind = z.infer<typeof CustodyStepKind>;

export const CustodyStep = z.object({
  step: CustodyStepKind,
  at: Timestamp,
  recorded_at: Timestamp,
  /** The person who did it (requested, loaded, received, cancelled, …); null for the robot's own steps. */
  user_id: Id.nullable(),
  user_name: z.string().nullable(),
  robot_id: Id.nullable(),
  robot_name: z.string().nullable(),
  place: DeliveryPlace.nullable(),
  /** Where it was done from (console, robot) or why (a block's or a hand-back's reason), when there is one. */
  detail: z.string().nullable(),
});
export type CustodyStep = z.infer<typeof CustodyStep>;

export const DeliveryRoom = z.object({
  room_id: Id,
  name: z.string(),
  floor_id: Id,
  building_id: Id,
});
export type DeliveryRoom = z.infer<typeof DeliveryRoom>;

export const Delivery = z.object({
  delivery_id: Id,
  status: z.enum(DeliveryStatus),
  priority: DeliveryPriority,
  pickup: DeliveryRoom,
  dropoff: DeliveryRoom,
  items: z.array(DeliveryItem),
  robot_id: Id.nullable(),
  robot_name: z.string().nullable(),
  requested_by: z.object({ user_id: Id.nullable(), name: z.string() }),
  recipient_user_id: Id.nullable(),
  recipient_name: z.string().nullable(),
  deliver_by: Timestamp.nullable(),
  notes: z.string(),
  created_at: Timestamp,
  updated_at: Timestamp,
  /** While Waiting: what the robot waits for, and since when (the robot's time it arrived). */
  waiting_for: DeliveryWaitingFor.nullable(),
  waiting_since: Timestamp.nullable(),
  /** Why it is Blocked, or why it was last handed back to the queue. */
  reason: z.string().nullable(),
  /** How many times a robot took it (a robot that fails or drops off hands it back). */
  dispatch_attempts: z.number().int().min(0),
  handoff_attempts_left: z.number().int().min(0),
  handoff_locked: z.boolean(),
  /** The drawer as the robot last reported it; null without a robot or a report. */
  drawer: DrawerState.nullable(),
  /** A pause, resume or cancel sent to the robot and not yet confirmed by it. */
  pending_command: z.enum(['pause', 'resume', 'cancel']).nullable(),
  delivered_at: Timestamp.nullable(),
  /** Past `deliver_by` and not Delivered. */
  late: z.boolean(),
});
export type Delivery = z.infer<typeof Delivery>;

/** One delivery with its chain of custody and its route (pickup then drop-off, metres on each floor). */
export const DeliveryDetail = Delivery.extend({
  custody: z.array(CustodyStep),
  route: z.array(DeliveryPlace),
});
export type DeliveryDetail = z.infer<typeof DeliveryDetail>;

/** The reply of a created delivery: the hand-off PIN, shown once to the sender (the recipient gets it by push). */
export const CreatedDelivery = DeliveryDetail.extend({ pin: z.string().regex(/^\d+$/) });
export type CreatedDelivery = z.infer<typeof CreatedDelivery>;

export const DeliveryInput = z.object({
  pickup_room_id: Id,
  dropoff_room_id: Id,
  items: z.array(DeliveryItem).min(1).max(DELIVERY_ITEMS_MAX),
  priority: DeliveryPriority.default('routine'),
  recipient_user_id: Id.optional(),
  recipient_name: Text().trim().min(1).max(DELIVERY_TEXT_MAX).optional(),
  /** Must lie in the future. */
  deliver_by: TimestampInput.optional(),
  notes: Text().max(DELIVERY_NOTES_MAX).optional(),
});
export type DeliveryInput = z.input<typeof DeliveryInput>;

/** The deliveries list's filters, with the jobs list's paging and date semantics (a bare date is a day in the caller's timezone). */
export const DeliveryListQuery = z
  .object({
    ...listFilterShape,
    status: idListQuery(z.coerce.number().pipe(z.enum(DeliveryStatus))),
  })
  .refine(fromNotAfterTo, { message: FROM_AFTER_TO, path: ['from_date'] });
export type DeliveryListQuery = z.input<typeof DeliveryListQuery>;

/** Open deliveries first (by priority, then oldest first), then the finished ones newest first. */
export const DeliveryList = z.object({ count: z.number().int().min(0), payload: z.array(Delivery) });
export type DeliveryList = z.infer<typeof DeliveryList>;

/** Why a delivery is Blocked or was handed back: its `reason`, and the detail of its custody steps blocked, unblocked and requeued. */
export const DeliveryReason = {
  pathBlocked: 'path_blocked',
  robotError: 'robot_error',
  pickFailed: 'pick_failed',
  dropFailed: 'drop_failed',
  dropWithoutHandoff: 'drop_without_handoff',
  robotOffline: 'robot_offline',
  handbackLimit: 'handback_limit',
  /** The outbox gave up the robot's order: the robot never took it. */
  orderUndelivered: 'order_undelivered',
} as const;
export type DeliveryReason = (typeof DeliveryReason)[keyof typeof DeliveryReason];

/**
 * The words a custody step's detail is made of besides a reason: where a step was done from (console, robot), which
 * stop (pickup, dropoff), and who an escalation told (recipient, sender, admins; with " (late)" past deliver_by).
 */
export const CUSTODY_DETAIL_WORDS = ['console', 'robot', 'pickup', 'dropoff', 'recipient', 'sender', 'admins', ...Object.values(DeliveryReason)] as const;
export const LATE_DETAIL_SUFFIX = ' (late)';

export const DeliveryCommand = z.enum(['pause', 'resume']);
export type DeliveryCommand = z.infer<typeof DeliveryCommand>;

export const HandoffInput = z.object({ pin: Text().trim().min(1).max(12) });
export type HandoffInput = z.infer<typeof HandoffInput>;

/** Error codes of the deliveries backend (409 unless said). */
export const DeliveryRefusal = {
  /** The delivery's status does not allow the call (details.status). */
  deliveryState: 'delivery_state',
  /** Delivered or Cancelled: nothing changes it any more. */
  deliveryFinished: 'delivery_finished',
  /** A hand-off or loading confirmation while the robot is not waiting for it. */
  notWaiting: 'handoff_not_waiting',
  /** Wrong PIN: details.attempts_left. */
  wrongPin: 'handoff_wrong_pin',
  /** The third wrong PIN locked the hand-off: the sender or an admin must act. */
  handoffLocked: 'handoff_locked',
  /** The robot must be online for the command. */
  robotOffline: 'robot_offline',
  /** A disinfection job for a delivery robot, or the reverse. */
  wrongRobotKind: 'robot_kind',
} as const;
export type DeliveryRefusal = (typeof DeliveryRefusal)[keyof typeof DeliveryRefusal];

/** On the deliveries stream: the third wrong PIN locked the hand-off (the sender and the admins are told by push). */
export const DELIVERY_HANDOFF_LOCKED_EVENT = 'delivery_handoff_locked';
export const DeliveryHandoffLocked = z.object({ delivery_id: Id, robot_id: Id.nullable(), requested_by_id: Id.nullable() });
export type DeliveryHandoffLocked = z.infer<typeof DeliveryHandoffLocked>;

/** Who an escalation of a delivery waiting too long (or late) told, level by level. */
export const DeliveryEscalationTarget = z.enum(['recipient', 'sender', 'admins']);
export type DeliveryEscalationTarget = z.infer<typeof DeliveryEscalationTarget>;
/** On the deliveries stream: a delivery waited too long at a hand-off, or is late, and was escalated one level. */
export const DELIVERY_ESCALATED_EVENT = 'delivery_escalated';
export const DeliveryEscalated = z.object({ delivery_id: Id, level: z.number().int().min(1).max(3), told: DeliveryEscalationTarget });
export type DeliveryEscalated = z.infer<typeof DeliveryEscalated>;

const deliveryParams = z.object({ delivery_id: Id });

export const createDelivery = defineRoute({
  method: 'POST',
  path: '/deliveries',
  summary: 'Request a delivery: it is Queued for the best free delivery robot; the reply carries the hand-off PIN, shown only here',
  tags: ['deliveries'],
  body: DeliveryInput,
  response: { 201: CreatedDelivery },
});

export const listDeliveries = defineRoute({
  method: 'GET',
  path: '/deliveries',
  summary: 'Deliveries of the visible robots and rooms: open ones first (priority, then oldest), then finished ones newest first',
  tags: ['deliveries'],
  querystring: DeliveryListQuery,
  response: { 200: DeliveryList },
});

export const getDelivery = defineRoute({
  method: 'GET',
  path: '/deliveries/:delivery_id',
  summary: 'One delivery with its chain of custody and route',
  tags: ['deliveries'],
  params: deliveryParams,
  response: { 200: DeliveryDetail },
});

export const cancelDelivery = defineRoute({
  method: 'POST',
  path: '/deliveries/:delivery_id/cancel',
  summary: 'Cancel a delivery not yet Delivered (its robot is told to cancel its order); 409 delivery_finished after Delivered or Cancelled',
  tags: ['deliveries'],
  params: deliveryParams,
  response: { 200: DeliveryDetail },
});

export const commandDelivery = defineRoute({
  method: 'POST',
  path: '/deliveries/:delivery_id/command',
  summary: 'Pause or resume the robot carrying the delivery; the status changes once the robot reports it (pending_command until then)',
  tags: ['deliveries'],
  params: deliveryParams,
  querystring: z.object({ command: DeliveryCommand }),
  response: { 200: DeliveryDetail },
});

export const confirmLoading = defineRoute({
  method: 'POST',
  path: '/deliveries/:delivery_id/loaded',
  summary: 'The sender confirms the robot at the pickup is loaded: it closes its drawer and departs; 409 handoff_not_waiting otherwise',
  tags: ['deliveries'],
  params: deliveryParams,
  response: { 200: DeliveryDetail },
});

export const handoffDelivery = defineRoute({
  method: 'POST',
  path: '/deliveries/:delivery_id/handoff',
  summary:
    'The recipient enters the PIN while the robot waits at the drop-off: the robot opens its drawer and the delivery is Delivered once the drop finished; 409 handoff_wrong_pin (details.attempts_left), handoff_locked, handoff_not_waiting',
  tags: ['deliveries'],
  params: deliveryParams,
  body: HandoffInput,
  response: { 200: DeliveryDetail },
});

/** The filter of the recipients a sender picks from: `q` matches the name or the username, case-insensitive. */
export const DeliveryRecipientQuery = z.object({
  q: Text().trim().max(100).optional(),
  ...pagination(50),
});
export type DeliveryRecipientQuery = z.input<typeof DeliveryRecipientQuery>;

/** A user who may receive a delivery: `name` is the full name, or the username when the user has none. */
export const DeliveryRecipient = z.object({ user_id: Id, name: z.string(), username: z.string() });
export type DeliveryRecipient = z.infer<typeof DeliveryRecipient>;

export const DeliveryRecipientList = z.object({ count: z.number().int().min(0), payload: z.array(DeliveryRecipient) });
export type DeliveryRecipientList = z.infer<typeof DeliveryRecipientList>;

export const listDeliveryRecipients = defineRoute({
  method: 'GET',
  path: '/deliveries/recipients',
  summary: 'The enabled users of the organization a delivery may be addressed to (recipient_user_id), by name; q matches the name or the username',
  tags: ['deliveries'],
  querystring: DeliveryRecipientQuery,
  response: { 200: DeliveryRecipientList },
});

export const DeliveryStreamQuery = z.object({ delivery_list: idListQuery(Id) });

export const streamDeliveries = defineRoute({
  method: 'GET',
  path: '/deliveries/stream',
  summary:
    'Live delivery changes (delivery_change: the delivery as the list shows it) of the listed deliveries, or of every delivery the caller may see; replays after Last-Event-ID',
  tags: ['deliveries'],
  querystring: DeliveryStreamQuery,
  response: { 200: EventStreamReply },
  produces: 'text/event-stream',
});
