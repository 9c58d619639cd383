/**
 * Writes the fleet gateway's robot fields to the robots rows. On PGlite the writes of ROW_BATCH_MS go out as one
 * UPDATE: PGlite runs every statement on the server's own thread (about 0.75 ms of CPU for one robot row, 70-120 µs
 * a row in an UPDATE of a few hundred), so at 1000 robots, each writing its pose every POSE_WRITE_MS, single-row
 * updates took a quarter of a core from the telemetry they serve, and batches of one event-loop turn (a few rows
 * each) still 10-40 % under the telemetry bench. The rows are what a page loaded now shows and what the job lists
 * read of a robot's connection; the stream carries every change at once, so 50 ms more on the row changes nothing
 * a person sees. A change of a robot's status, mode, connection, floor, charging or errors is written at once
(`writeNow`): the job runner, the dispatcher and the command checks react to the same state and read the row. PGlite is one connection running one statement at a time, so a batch holds no lock a
 * single-row update would not have waited for. On PostgreSQL each row is its own statement, as before: there a
 * statement costs the server little, and a row locked by a job's transaction must not hold every robot's write.
 */
import { eq, sql, type SQL } from 'drizzle-orm';
import type { Database } from '../db/client.ts';
import { robots, type Pose } from '../db/schema.ts';
import type { RobotFields } from './robot-fields.ts';

/** What the gateway writes to a robot's row. */
export interface RobotRowValues extends Omit<RobotFields, 'battery'> {
  /** undefined leaves the column as it is: a robot that never reported a battery has none to write. */
  battery: number | undefined;
  pose: Pose | null;
  lastStateHeaderId: number | null;
  lastSeenAt: Date | null;
}

export interface RobotRowWriter {
  /**
   * Resolves once the row is written; rejects if it could not be. A robot's next write waits for this one (the
   * gateway's writeRow): on PostgreSQL two at once would race each other.
   */
  write: (robotId: string, values: RobotRowValues) => Promise<void>;
  /**
   * Writes the row at once, taking the robot out of a batch still waiting (whose writes then resolve with this
   * one): for a change that what the robot's state sets off next must find in the row (its status, mode,
   * connection), as the job runner's writes of the same state are queued behind it on PGlite's one connection.
   */
  writeNow: (robotId: string, values: RobotRowValues) => Promise<void>;
  /**
   * A change of state while a write of the robot waits for its batch (PGlite): that write goes now, with `values`.
   * Does nothing otherwise (a write in flight, or PostgreSQL, where no write waits): the caller writes again after it.
   */
  hurry: (robotId: string, values: RobotRowValues) => void;
}

/** Rows per statement: 12 parameters each, well under PostgreSQL's 65 535. */
const BATCH_ROWS = 500;
/** How long a write waits for others to share its statement (PGlite). */
export const ROW_BATCH_MS = 50;

const updateOne = (database: Database, robotId: string, values: RobotRowValues) =>
  database.db
    .update(robots)
    .set({
      battery: values.battery,
      chargingStatus: values.chargingStatus,
      mode: values.mode,
      status: values.status,
      signal: values.signal,
      floorId: values.floorId,
      pose: values.pose,
      errors: values.errors,
      connectionState: values.connectionState,
      lastStateHeaderId: values.lastStateHeaderId,
      lastSeenAt: values.lastSeenAt,
    })
    .where(eq(robots.id, robotId));

const json = (value: unknown): string | null => (value === null ? null : JSON.stringify(value));

/** One UPDATE of several rows, with the same effect as `updateOne` for each. */
function updateMany(rows: readonly (readonly [string, RobotRowValues])[]): SQL {
  const values = rows.map(
    ([robotId, row]) =>
      sql`(${robotId}::uuid, ${row.battery ?? null}::real, ${row.chargingStatus}::integer, ${row.mode}::integer, ${row.status}::text, ${row.signal}::integer, ${row.floorId}::uuid, ${json(row.pose)}::jsonb, ${JSON.stringify(row.errors)}::jsonb, ${row.connectionState}::text, ${row.lastStateHeaderId}::integer, ${row.lastSeenAt?.toISOString() ?? null}::timestamptz)`,
  );
  return sql`UPDATE robots AS r SET
      battery = coalesce(v.battery, r.battery),
      charging_status = v.charging_status,
      mode = v.mode,
      status = v.status,
      signal = v.signal,
      floor_id = v.floor_id,
      pose = v.pose,
      errors = v.errors,
      connection_state = v.connection_state,
      last_state_header_id = v.last_state_header_id,
      last_seen_at = v.last_seen_at
    FROM (VALUES ${sql.join(values, sql`, `)})
      AS v(id, battery, charging_status, mode, status, signal, floor_id, pose, errors, connection_state, last_state_header_id, last_seen_at)
    WHERE r.id = v.id`;
}

interface Waiting {
  values: RobotRowValues;
  settle: { resolve: () => void; reject: (error: unknown) => void }[];
}

export function createRobotRowWriter(database: Database): RobotRowWriter {
  if (database.kind === 'postgres') {
    const write = async (robotId: string, values: RobotRowValues) => {
      await updateOne(database, robotId, values);
    };
    return { write, writeNow: write, hurry: () => undefined };
  }

  let waiting = new Map<string, Waiting>();
  let scheduled = false;

  const writeBatch = async (batch: [string, Waiting][]) => {
    try {
      await database.db.execute(updateMany(batch.map(([robotId, entry]) => [robotId, entry.values] as const)));
      for (const [, entry] of batch) for (const { resolve } of entry.settle) resolve();
    } catch {
      // One row the batch cannot take (its floor deleted meanwhile) must not fail the others: each on its own.
      await Promise.all(
        batch.map(async ([robotId, entry]) => {
          try {
            await updateOne(database, robotId, entry.values);
            for (const { resolve } of entry.settle) resolve();
          } catch (error) {
            for (const { reject } of entry.settle) reject(error);
          }
        }),
      );
    }
  };

  const flush = () => {
    scheduled = false;
    const rows = [...waiting];
    waiting = new Map();
    for (let start = 0; start < rows.length; start += BATCH_ROWS) void writeBatch(rows.slice(start, start + BATCH_ROWS));
  };

  const writeNow = (robotId: string, values: RobotRowValues): Promise<void> => {
    const entry = waiting.get(robotId);
    waiting.delete(robotId);
    // Queued on PGlite's one connection now, before whatever this turn queues after it.
    const written = updateOne(database, robotId, values).then(() => undefined);
    written.then(
      () => {
        for (const { resolve } of entry?.settle ?? []) resolve();
      },
      (error: unknown) => {
        for (const { reject } of entry?.settle ?? []) reject(error);
      },
    );
    return written;
  };

  return {
    writeNow,
    hurry: (robotId, values) => {
      if (!waiting.has(robotId)) return;
      // Its writes resolve with this one; a failure is theirs to report.
      writeNow(robotId, values).catch(() => undefined);
    },
    write: (robotId, values) =>
      new Promise<void>((resolve, reject) => {
        const entry = waiting.get(robotId);
        // A later write of the same robot in the same batch carries its latest fields for both.
        if (entry) {
          entry.values = values;
          entry.settle.push({ resolve, reject });
        } else waiting.set(robotId, { values, settle: [{ resolve, reject }] });
        if (scheduled) return;
        scheduled = true;
        setTimeout(flush, ROW_BATCH_MS);
      }),
  };
}
