/**
 * The job runner (not to be confused with db/client.ts `Executor`, a database or transaction): turns the
 * gateway's state events (events.ts) into job progress: room results, paused or disinfecting, the
 * thinned trajectory, the end of the job with its log, operator prompts, and low-battery events. It runs on its
 * own queue per robot, outside the gateway's: the gateway hands an event over and goes on with the robot's
 * telemetry, so a slow job transaction never holds up pose or battery updates. Events of one robot are handled
 * one after another; while one is handled, the waiting ones are coalesced (`supersedes`: a later event with the
 * same room reports, pause, cancel, prompts and battery side replaces a waiting one), so a robot's queue holds
 * at most one event per change of those, and every room result and prompt is still seen. An event changes the
 * database only when it changes something, checked again under the job's row lock, so a second server process
 * handling the same state writes and publishes nothing.
 */
import { CommandRefusal, LOW_BATTERY_PERCENT, type StateMessage } from '@uvd/contracts';
import { and, eq } from 'drizzle-orm';
import type { AppContext } from '../context.ts';
import { jobs } from '../db/schema.ts';
import { faultsOf, readState, supersedes, type OrderReport, type RoomDose, type StateEvent } from './events.ts';
import type { FleetRobot } from './fleet.ts';
import { recordPromptAsked, recordStateInterruptions } from './interruptions.ts';
import { finishJob, publishActionChange, publishJobChange } from './lifecycle.ts';
import { PerRobotQueue } from './per-robot-queue.ts';
import { isFinal, reduceProgress, worthRecording, type ActiveState, type Position } from './job-reducer.ts';
import * as repository from './repository.ts';
import type { JobRoomRow } from './repository.ts';

interface JobCache {
  orgId: string;
  robotId: string;
  /** Undefined when the job is not Running (then its states change nothing). */
  running:
    | {
        activeState: ActiveState;
        rooms: JobRoomRow[];
        startedAt: number;
        /** The robot's first report of the order is recorded (the log's start). */
        robotStarted: boolean;
        /** Per room: the dose last written and when (ms), so a dose rising at every state is written at a pace. */
        doses: Map<number, { dose: number; writtenAt: number }>;
        /** The rooms with a lamp interval open, as the table said when loaded. */
        lit: ReadonlySet<number>;
        /** The robot's faults the job's events hold open (errorType), as the table said when loaded. */
        faults: string;
        /** Whether the robot's last pause report the job's events hold says paused, as when loaded. */
        robotPaused: boolean;
      }
    | undefined;
  lastPoint: Position | undefined;
  loadedAt: number;
}

/** Cached job snapshots are read again after this long, to see changes made by other server processes. */
const CACHE_MS = 10_000;
/**
 * A room's dose rises with every state while its lamp is on: it is written at most this often (and always with
 * the room's final state), so a link that drops loses at most this much of what the robot had reported.
 */
const DOSE_WRITE_MS = 2_000;

export interface JobRunner {
  /**
   * Queues one state event of its robot (what the gateway's event listener calls; it returns at once). The
   * promise settles when the robot's queue has handled it or a later event that superseded it.
   */
  handleEvent(event: StateEvent): Promise<void>;
  /** Reads and queues one accepted state of `robot` (as `handleEvent`). */
  handleState(robot: FleetRobot, state: StateMessage): Promise<void>;
  /** Forget what is cached of a job (after a command changed it). */
  forget(jobId: string): void;
  /**
   * Ends as failed the Running jobs whose robot lost their order: it reports another order (or none) after it
   * reported the job's, or for a while after the start. A robot that restarted without its order will never finish
   * the job, and would otherwise be busy with it forever. (A robot that moves on from the job's order ends it at
   * once, as its state arrives; this sweep catches the rest.)
   */
  sweepLostOrders(): Promise<string[]>;
  /** Settles when every state received so far is handled. */
  idle(): Promise<void>;
}

/**
 * A robot reporting another order this long after its job started has lost the job's order, even if it never
 * reported it; one that reported the job's order and then another has lost it at once.
 */
export const ORDER_LOST_AFTER_MS = 15_000;

export type ErrorReporter = (error: unknown, message: string) => void;

/**
 * When the robot says the job ended: a cancel at the time of the state that reports it; otherwise when the last
 * room's lamp went off (the robot drives home after, and a state after a network gap arrives late).
 */
function jobEnd(order: OrderReport, robotTime: number): number {
  if (order.cancelled) return robotTime;
  const ends = [...order.doses.values()].flatMap((dose) => (dose.endedAt === undefined ? [] : [dose.endedAt]));
  return ends.length > 0 ? Math.max(...ends) : robotTime;
}

export function createJobRunner(ctx: Pick<AppContext, 'db' | 'bus' | 'fleet' | 'config'>, onError: ErrorReporter): JobRunner {
  const jobCache = new Map<string, JobCache>();
  const openPrompts = new Map<string, Set<string>>();
  /**
   * Per Running job, per room (order_no): the robot's time of the last state handled here that showed its lamp on,
   * so a lamp found off after a silence is closed when it was last known on (interruptions.ts LAMP_REPORT_GAP_MS).
   */
  const lastLit = new Map<string, Map<number, number>>();
  const batteries = new Map<string, number>();
  /**
   * The order each robot reported last: since when (arrival, for the lost-order rule), the robot's time of its last
   * report of it, and the same of the order it reported before (a job whose robot moved on ends at its last report).
   */
  const reportedOrders = new Map<string, { orderId: string; at: number; last: number; previous: { orderId: string; last: number } | undefined }>();

  const loadJob = async (robot: FleetRobot, jobId: string): Promise<JobCache | undefined> => {
    const cached = jobCache.get(jobId);
    if (cached && Date.now() - cached.loadedAt < CACHE_MS) return cached;
    const [row] = await ctx.db
      .select()
      .from(jobs)
      .where(and(eq(jobs.id, jobId), eq(jobs.orgId, robot.orgId), eq(jobs.robotId, robot.robotId)));
    if (!row) return undefined;
    const running =
      row.status === 'Running'
        ? {
            activeState: row.activeState === 'paused' ? ('paused' as const) : ('disinfecting' as const),
            rooms: await repository.jobRoomStates(ctx.db, jobId),
            startedAt: (row.startedAt ?? row.startTime).getTime(),
            robotStarted: row.robotStartedAt !== null,
            doses: cached?.running?.doses ?? new Map<number, { dose: number; writtenAt: number }>(),
            lit: await repository.openLampRooms(ctx.db, jobId),
            ...(await repository.pauseAndFaults(ctx.db, jobId)),
          }
        : undefined;
    if (!running) lastLit.delete(jobId);
    const last = cached?.lastPoint ?? (running ? await repository.lastTrajectoryPoint(ctx.db, jobId) : undefined);
    const entry: JobCache = {
      orgId: row.orgId,
      robotId: row.robotId,
      running,
      lastPoint: last?.floorId ? { x: last.x, y: last.y, floorId: last.floorId } : undefined,
      loadedAt: Date.now(),
    };
    // The order goes out before the start commits, so the robot's first states may find the job still
    // Scheduled: only a Running or ended job is remembered.
    if (row.status !== 'Scheduled') jobCache.set(jobId, entry);
    return entry;
  };

  /**
   * Applies what the state changes, under the job's lock, against the rows as they are now. Times are the
   * robot's: a room's own start and end where the robot reports them, else the state's `robotTime`. The state's
   * interruptions and lamp transitions are recorded in the same transaction (interruptions.ts).
   */
  const applyProgress = async (jobId: string, event: StateEvent, check: { lamps: boolean; faults: boolean; pause: boolean }): Promise<void> => {
    const { order, robotTime } = event;
    const battery = event.battery.charge;
    await ctx.db.transaction(async (tx) => {
      const job = await repository.lockJob(tx, event.robot.orgId, jobId);
      if (job?.status !== 'Running') return;
      const rooms = await repository.jobRoomStates(tx, jobId);
      const activeState: ActiveState = job.activeState === 'paused' ? 'paused' : 'disinfecting';
      const progress = reduceProgress({ jobId, activeState, rooms }, order);
      if (!progress) return;
      const now = new Date();
      const skipped: { orderNo: number; at: Date }[] = [];
      for (const orderNo of progress.changed) {
        const room = progress.rooms.find((candidate) => candidate.orderNo === orderNo);
        if (!room) continue;
        const dose = order.doses.get(orderNo);
        const at = (room.state === 'active' ? dose?.startedAt : dose?.endedAt) ?? robotTime;
        await repository.setRoomState(tx, jobId, orderNo, room.state, new Date(at), dose?.dose);
        if (room.state === 'not_ready') skipped.push({ orderNo, at: new Date(at) });
      }
      const roomsAfter = rooms.map((room) => ({
        ...room,
        state: progress.rooms.find((candidate) => candidate.orderNo === room.orderNo)?.state ?? room.state,
      }));
      // A room under way gets its dose written with every transition (a lamp switched off, a pause), so what is
      // recorded after it (an answer, a stop) carries it exactly, not as of the last paced write (DOSE_WRITE_MS).
      for (const room of roomsAfter) {
        const dose = order.doses.get(room.orderNo)?.dose;
        if (room.state !== 'active' || progress.changed.includes(room.orderNo) || dose === undefined || dose === room.doseReceived) continue;
        await repository.setRoomDose(tx, jobId, room.orderNo, dose);
      }
      await recordStateInterruptions(
        tx,
        {
          job,
          rooms: roomsAfter,
          skipped,
          ended: progress.ended,
          commandGiveUpMs: ctx.config.commandGiveUpMs,
          // A room that ends switches its lamp off; the state that ends the job leaves no interval to the job's end.
          check: { ...check, lamps: check.lamps || progress.changed.length > 0 },
        },
        { order, robotTime: event.since ?? robotTime, receivedAt: event.receivedAt, errors: event.fields.errors, lastLit: lastLit.get(jobId) },
      );
      if (progress.ended && progress.completionStatus) {
        // Rooms given up while the battery is below the threshold were given up for it (the robot goes home to
        // charge): the log says so.
        const reason = progress.completionStatus === 'failed' && battery < LOW_BATTERY_PERCENT ? CommandRefusal.robotBatteryLow : null;
        await finishJob(ctx, tx, job, progress.completionStatus, { endedAt: new Date(jobEnd(order, robotTime)), reason });
        lastLit.delete(jobId);
        return;
      }
      let current = job;
      // The job shows what the robot reports; a pause or resume it has not taken yet is shown as pending.
      if (progress.activeState !== activeState) {
        const [row] = await tx
          .update(jobs)
          .set({ activeState: progress.activeState, updatedAt: now })
          .where(eq(jobs.id, jobId))
          .returning();
        if (row) current = row;
      }
      if (progress.changed.length > 0 || current !== job) await publishJobChange(ctx, tx, current);
    });
    jobCache.delete(jobId);
  };

  /** Writes the doses the robot reports for rooms still under way, at most every DOSE_WRITE_MS per room. */
  const recordDoses = async (jobId: string, running: NonNullable<JobCache['running']>, doses: ReadonlyMap<number, RoomDose>) => {
    const now = Date.now();
    for (const [orderNo, reported] of doses) {
      const written = running.doses.get(orderNo);
      if (written?.dose === reported.dose || (written && now - written.writtenAt < DOSE_WRITE_MS)) continue;
      await repository.setRoomDose(ctx.db, jobId, orderNo, reported.dose);
      running.doses.set(orderNo, { dose: reported.dose, writtenAt: now });
    }
  };

  const trackJob = async (event: StateEvent): Promise<string | undefined> => {
    const { robot, order, robotTime } = event;
    const jobId = order.jobId;
    // A delivery's order (its pick and drop) is no job: deliveries/progress.ts follows it.
    if (jobId === undefined || event.delivery.pick || event.delivery.drop) return undefined;
    const job = await loadJob(robot, jobId);
    if (!job?.running) return undefined;
    if (!job.running.robotStarted) {
      await repository.markRobotStarted(ctx.db, jobId, new Date(robotTime));
      job.running.robotStarted = true;
    }
    await recordDoses(jobId, job.running, order.doses);
    // The position first: the state that ends the job moves the path into the log.
    const next = order.position;
    if (next) {
      if (worthRecording(job.lastPoint, next)) {
        await repository.addTrajectoryPoint(ctx.db, {
          jobId,
          floorId: next.floorId,
          t: (Date.now() - job.running.startedAt) / 1000,
          x: next.x,
          y: next.y,
        });
        job.lastPoint = next;
      }
    }
    const { running } = job;
    const progress = reduceProgress({ jobId, activeState: running.activeState, rooms: running.rooms }, order);
    // The lamp and the faults as the state shows them, beside what the tables held when the job was loaded: a
    // difference is a transition to record (re-checked under the job's lock).
    const underWay = new Set(running.rooms.filter((room) => !isFinal(room.state)).map((room) => room.orderNo));
    const lit = new Set([...order.lit].filter((orderNo) => underWay.has(orderNo)));
    const lampChanged = lit.size !== running.lit.size || [...lit].some((orderNo) => !running.lit.has(orderNo));
    const faultsChanged = faultsOf(event.fields.errors).join('\n') !== running.faults;
    const pauseReported = order.paused !== running.robotPaused;
    if (
      progress &&
      (progress.changed.length > 0 || progress.ended || progress.activeState !== running.activeState || pauseReported || lampChanged || faultsChanged)
    ) {
      await applyProgress(jobId, event, { lamps: lampChanged, faults: faultsChanged, pause: pauseReported || progress.activeState !== running.activeState });
    }
    if (lit.size > 0) {
      const times = lastLit.get(jobId) ?? new Map<number, number>();
      for (const orderNo of lit) times.set(orderNo, Math.max(times.get(orderNo) ?? 0, robotTime));
      lastLit.set(jobId, times);
    }
    return jobId;
  };

  const syncPrompts = async (robot: FleetRobot, jobId: string | undefined, event: Pick<StateEvent, 'prompts' | 'order' | 'robotTime' | 'since'>): Promise<void> => {
    const { prompts } = event;
    let open = openPrompts.get(robot.robotId);
    if (!open) {
      open = new Set((await repository.openActionsOfRobot(ctx.db, robot.robotId)).map((row) => row.promptId));
      openPrompts.set(robot.robotId, open);
    }
    const reported = new Set(prompts.map((prompt) => prompt.promptId));
    const added = jobId ? prompts.filter((prompt) => !open.has(prompt.promptId)) : [];
    const gone = [...open].filter((promptId) => !reported.has(promptId));
    if (added.length === 0 && gone.length === 0) return;
    const jobRooms = new Map(jobId ? (await repository.jobRoomStates(ctx.db, jobId)).map((room) => [room.roomId, room]) : []);
    await ctx.db.transaction(async (tx) => {
      const now = new Date();
      if (gone.length > 0) {
        for (const row of await repository.resolveActions(tx, robot.robotId, [...reported], now)) {
          await publishActionChange(ctx, tx, row);
        }
      }
      if (jobId === undefined) return;
      for (const prompt of added) {
        const room = prompt.roomId === undefined ? undefined : jobRooms.get(prompt.roomId);
        const row = await repository.insertAction(tx, {
          orgId: robot.orgId,
          jobId,
          robotId: robot.robotId,
          roomId: room ? room.roomId : null,
          promptId: prompt.promptId,
          buttonText: prompt.button,
        });
        if (!row) continue;
        await publishActionChange(ctx, tx, row);
        // Recorded with the prompt's row, which is inserted once across processes and repeated states.
        const dose = room ? (event.order.doses.get(room.orderNo)?.dose ?? room.doseReceived) : null;
        await recordPromptAsked(tx, row, room, dose, new Date(event.since ?? event.robotTime));
      }
    });
    openPrompts.set(robot.robotId, new Set(jobId ? reported : []));
  };

  const checkBattery = async (robot: FleetRobot, reported: StateEvent['battery']): Promise<void> => {
    const battery = reported.charge;
    const previous = batteries.get(robot.robotId);
    batteries.set(robot.robotId, battery);
    if (previous === undefined || previous < LOW_BATTERY_PERCENT || battery >= LOW_BATTERY_PERCENT) return;
    await ctx.bus.publish({
      orgId: robot.orgId,
      stream: 'robots',
      key: robot.robotId,
      type: 'battery_low',
      payload: { robot_id: robot.robotId, battery, charging_status: reported.charging ? 1 : 0 },
    });
  };

  /** Ends as failed each Running job of `robotIds` whose robot lost its order (sweepLostOrders); returns their ids. */
  const endLostJobs = async (robotIds: string[]): Promise<string[]> => {
    const running = await repository.runningJobs(ctx.db, robotIds);
    const ended: string[] = [];
    const now = Date.now();
    for (const job of running) {
      const reported = reportedOrders.get(job.robotId);
      if (!reported || reported.orderId === job.id) continue;
      // A robot may report its former order (or none) until it takes the new one; once it reported the job's, it
      // does not go back to it.
      const startedAt = (job.startedAt ?? job.startTime).getTime();
      if (job.robotStartedAt === null && now - startedAt < ORDER_LOST_AFTER_MS) continue;
      const lost = await ctx.db.transaction(async (tx) => {
        const locked = await repository.lockJob(tx, job.orgId, job.id);
        if (locked?.status !== 'Running') return false;
        // The robot restarted without the order: a room under way lost its lamp then, one never begun was not
        // reached. What is known of the job ends with the robot's last report of it (this process's, else its start).
        const at = new Date(
          reported.previous?.orderId === job.id ? reported.previous.last : (job.robotStartedAt ?? job.startedAt ?? job.startTime).getTime(),
        );
        for (const room of await repository.jobRoomStates(tx, job.id)) {
          if (!isFinal(room.state)) {
            await repository.setRoomState(tx, job.id, room.orderNo, room.state === 'active' ? 'aborted' : 'not_reached', at);
          }
        }
        await finishJob(ctx, tx, locked, 'failed', { endedAt: at });
        lastLit.delete(job.id);
        return true;
      });
      jobCache.delete(job.id);
      if (lost) ended.push(job.id);
    }
    return ended;
  };

  const handle = async (event: StateEvent): Promise<void> => {
    const { robot } = event;
    const reported = reportedOrders.get(robot.robotId);
    if (reported?.orderId === event.order.orderId) reported.last = Math.max(reported.last, event.robotTime);
    else {
      reportedOrders.set(robot.robotId, {
        orderId: event.order.orderId,
        at: event.receivedAt,
        last: event.robotTime,
        previous: reported ? { orderId: reported.orderId, last: reported.last } : undefined,
      });
      // The robot moved on from an order: if it was its Running job's, the job is lost now (a reboot while paused
      // would otherwise go on showing the job paused on a robot without it). From no order it lost none it reported
      // (a job it never reported is the sweep's, after ORDER_LOST_AFTER_MS).
      if (reported && reported.orderId !== '') await endLostJobs([robot.robotId]);
    }
    await checkBattery(robot, event.battery);
    const jobId = await trackJob(event);
    await syncPrompts(robot, jobId, event);
  };

  /** Per robot: the events waiting, handled one after another. */
  const queues = new PerRobotQueue<StateEvent>({
    handle,
    onError: (error, event) => {
      onError(error, `state ${event.headerId} of robot ${event.robot.robotId} could not be applied`);
    },
    // The replacement keeps when the replaced state was sent: a transition it shows began then (interruptions.ts).
    coalesce: (last, event) => (supersedes(event, last, LOW_BATTERY_PERCENT) ? { ...event, since: last.since ?? last.robotTime } : undefined),
  });

  // The run starts on a later tick: the caller (the gateway) goes on at once.
  const handleEvent = (event: StateEvent): Promise<void> => queues.push(event.robot.robotId, event);

  return {
    handleEvent,
    handleState(robot, state) {
      return handleEvent(readState(robot, state));
    },
    sweepLostOrders() {
      return endLostJobs([...reportedOrders.keys()]);
    },
    forget(jobId) {
      jobCache.delete(jobId);
    },
    async idle() {
      await queues.idle();
    },
  };
}
