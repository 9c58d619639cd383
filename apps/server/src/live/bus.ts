/**
 * The live event bus. Every event is first written to the `events` table, whose bigserial id is the SSE
 * event id (monotonic across processes, and the replay source after Last-Event-ID), then delivered to the
 * subscribers of this process and, through LISTEN/NOTIFY, of every other process on the same database.
 *
 * Telemetry (robot_update at 1 Hz from up to 1000 robots) takes the transient path instead: no row, no replay,
 * delivered at once in this process and through NOTIFY (batched) to the others. Such events have id 0 and
 * `transient: true`, and their SSE frames carry no `id:` line, so a client's Last-Event-ID stays that of the
 * last recorded event and replay after a reconnect works as before.
 */
import { randomUUID } from 'node:crypto';
import { and, asc, eq, gt, inArray, lt, sql } from 'drizzle-orm';
import { z } from 'zod';
import type { Database, Executor } from '../db/client.ts';
import { events } from '../db/schema.ts';

export const Stream = z.enum(['jobs', 'actions', 'robots']);
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
   * Events of `stream` in `orgId` after `afterId`, oldest first (for Last-Event-ID replay), limited to `keys`
   * when given and not empty.
   */
  replay(orgId: string, stream: Stream, afterId: number, limit?: number, keys?: readonly string[]): Promise<LiveEvent[]>;
  /** Deletes events recorded before `before` (the replay horizon); returns how many. */
  prune(before: Date): Promise<number>;
  /** Subscribers of `stream` (or of every stream) in this process: for leak checks and metrics. */
  listenerCount(stream?: Stream): number;
  close(): Promise<void>;
}

export interface EventBusOptions {
  /** Told of failures that no caller can see (a listener throwing, a notification that cannot be resolved). */
  onError?: (error: unknown, message: string) => void;
}

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
  const listeners = new Map<Stream, Set<Listener>>();
  const recordHooks: RecordHook[] = [];
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

  const fetchById = async (id: number): Promise<LiveEvent | undefined> => {
    const [row] = await database.db.select().from(events).where(eq(events.id, id));
    return row ? toEvent(row) : undefined;
  };

  const resolve = async (notification: Notification): Promise<LiveEvent | undefined> => {
    if (notification.ref) return fetchById(notification.id);
    const { id, orgId, stream, key, type, payload } = notification;
    return { id, orgId, stream, key, type, payload };
  };

  // Notifications are handled one after another so that a large event read back from the table is not
  // overtaken by the small ones that follow it.
  let handling: Promise<void> = Promise.resolve();
  const origin = randomUUID();
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
    handling = handling
      .then(async () => {
        const event = await resolve(notification);
        if (event && !closed) deliver(event);
      })
      .catch((error: unknown) => {
        onError(error, `Live event ${notification.id} could not be delivered.`);
      });
  };

  // Every process, this one included, learns of an event through the notification, so delivery happens at
  // commit for local and remote publishers alike.
  const unlisten = await database.notifier.listen(LIVE_CHANNEL, onNotification);

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
      // The event and what hooks write for it commit together: without a caller's transaction, in one of our own.
      if (!executor && recordHooks.length > 0) return database.db.transaction((tx) => record(event, tx));
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
    async replay(orgId, stream, afterId, limit = 1000, keys = []) {
      const rows = await database.db
        .select()
        .from(events)
        .where(
          and(
            eq(events.orgId, orgId),
            eq(events.stream, stream),
            gt(events.id, afterId),
            keys.length > 0 ? inArray(events.key, [...keys]) : undefined,
          ),
        )
        .orderBy(asc(events.id))
        .limit(limit);
      return rows.map(toEvent);
    },
    async prune(before) {
      const deleted = await database.db.delete(events).where(lt(events.createdAt, before)).returning({ id: events.id });
      return deleted.length;
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
      await unlisten();
      await handling;
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
