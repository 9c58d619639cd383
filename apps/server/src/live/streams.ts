/**
 * The three live streams of behaviour §7, declared in one place: for each, its route contract, the bus stream it
 * reads, the event types it carries to clients, the keys a client lists, and which robot an event concerns
 * (who may see that robot may see the event). `sse.ts` does the rest (replay, heartbeats, slow clients).
 *
 * Other events recorded on the same bus streams are for the server's own services and not sent: job_started,
 * job_finished and job_failed (jobs) feed the notifications service, battery_low (robots) too.
 */
import { and, eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import {
  COMMAND_UNDELIVERED_EVENT,
  DELIVERY_ESCALATED_EVENT,
  DELIVERY_HANDOFF_LOCKED_EVENT,
  STOP_CONFIRMED_EVENT,
  STOP_UNCONFIRMED_EVENT,
  streamActions,
  streamDeliveries,
  streamJobs,
  streamRobots,
  type RouteContract,
} from '@uvd/contracts';
import type { AppContext } from '../context.ts';
import type { Executor } from '../db/client.ts';
import { deliveries, jobs } from '../db/schema.ts';
import type { LiveEvent, Stream } from './bus.ts';
import { registerStream, type StreamOptions } from './sse.ts';
import type { Viewer } from './viewer.ts';

type Query<R extends RouteContract> = Parameters<StreamOptions<R>['keysFromQuery']>[0];

interface StreamDeclaration<R extends RouteContract> {
  contract: R;
  /** The bus stream the events come from. */
  stream: Stream;
  /** The event types sent to clients; the stream's other events are skipped (and count as seen for replay). */
  types: readonly string[];
  /** The ids the client listed (job ids, robot ids); empty means every one the caller may see. */
  keysFromQuery(query: Query<R>): readonly string[];
  /**
   * The robot the event concerns. A string when the event itself says (answered without waiting, so the
   * stream's fast path stays synchronous), else a lookup.
   */
  robotOf(event: LiveEvent, orgId: string): string | undefined | Promise<string | undefined>;
  /** Who may see the event, when it is not who may see its robot (a delivery's rooms and people count too). */
  authorize?: (event: LiveEvent, viewer: Viewer) => boolean | Promise<boolean>;
}

/** A declared stream, ready to register; its route's types stay inside. */
export interface LiveStream {
  contract: RouteContract;
  stream: Stream;
  types: readonly string[];
  register(app: FastifyInstance, context: AppContext): void;
}

const declare = <R extends RouteContract>(declaration: StreamDeclaration<R>): LiveStream => ({
  contract: declaration.contract,
  stream: declaration.stream,
  types: declaration.types,
  register: (app, context) => {
    registerStream(app, context, declaration.contract, {
      stream: declaration.stream,
      keysFromQuery: (query) => declaration.keysFromQuery(query),
      authorize: declaration.authorize ?? authorizer(declaration),
    });
  },
});

/** A job_change or action_change payload names its robot (a Job, an Action, a deleted job's last state). */
const PayloadRobot = z.object({ robot_id: z.string() });

/** The robot of a job's event: from its payload, else from the `jobs` table (the key is the job id). */
const robotOfJobEvent =
  (db: Executor) =>
  (event: LiveEvent, orgId: string): string | Promise<string | undefined> => {
    const fromPayload = PayloadRobot.safeParse(event.payload).data?.robot_id;
    if (fromPayload !== undefined) return fromPayload;
    return db
      .select({ robotId: jobs.robotId })
      .from(jobs)
      .where(and(eq(jobs.orgId, orgId), eq(jobs.id, event.key)))
      .then(([row]) => row?.robotId);
  };

/** What decides who sees a delivery's event: its robot, its rooms and its people. */
interface DeliveryParties {
  robotId: string | null;
  pickupRoomId: string;
  dropoffRoomId: string;
  requestedById: string | null;
  recipientUserId: string | null;
}

/** A delivery_change carries the delivery as the list shows it. */
const DeliveryPayload = z.object({
  robot_id: z.string().nullable(),
  pickup: z.object({ room_id: z.string() }),
  dropoff: z.object({ room_id: z.string() }),
  requested_by: z.object({ user_id: z.string().nullable() }),
  recipient_user_id: z.string().nullable(),
});

/** The parties of a delivery's event: from its payload, else from the `deliveries` table (the key is the delivery id). */
const partiesOfDeliveryEvent =
  (db: Executor) =>
  async (event: LiveEvent, orgId: string): Promise<DeliveryParties | undefined> => {
    const payload = DeliveryPayload.safeParse(event.payload).data;
    if (payload)
      return {
        robotId: payload.robot_id,
        pickupRoomId: payload.pickup.room_id,
        dropoffRoomId: payload.dropoff.room_id,
        requestedById: payload.requested_by.user_id,
        recipientUserId: payload.recipient_user_id,
      };
    const [row] = await db
      .select({
        robotId: deliveries.robotId,
        pickupRoomId: deliveries.pickupRoomId,
        dropoffRoomId: deliveries.dropoffRoomId,
        requestedById: deliveries.requestedById,
        recipientUserId: deliveries.recipientUserId,
      })
      .from(deliveries)
      .where(and(eq(deliveries.orgId, orgId), eq(deliveries.id, event.key)));
    return row;
  };

/** The deliveries' visibility (deliveries/README.md): the robot, the pickup or the drop-off room, or the requester or recipient. */
function deliveryAuthorizer(db: Executor, types: readonly string[]): (event: LiveEvent, viewer: Viewer) => boolean | Promise<boolean> {
  const parties = partiesOfDeliveryEvent(db);
  return async (event, viewer) => {
    if (!types.includes(event.type)) return false;
    if (viewer.seesEverything) return true;
    const of = await parties(event, viewer.principal.orgId);
    if (!of) return false;
    const me = viewer.principal.sub;
    if (of.requestedById === me || of.recipientUserId === me) return true;
    if (of.robotId !== null && (await viewer.canSeeRobot(of.robotId))) return true;
    return (await viewer.canSeeRoom(of.pickupRoomId)) || viewer.canSeeRoom(of.dropoffRoomId);
  };
}

const DELIVERY_STREAM_TYPES = ['delivery_change', DELIVERY_HANDOFF_LOCKED_EVENT, DELIVERY_ESCALATED_EVENT];

/** The declarations, in behaviour §7's order. */
export const liveStreams = (db: Executor): readonly LiveStream[] => [
    /**
     * `GET /jobs/v2/jobs/stream?job_list=…`: job_change of the listed jobs, or of every job the caller may see
     * (the jobs page shows a filtered, paged list and wants to learn of new jobs too).
     */
    declare({
      contract: streamJobs,
      stream: 'jobs',
      types: ['job_change'],
      keysFromQuery: (query) => query.job_list,
      robotOf: robotOfJobEvent(db),
    }),
    /** `GET /action/action/stream?job_list=…`: action_change (a robot's prompt to the operator) of the listed jobs. */
    declare({
      contract: streamActions,
      stream: 'actions',
      types: ['action_change'],
      keysFromQuery: (query) => query.job_list,
      robotOf: robotOfJobEvent(db),
    }),
    /**
     * `GET /robot/stream?robot_list=…`: robot_update (telemetry, transient: no id, not replayed) and
     * command_undelivered (a command the robot never acknowledged; recorded, replayed after Last-Event-ID),
     * stop_unconfirmed and stop_confirmed (a stop the robot has not taken within the alert time, then took).
     * The key is the robot id, so every check is synchronous for the restricted roles: telemetry takes the
     * stream's fast path.
     */
    declare({
      contract: streamRobots,
      stream: 'robots',
      types: ['robot_update', COMMAND_UNDELIVERED_EVENT, STOP_UNCONFIRMED_EVENT, STOP_CONFIRMED_EVENT],
      keysFromQuery: (query) => query.robot_list,
      robotOf: (event) => event.key,
    }),
    /**
     * `GET /deliveries/stream?delivery_list=…`: delivery_change (the delivery as the list shows it), and the alerts
     * delivery_handoff_locked (three wrong PINs) and delivery_escalated (a hand-off waited too long), of the listed
     * deliveries or of every one the caller may see.
     */
    declare({
      contract: streamDeliveries,
      stream: 'deliveries',
      types: DELIVERY_STREAM_TYPES,
      keysFromQuery: (query) => query.delivery_list,
      robotOf: () => undefined,
      authorize: deliveryAuthorizer(db, DELIVERY_STREAM_TYPES),
    }),
];

/**
 * Whether `viewer` may receive `event`: one of the stream's types, and about a robot they may see. Restricted
 * roles see everything of their organization (the organization is checked by `sse.ts`).
 */
function authorizer<R extends RouteContract>(
  declaration: StreamDeclaration<R>,
): (event: LiveEvent, viewer: Viewer) => boolean | Promise<boolean> {
  const types = new Set(declaration.types);
  return (event, viewer) => {
    if (!types.has(event.type)) return false;
    if (viewer.seesEverything) return true;
    const robot = declaration.robotOf(event, viewer.principal.orgId);
    if (typeof robot === 'string') return viewer.canSeeRobot(robot);
    return Promise.resolve(robot).then((robotId) => robotId !== undefined && viewer.canSeeRobot(robotId));
  };
}

/** Registers every live stream of behaviour §7. */
export function registerLiveStreams(app: FastifyInstance, context: AppContext): void {
  for (const declared of liveStreams(context.db)) declared.register(app, context);
}
