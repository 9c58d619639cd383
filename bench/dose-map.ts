/**
 * The dose map's cost (apps/server/src/dose/README.md): the time to compute each room's field and figures, for the
 * demo's rooms (seeded into a scratch database, as `npm start` has them) and for a large room at the caps (4096
 * cells, 256 robot positions), beside the time to read the same log rows (lamp intervals, path, polygons, lamp)
 * without computing: what writeLog adds to the transaction that ends a job.
 *
 *   npx tsx bench/dose-map.ts [--database postgres://…]     (PGlite in memory by default)
 *
 * Prints figures; never fails on them. `benchDoseMap()` is what `npm run bench:reports` runs.
 */
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { eq, inArray, isNotNull } from 'drizzle-orm';
import type { TrajectoryPoint } from '@uvd/contracts';
import { createScratchDatabase } from '../apps/server/src/db/scratch-database.ts';
import { lampIntervals, logs, robots, rooms } from '../apps/server/src/db/schema.ts';
import { DEFAULT_LAMP, lampOf } from '../apps/server/src/dose/lamp.ts';
import { computeLogDose } from '../apps/server/src/dose/log-dose.ts';
import { MAX_CELLS, MAX_EXPOSURES, roomDoses } from '../apps/server/src/dose/model.ts';
import { seedDemoIfEmpty } from '../apps/server/src/seed/demo-seed.ts';

const percentile = (sorted: readonly number[], p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))] ?? 0;
const summary = (values: readonly number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return `p50 ${percentile(sorted, 0.5).toFixed(3)}  p95 ${percentile(sorted, 0.95).toFixed(3)}  max ${(sorted[sorted.length - 1] ?? 0).toFixed(3)} ms  (n ${sorted.length})`;
};

export async function benchDoseMap(options: { databaseUrl?: string } = {}): Promise<void> {
  const scratch = await createScratchDatabase(options.databaseUrl, 'uvd_bench_dose');
  try {
    const { db } = scratch.database;
    await seedDemoIfEmpty(scratch.database, {});
    const logged = await db.select({ jobId: logs.jobId }).from(logs).where(isNotNull(logs.dose));
    const readMs: number[] = [];
    const computePerRoomMs: number[] = [];
    let cells = 0;
    let roomCount = 0;
    // Warm the JIT as a long-running server is.
    for (let round = 0; round < 2; round += 1) {
      readMs.length = 0;
      computePerRoomMs.length = 0;
      for (const { jobId } of logged) {
        const started = performance.now();
        const [log] = await db.select({ rooms: logs.rooms, trajectory: logs.trajectory, robotId: logs.robotId, startTime: logs.startTime, endTime: logs.endTime }).from(logs).where(eq(logs.jobId, jobId));
        const intervals = await db.select({ order: lampIntervals.orderNo, startedAt: lampIntervals.startedAt, endedAt: lampIntervals.endedAt }).from(lampIntervals).where(eq(lampIntervals.jobId, jobId));
        const places = await db
          .select({ id: rooms.id, polygon: rooms.polygon, floorId: rooms.floorId })
          .from(rooms)
          .where(inArray(rooms.id, (log?.rooms ?? []).map((room) => room.room_id)));
        const [robot] = log?.robotId ? await db.select({ lamp: robots.lamp }).from(robots).where(eq(robots.id, log.robotId)) : [];
        readMs.push(performance.now() - started);
        if (!log) continue;
        const trajectory: TrajectoryPoint[] = log.trajectory ?? [];
        const placeOf = new Map(places.map((place) => [place.id, place]));
        const computeStarted = performance.now();
        const result = computeLogDose({
          lamp: lampOf(robot?.lamp),
          trajectory,
          rooms: log.rooms.map((room) => ({
            order: room.order,
            dose: room.dose,
            state: room.state,
            polygon: placeOf.get(room.room_id)?.polygon ?? [],
            floorId: placeOf.get(room.room_id)?.floorId ?? null,
          })),
          intervals,
          jobEnd: log.endTime,
          robotStartedAt: log.startTime,
          startedAt: log.startTime,
        });
        const elapsed = performance.now() - computeStarted;
        const roomsOfLog = Math.max(1, log.rooms.length);
        for (let i = 0; i < roomsOfLog; i += 1) computePerRoomMs.push(elapsed / roomsOfLog);
        if (round === 1 && result) {
          roomCount += log.rooms.length;
          for (const grid of Object.values(result.dose.grids)) cells += grid.values.filter((value) => value !== null).length;
        }
      }
    }
    console.info(`dose map (${scratch.where}), demo history: ${logged.length} logs with a dose, ${roomCount} rooms, ${Math.round(cells / Math.max(1, roomCount))} cells a room on average`);
    console.info(`  read the log's rows (lamp intervals, path, polygons, lamp), per log: ${summary(readMs)}`);
    console.info(`  compute, per room:                                             ${summary(computePerRoomMs)}`);

    // A 64 × 64 m hall crossed by a 3000-point path with the lamp on throughout: both caps reached.
    const floorId = '00000000-0000-4000-8000-000000000001';
    const path: TrajectoryPoint[] = Array.from({ length: 3000 }, (_, i) => ({ t: i, x: 2 + ((i * 0.3) % 60), y: 32 + Math.sin(i / 40) * 28, floor_id: floorId }));
    const hall = [
      { x: 0, y: 0 },
      { x: 64, y: 0 },
      { x: 64, y: 64 },
      { x: 0, y: 64 },
    ];
    const largeMs: number[] = [];
    for (let round = 0; round < 5; round += 1) {
      const started = performance.now();
      const result = roomDoses(DEFAULT_LAMP, path, [{ order: 0, dose: 30, polygon: hall, floorId, spans: [{ from: 0, to: 3000 }] }]);
      largeMs.push(performance.now() - started);
      if (round === 0) console.info(`  large room at the caps: ${result.get(0)?.grid?.values.length ?? 0} cells (cap ${MAX_CELLS}), ${MAX_EXPOSURES} positions`);
    }
    console.info(`  compute, large room at the caps:                               ${summary(largeMs)}`);
  } finally {
    await scratch.drop();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { database: { type: 'string' } } });
  await benchDoseMap(values.database ? { databaseUrl: values.database } : {});
}
