/**
 * The live event bus. Every event is first written to the `events` table, whose bigserial id is the SSE
 * event id (monotonic across processes, and the replay source after Last-Event-ID), then delivered to the
 * subscribers of this process and, through LISTEN/NOTIFY, of every other process on the same database.
 *
 * Recorded events are delivered strictly in id order, and only once every lower id is settled (committed or
 * never to be). On PostgreSQL, transactions of several processes commit out of id order: an event heard of
 * while a lower id is missing waits until every transaction that was in flight when it was heard of has ended
 * (a writer takes its transaction id before it draws an event id, so every writer of a lower id is among them),
 * then the missing ones are read from the table. Hence a client's Last-Event-ID is a position in the log, and a
 * replay of `id > Last-Event-ID` up to the settled id misses nothing. Events of a single writer arrive with
 * consecutive ids and go out at once, without a query. PGlite is one connection: its commits are in id order.
 *
 * Telemetry (robot_update at 1 Hz from up to 1000 robots) takes the transient path instead: no row, no replay,
 * delivered at once in this process and through NOTIFY (batched) to the others. Such events have id 0 and
 * `transient: true`, and their SSE frames carry no `id:` line, so a client's Last-Event-ID stays that of the
 * last recorded event and replay after a reconnect works as before.
 */
import { randomUUID } from 'node:crypto';
import { and, asc, eq, gt, inArray, lte, sql } from 'drizzle-orm';
import { z } from 'zod';
import type { Database, Executor } from '../db/client.ts';
import { eventHorizon, events } from '../db/schema.ts';

export const Stream = z.enum(['jobs', 'actions', 'robots', 'deliveries']);
export type Stream = z.infer<typeof Stream>;

export interface LiveEvent {
  id: number;
  orgId: string;
  stream: Stream;
  key: string;
  type: string;
  payload: unknown;
  /** Set on events of the transient path: not recorded, not replayed, id 0. */
  transient?: true;
}

export type NewLiveEvent = Omit<LiveEvent, 'id' | 'transient'>;
export type Listener = (event: LiveEvent) => void;
/**
 * Runs inside the transaction that records an event, so what it writes (the push outbox) exists exactly when
 * the event does.
 */
export type RecordHook = (event: LiveEvent, executor: Executor) => Promise<void>;

export interface EventBus {
  /**
   * Records an event. Pass the transaction of the change it reports so the event exists only if the change
   * does: subscribers receive it once that transaction commits, never when it rolls back.
   */
  publish(event: NewLiveEvent, executor?: Executor): Promise<LiveEvent>;
  /**
   * Delivers a telemetry event without recording it: to this process's subscribers at once, and to other
   * processes on the same PostgreSQL through NOTIFY. Lost on a reconnect (clients refetch), never replayed.
   */
  publishTransient(event: NewLiveEvent): void;
  /** Adds a hook run in the recording transaction of every event published from now on. */
  onRecord(hook: RecordHook): void;
  /** Calls `listener` for every committed event of `stream`, of every organization; returns the unsubscriber. */
  subscribe(stream: Stream, listener: Listener): () => void;
  /**
   * Events of `stream` in `orgId` after `afterId` up to the settled id, oldest first (for Last-Event-ID replay),
   * limited to `keys` when given and not empty. Later events reach subscribers in order.
   */
  replay(orgId: string, stream: Stream, afterId: number, limit?: number, keys?: readonly string[]): Promise<LiveEvent[]>;
  /** The id through which every recorded event has been delivered to this process's subscribers. */
  settledId(): number;
  /**
   * Tells `listener` when this process may have missed events (its database notifications were lost for a
   * while: recorded events in between are delivered first, telemetry is gone); returns the unsubscriber.
   */
  onResync(listener: () => void): () => void;
  /** Deletes events recorded before `before` (the replay horizon); returns how many. */
  prune(before: Date): Promise<number>;
  /** The highest id pruned so far (0 if none): a Last-Event-ID below it cannot be replayed exactly. */
  horizon(): Promise<number>;
  /** Subscribers of `stream` (or of every stream) in this process: for leak checks and metrics. */
  listenerCount(stream?: Stream): number;
  close(): Promise<void>;
}

export interface EventBusOptions {
  /** Told of failures that no caller can see (a listener throwing, a notification that cannot be resolved). */
  onError?: (error: unknown, message: string) => void;
  /**
   * How long an event may wait for the transactions in flight when it was heard of. A transaction left open
   * longer (a stuck session) must not stop live delivery: past this, events go out, and should a lower id
   * still commit later, subscribers are told to resync.
   */
  maxSettleWaitMs?: number;
}

/** Rows read per query when delivering from the table (gaps, a lost connection). */
const READ_PAGE = 500;
/** Missing ids remembered after a forced settle, to recognise a late commit. */
const MAX_LATE_IDS = 10_000;

/** The LISTEN/NOTIFY channel shared by every server process on one database. */
export const LIVE_CHANNEL = 'uvd_live';

/**
 * PostgreSQL refuses NOTIFY payloads of 8000 bytes or more; larger events travel as a reference and every
 * receiver reads the payload from the events table by id.
 */
export const NOTIFY_PAYLOAD_LIMIT = 7900;

const Notification = z.object({
  id: z.number().int().positive(),
  orgId: z.string(),
  stream: Stream,
  key: z.string(),
  type: z.string(),
  /** Left out, with `ref`, when too large for a notification. */
  payload: z.unknown().optional(),
  /** Set when the payload was left out for size. */
  ref: z.literal(true).optional(),
});
type Notification = z.infer<typeof Notification>;

/** A batch of transient events from process `origin` (which ignores its own batches). */
const TransientNotification = z.object({
  origin: z.string(),
  transient: z.array(z.object({ orgId: z.string(), stream: Stream, key: z.string(), type: z.string(), payload: z.unknown() })),
});

type EventRow = typeof events.$inferSelect;

export async function createEventBus(database: Database, options: EventBusOptions = {}): Promise<EventBus> {
  const onError = options.onError ?? (() => undefined);
  const maxSettleWaitMs = options.maxSettleWaitMs ?? 5000;
  const listeners = new Map<Stream, Set<Listener>>();
  const resyncListeners = new Set<() => void>();
  const recordHooks: RecordHook[] = [];
  // One connection commits in id order; several commit in any order and must be settled.
  const ordered = database.kind === 'pglite';
  let closed = false;

  const deliver = (event: LiveEvent) => {
    for (const listener of listeners.get(event.stream) ?? []) {
      try {
        listener(event);
      } catch (error) {
        onError(error, 'A live event listener failed.');
      }
    }
  };
  const resync = () => {
    for (const listener of resyncListeners) {
      try {
        listener();
      } catch (error) {
        onError(error, 'A live resync listener failed.');
      }
    }
  };

  const fetchById = async (id: number): Promise<LiveEvent | undefined> => {
    const [row] = await database.db.select().from(events).where(eq(events.id, id));
    return row ? toEvent(row) : undefined;
  };

  const resolve = async (notification: Notification): Promise<LiveEvent | undefined> => {
    if (notification.ref) return fetchById(notification.id);
    const { id, orgId, stream, key, type, payload } = notification;
    return { id, orgId, stream, key, type, payload };
  };

  // ------------------------------------------------------------ settling (PostgreSQL)

  /** Every recorded event with an id up to this one has been delivered (or never will be). */
  let settled = 0;
  /** Committed events heard of and not yet delivered, by id. */
  const heard = new Map<number, Notification>();
  let highestHeard = 0;
  /** Ids skipped by a forced settle: one arriving later is a late commit, and subscribers resync. */
  const lateIds = new Set<number>();
  let resyncWanted = false;
  let wake: (() => void) | undefined;
  /** Replays waiting for the settled id to reach theirs. */
  const settledWaiters = new Set<{ id: number; done: () => void }>();
  const releaseWaiters = () => {
    for (const waiter of settledWaiters) if (waiter.id <= settled) waiter.done();
  };
  const settledThrough = (id: number, timeoutMs: number) =>
    new Promise<void>((done) => {
      if (settled >= id || closed) {
        done();
        return;
      }
      const waiter = {
        id,
        done: () => {
          clearTimeout(timer);
          settledWaiters.delete(waiter);
          done();
        },
      };
      const timer = setTimeout(waiter.done, timeoutMs);
      settledWaiters.add(waiter);
    });
  let pumping: Promise<void> | undefined;
  let retry: NodeJS.Timeout | undefined;

  const rowsOf = (result: unknown): unknown[] =>
    typeof result === 'object' && result !== null && 'rows' in result && Array.isArray(result.rows) ? result.rows : [];
  const XidRow = z.object({ xid: z.string().regex(/^\d+$/) });
  const xidsOf = (result: unknown): string[] => rowsOf(result).map((row) => XidRow.parse(row).xid);

  /**
   * Transactions of this database holding a transaction id, in flight now. Read from the backends, not from a
   * snapshot: a snapshot lists only ids below the latest completed one, and a writer may have drawn a lower
   * event id with a higher transaction id. Other databases of the server are left out: they write no events.
   * A transaction's id leaves its backend when its rows become visible, which is what a read needs.
   */
  const inFlight = async (): Promise<string[]> =>
    xidsOf(
      await database.db.execute(
        sql`SELECT backend_xid::text AS xid FROM pg_stat_activity WHERE datname = current_database() AND backend_xid IS NOT NULL`,
      ),
    );
  const stillInFlight = async (xids: readonly string[]): Promise<string[]> =>
    xidsOf(
      await database.db.execute(
        sql`SELECT backend_xid::text AS xid FROM pg_stat_activity WHERE backend_xid::text = ANY(${`{${xids.join(',')}}`}::text[])`,
      ),
    );
  const highestRecorded = async (): Promise<number> => {
    const [row] = await database.db.select({ id: sql<string | null>`max(${events.id})::text` }).from(events);
    return Number(row?.id ?? 0);
  };

  const sleepOrWake = (ms: number) =>
    new Promise<void>((done) => {
      const timer = setTimeout(finish, ms);
      function finish() {
        clearTimeout(timer);
        wake = undefined;
        done();
      }
      wake = finish;
    });

  /** Whether every id from the settled one up to `target` has been heard of. */
  const heardThrough = (target: number) => {
    if (target - settled > heard.size) return false;
    for (let id = settled + 1; id <= target; id++) if (!heard.has(id)) return false;
    return true;
  };

  /** Delivers what was heard of with consecutive ids after the settled one: the common case, no query. */
  const deliverHeard = async () => {
    for (let next = heard.get(settled + 1); next && !closed; next = heard.get(settled + 1)) {
      heard.delete(next.id);
      settled = next.id;
      const event = await resolve(next);
      if (event) deliver(event);
    }
    releaseWaiters();
  };

  /** Waits until no transaction could still commit an id up to `target`, then delivers through it in order. */
  const settleThrough = async (target: number, deliverRows: boolean) => {
    const deadline = Date.now() + maxSettleWaitMs;
    let forced = false;
    let running = await inFlight();
    for (let pause = 2; running.length > 0 && !closed; pause = Math.min(pause * 2, 50)) {
      // Mostly the missing commit's own notification closes the gap, before any status says so.
      if (deliverRows && heardThrough(target)) break;
      if (Date.now() > deadline) {
        forced = true;
        onError(new Error(`transactions ${running.join(', ')} still open`), `Live events through ${target} delivered without waiting for them.`);
        break;
      }
      await sleepOrWake(pause);
      running = await stillInFlight(running);
    }
    if (!deliverRows) {
      settled = Math.max(settled, target);
      return;
    }
    while (settled < target && !closed) {
      const rows = await database.db
        .select()
        .from(events)
        .where(and(gt(events.id, settled), lte(events.id, target)))
        .orderBy(asc(events.id))
        .limit(READ_PAGE);
      const last = rows.length < READ_PAGE ? target : (rows.at(-1)?.id ?? target);
      let expected = settled + 1;
      for (const row of rows) {
        if (forced) for (; expected < row.id && lateIds.size < MAX_LATE_IDS; expected++) lateIds.add(expected);
        expected = row.id + 1;
        heard.delete(row.id);
        settled = row.id;
        deliver(toEvent(row));
      }
      if (forced) for (; expected <= last && lateIds.size < MAX_LATE_IDS; expected++) lateIds.add(expected);
      settled = last;
      releaseWaiters();
    }
    for (const id of heard.keys()) if (id <= settled) heard.delete(id);
  };

  const pump = async () => {
    while (!closed) {
      await deliverHeard();
      if (resyncWanted) {
        resyncWanted = false;
        // Deaf for a while: what was recorded meanwhile is in the table, telemetry is not.
        await settleThrough(Math.max(await highestRecorded(), highestHeard), true);
        resync();
        continue;
      }
      if (heard.size === 0) return;
      await settleThrough(highestHeard, true);
    }
  };
  const startPump = () => {
    if (pumping || closed) return;
    pumping = pump()
      .catch((error: unknown) => {
        onError(error, 'Live events could not be settled; retrying.');
        // The database is away; try again shortly rather than spin.
        retry = setTimeout(() => {
          retry = undefined;
          startPump();
        }, 1000);
        retry.unref();
      })
      .finally(() => {
        pumping = undefined;
        if (!retry && (heard.size > 0 || resyncWanted)) startPump();
      });
  };

  const onRecorded = (notification: Notification) => {
    if (notification.id <= settled) {
      // Either read from the table before its notification came (nothing to do), or a late commit after a
      // forced settle: this process delivered past it, so its clients must refetch.
      if (lateIds.delete(notification.id)) {
        resyncWanted = true;
        startPump();
      }
      return;
    }
    heard.set(notification.id, notification);
    highestHeard = Math.max(highestHeard, notification.id);
    wake?.();
    if (!initialising) startPump();
  };

  // ------------------------------------------------------------ notifications

  // PGlite: notifications are handled one after another so that a large event read back from the table is not
  // overtaken by the small ones that follow it.
  let handling: Promise<void> = Promise.resolve();
  const origin = randomUUID();
  let initialising = !ordered;
  const onNotification = (text: string) => {
    if (closed) return;
    const batch = parseTransient(text);
    if (batch) {
      if (batch.origin === origin) return;
      for (const event of batch.transient) deliver({ ...event, id: 0, transient: true });
      return;
    }
    const notification = parseNotification(text);
    if (!notification) {
      onError(new Error('Unreadable live notification.'), `Ignored a notification on ${LIVE_CHANNEL}.`);
      return;
    }
    if (!ordered) {
      onRecorded(notification);
      return;
    }
    handling = handling
      .then(async () => {
        const event = await resolve(notification);
        settled = Math.max(settled, notification.id);
        if (event && !closed) deliver(event);
      })
      .catch((error: unknown) => {
        onError(error, `Live event ${notification.id} could not be delivered.`);
      });
  };

  // Every process, this one included, learns of an event through the notification, so delivery happens at
  // commit for local and remote publishers alike.
  const unlisten = await database.notifier.listen(LIVE_CHANNEL, onNotification, {
    onRestored: () => {
      resyncWanted = true;
      if (!initialising) startPump();
    },
  });

  if (ordered) {
    settled = await highestRecorded();
  } else {
    // Start settled at the newest event, once writers that may still commit a lower id have ended.
    await settleThrough(await highestRecorded(), false);
    initialising = false;
    for (const id of heard.keys()) if (id <= settled) heard.delete(id);
    // Whatever was heard or lost meanwhile (the pump returns at once if nothing).
    startPump();
  }

  // Transient events for other processes go out in batches (one NOTIFY per tick, not per event). PGlite is
  // one process by construction, so it needs none.
  const crossProcess = database.kind === 'postgres';
  let outgoing: NewLiveEvent[] = [];
  let flushing = false;
  const flushTransient = () => {
    flushing = false;
    const events = outgoing;
    outgoing = [];
    if (closed) return;
    for (const text of transientBatches(origin, events)) {
      database.notifier.notify(LIVE_CHANNEL, text).catch((error: unknown) => {
        onError(error, 'Transient live events could not be sent to other processes.');
      });
    }
  };

  const record = async (event: NewLiveEvent, executor: Executor): Promise<LiveEvent> => {
    // The writer's transaction id before the event id: a transaction gets one at its first write, which for an
    // insert comes after the id is drawn, and settling needs every writer of a lower id to be visibly in flight.
    if (!ordered) await executor.execute(sql`SELECT pg_current_xact_id()`);
    const [row] = await executor
      .insert(events)
      .values({ orgId: event.orgId, stream: event.stream, key: event.key, type: event.type, payload: event.payload })
      .returning();
    if (!row) throw new Error('Event was not recorded.');
    const recorded = toEvent(row);
    // pg_notify inside a transaction is delivered at commit, and dropped on rollback.
    await executor.execute(sql`SELECT pg_notify(${LIVE_CHANNEL}, ${notificationText(recorded)})`);
    for (const hook of recordHooks) await hook(recorded, executor);
    return recorded;
  };

  return {
    async publish(event, executor) {
      // The event and what hooks write for it commit together: without a caller's transaction, in one of our own
      // (on PostgreSQL always: the transaction id must be taken in the transaction that writes the event).
      if (!executor && (recordHooks.length > 0 || !ordered)) return database.db.transaction((tx) => record(event, tx));
      return record(event, executor ?? database.db);
    },
    onRecord(hook) {
      recordHooks.push(hook);
    },
    publishTransient(event) {
      if (closed) return;
      deliver({ ...event, id: 0, transient: true });
      if (!crossProcess) return;
      outgoing.push(event);
      if (!flushing) {
        flushing = true;
        setImmediate(flushTransient);
      }
    },
    subscribe(stream, listener) {
      let set = listeners.get(stream);
      if (!set) {
        set = new Set();
        listeners.set(stream, set);
      }
      const subscribed = set;
      subscribed.add(listener);
      return () => {
        subscribed.delete(listener);
      };
    },
    onResync(listener) {
      resyncListeners.add(listener);
      return () => {
        resyncListeners.delete(listener);
      };
    },
    settledId: () => settled,
    async replay(orgId, stream, afterId, limit = 1000, keys = []) {
      const read = async (upTo: number | undefined) => {
        const rows = await database.db
          .select()
          .from(events)
          .where(
            and(
              eq(events.orgId, orgId),
              eq(events.stream, stream),
              gt(events.id, afterId),
              upTo === undefined ? undefined : lte(events.id, upTo),
              keys.length > 0 ? inArray(events.key, [...keys]) : undefined,
            ),
          )
          .orderBy(asc(events.id))
          .limit(limit);
        return rows.map(toEvent);
      };
      // In id order a later commit cannot have a lower id.
      if (ordered) return read(undefined);
      // Only settled ids are final: above them a lower id may still commit. What committed before this call is
      // settled within moments (its notification is on its way), so wait for that rather than leave it to the
      // live events; a process that cannot settle (deaf) answers what is settled.
      const bound = settled;
      const page = await read(undefined);
      const last = page.at(-1);
      if (!last || last.id <= bound) return page;
      await settledThrough(last.id, maxSettleWaitMs);
      return read(settled);
    },
    async prune(before) {
      // The deletion and the horizon it moves are one statement, so no reader sees events gone and the horizon not.
      const result = await database.db.execute(sql`
        WITH deleted AS (DELETE FROM events WHERE created_at < ${before.toISOString()}::timestamptz RETURNING id),
        moved AS (
          INSERT INTO event_horizon (id, pruned_through, pruned_at)
          SELECT 1, max(id), now() FROM deleted HAVING count(*) > 0
          ON CONFLICT (id) DO UPDATE
            SET pruned_through = greatest(event_horizon.pruned_through, excluded.pruned_through), pruned_at = excluded.pruned_at
        )
        SELECT count(*)::int AS count FROM deleted`);
      return z.object({ count: z.number() }).parse(rowsOf(result)[0]).count;
    },
    async horizon() {
      const [row] = await database.db.select({ prunedThrough: eventHorizon.prunedThrough }).from(eventHorizon);
      return row?.prunedThrough ?? 0;
    },
    listenerCount(stream) {
      if (stream) return listeners.get(stream)?.size ?? 0;
      let count = 0;
      for (const set of listeners.values()) count += set.size;
      return count;
    },
    async close() {
      if (closed) return;
      closed = true;
      listeners.clear();
      resyncListeners.clear();
      clearTimeout(retry);
      wake?.();
      for (const waiter of settledWaiters) waiter.done();
      await unlisten();
      await handling;
      await pumping;
    },
  };
}

function toEvent(row: EventRow): LiveEvent {
  return {
    id: row.id,
    orgId: row.orgId,
    // Only this module writes the table, through the typed `publish`.
    stream: Stream.parse(row.stream),
    key: row.key,
    type: row.type,
    payload: row.payload,
  };
}

function notificationText(event: LiveEvent): string {
  const full = JSON.stringify(event satisfies Notification);
  if (Buffer.byteLength(full) <= NOTIFY_PAYLOAD_LIMIT) return full;
  const { payload: _payload, ...reference } = event;
  return JSON.stringify({ ...reference, ref: true } satisfies Omit<Notification, 'payload'>);
}

/** Splits transient events into NOTIFY payloads under the size limit; an event too large alone is dropped. */
function transientBatches(origin: string, events: readonly NewLiveEvent[]): string[] {
  const texts: string[] = [];
  const envelope = JSON.stringify({ origin, transient: [] }).length;
  let batch: string[] = [];
  let size = envelope;
  const close = () => {
    if (batch.length > 0) texts.push(`{"origin":${JSON.stringify(origin)},"transient":[${batch.join(',')}]}`);
    batch = [];
    size = envelope;
  };
  for (const event of events) {
    const text = JSON.stringify({ orgId: event.orgId, stream: event.stream, key: event.key, type: event.type, payload: event.payload });
    const bytes = Buffer.byteLength(text) + 1;
    if (envelope + bytes > NOTIFY_PAYLOAD_LIMIT) continue;
    if (size + bytes > NOTIFY_PAYLOAD_LIMIT) close();
    batch.push(text);
    size += bytes;
  }
  close();
  return texts;
}

function parseTransient(text: string): z.infer<typeof TransientNotification> | undefined {
  if (!text.includes('"transient"')) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  const parsed = TransientNotification.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}

function parseNotification(text: string): Notification | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  const parsed = Notification.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}
