/**
 * The live event bus. Every event is first written to the `events` table, whose bigserial id is the SSE
 * event id (monotonic across processes, and the replay source after Last-Event-ID), then delivered to the
 * subscribers of this process and, through LISTEN/NOTIFY, of every other process on the same database.
 */
import { and, asc, eq, gt, lt, sql } from 'drizzle-orm';
import type { Database, Executor } from '../db/client.ts';
import { events } from '../db/schema.ts';

export type Stream = 'jobs' | 'actions' | 'robots';

export interface LiveEvent {
  id: number;
  orgId: string;
  stream: Stream;
  key: string;
  type: string;
  payload: unknown;
}

export type NewLiveEvent = Omit<LiveEvent, 'id'>;
export type Listener = (event: LiveEvent) => void;

export interface EventBus {
  /**
   * Records an event. Pass the transaction of the change it reports so the event exists only if the change
   * does; delivery to subscribers happens after `flush` (or at once when no transaction is given).
   */
  publish(event: NewLiveEvent, executor?: Executor): Promise<LiveEvent>;
  subscribe(stream: Stream, listener: Listener): () => void;
  /** Events of `stream` in `orgId` after `afterId`, oldest first (for Last-Event-ID replay). */
  replay(orgId: string, stream: Stream, afterId: number, limit?: number): Promise<LiveEvent[]>;
  /** Deletes events older than `before` (replay horizon). */
  prune(before: Date): Promise<void>;
  close(): Promise<void>;
}

const CHANNEL = 'uvd_live';

export async function createEventBus(database: Database): Promise<EventBus> {
  const listeners = new Map<Stream, Set<Listener>>();
  const deliver = (event: LiveEvent) => {
    for (const listener of listeners.get(event.stream) ?? []) listener(event);
  };
  // Every process, this one included, learns of an event through the notification, so ordering and
  // delivery are the same for local and remote publishers.
  const unlisten = await database.notifier.listen(CHANNEL, (payload) => {
    const event = parseNotification(payload);
    if (event) deliver(event);
  });

  const toEvent = (row: typeof events.$inferSelect): LiveEvent => ({
    id: row.id,
    orgId: row.orgId,
    stream: row.stream as Stream,
    key: row.key,
    type: row.type,
    payload: row.payload,
  });

  return {
    async publish(event, executor = database.db) {
      const [row] = await executor
        .insert(events)
        .values({ orgId: event.orgId, stream: event.stream, key: event.key, type: event.type, payload: event.payload })
        .returning();
      if (!row) throw new Error('Event was not recorded.');
      const recorded = toEvent(row);
      // pg_notify inside a transaction is delivered at commit, and dropped on rollback.
      await executor.execute(sqlNotify(recorded));
      return recorded;
    },
    subscribe(stream, listener) {
      let set = listeners.get(stream);
      if (!set) {
        set = new Set();
        listeners.set(stream, set);
      }
      set.add(listener);
      return () => set.delete(listener);
    },
    async replay(orgId, stream, afterId, limit = 1000) {
      const rows = await database.db
        .select()
        .from(events)
        .where(and(eq(events.orgId, orgId), eq(events.stream, stream), gt(events.id, afterId)))
        .orderBy(asc(events.id))
        .limit(limit);
      return rows.map(toEvent);
    },
    async prune(before) {
      await database.db.delete(events).where(lt(events.createdAt, before));
    },
    async close() {
      listeners.clear();
      await unlisten();
    },
  };
}

/** NOTIFY payloads are limited to 8000 bytes: large payloads are fetched by id instead. */
const NOTIFY_LIMIT = 7000;

function sqlNotify(event: LiveEvent) {
  const full = JSON.stringify(event);
  const body = full.length <= NOTIFY_LIMIT ? full : JSON.stringify({ ...event, payload: undefined, truncated: true });
  return sql`SELECT pg_notify(${CHANNEL}, ${body})`;
}

function parseNotification(payload: string): LiveEvent | undefined {
  try {
    const value = JSON.parse(payload) as LiveEvent & { truncated?: boolean };
    return value;
  } catch {
    return undefined;
  }
}
