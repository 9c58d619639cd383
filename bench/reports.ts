/**
 * A period report of 10 000 rooms: time, peak memory (the process's RSS, which counts the PDF worker's heap too,
 * and the main thread's heap) and the longest event-loop stall of each step, beside reading the same rows
 * without computing anything from them.
 *
 *   npm run bench:reports -- [--engine pglite|postgres] [--rooms 10000] [--rooms-per-job 4] [--cells 256]
 *
 * PGlite in memory by default (the server's default); `--engine postgres` uses DATABASE_URL or
 * postgres://postgres@127.0.0.1:5432/test (a new database, dropped at the end). Each step is one entry of
 * `steps` below: a new figure (a dose map, another format) is one more entry. Prints figures; never fails on them.
 */
import { randomBytes } from 'node:crypto';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import type { StoredLoggedRoom } from '../apps/server/src/db/schema.ts';
import { logs, organizations } from '../apps/server/src/db/schema.ts';
import { createScratchDatabase } from '../apps/server/src/db/scratch-database.ts';
import type { Principal } from '../apps/server/src/identity/principal.ts';
import { csvLines } from '../apps/server/src/reports/csv.ts';
import { formatter } from '../apps/server/src/reports/messages.ts';
import { pdfStream, WorkerSlots } from '../apps/server/src/reports/pdf-host.ts';
import { periodBounds, periodRooms, periodSummary, resolveScope } from '../apps/server/src/reports/repository.ts';
import { createSite } from '../apps/server/src/testing/site-fixtures.ts';
import { benchDoseMap } from './dose-map.ts';

const { values: args } = parseArgs({
  options: {
    engine: { type: 'string', default: 'pglite' },
    rooms: { type: 'string', default: '10000' },
    'rooms-per-job': { type: 'string', default: '4' },
    /** Cells of each room's stored dose grid (the period reads past them, as a real log's dose holds them). */
    cells: { type: 'string', default: '256' },
  },
});
const roomCount = Number(args.rooms);
const roomsPerJob = Number(args['rooms-per-job']);
const cells = Number(args.cells);
const jobCount = Math.ceil(roomCount / roomsPerJob);
const FROM = '2030-01-01';
const TO = '2030-12-31';

const databaseUrl = args.engine === 'postgres' ? (process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test') : undefined;
const scratch = await createScratchDatabase(databaseUrl, 'uvd_bench');
const db = scratch.database.db;
const orgId = `bench-${randomBytes(3).toString('hex')}`;
await db.insert(organizations).values({ id: orgId, name: orgId, uvcDoses: [100], defaultDose: 100 });
const site = await createSite(db, orgId, { floors: 2, roomsPerFloor: roomsPerJob, robots: 1 });
const roomIds = site.floors.flatMap((floor) => floor.roomIds);

const filled = process.hrtime.bigint();
const side = Math.max(1, Math.round(Math.sqrt(cells)));
for (let first = 0; first < jobCount; first += 250) {
  await db.insert(logs).values(
    Array.from({ length: Math.min(250, jobCount - first) }, (_, offset) => {
      const index = first + offset;
      const start = new Date(Date.UTC(2030, 0, 1) + index * (360 * 86_400_000) / jobCount);
      const rooms: StoredLoggedRoom[] = Array.from({ length: roomsPerJob }, (_, order) => ({
        order,
        room_id: roomIds[(index + order) % roomIds.length] ?? '',
        room_name: `Room ${order}`,
        dose: 100,
        state: order === 3 ? 'aborted' : 'done',
        dose_received: 100,
        dose_stats: { min: 80 + order, p10: 95, mean: 130, coverage: order === 0 ? 1 : 0.96 },
      }));
      return {
        jobId: crypto.randomUUID(),
        orgId,
        jobName: `Job ${index}`,
        completionStatus: 'completed',
        robotId: site.robotIds[0] ?? null,
        robotName: 'UVD 1',
        createdBy: 'planner',
        startTime: start,
        endTime: new Date(start.getTime() + 1_800_000),
        rooms,
        events: [{ at: start.toISOString(), kind: 'paused' as const, actor: 'nurse', order_no: 1, room_id: rooms[1]?.room_id ?? '', room_name: 'Room 1', dose: 20, cause: 'operator' }],
        dose: {
          lamp: { uvc_power_w: 80, height_m: 1, length_m: 1.2, radial_profile: [1] },
          lamp_intervals: rooms.map((room) => ({ order: room.order, from: start.toISOString(), to: new Date(start.getTime() + 600_000).toISOString() })),
          grids: Object.fromEntries(
            rooms.map((room) => [String(room.order), { origin: { x: 0, y: 0 }, cell_m: 0.25, columns: side, rows: side, values: Array.from({ length: side * side }, (_, cell) => 100 + (cell % 50)) }]),
          ),
        },
      };
    }),
  );
}
console.log(`${scratch.where}: ${jobCount} logs, ${jobCount * roomsPerJob} rooms, ${side * side} cells each, filled in ${(Number(process.hrtime.bigint() - filled) / 1e9).toFixed(1)} s`);

const principal: Principal = { sub: crypto.randomUUID(), orgId, username: 'bench', roles: ['done-admin'], givenName: '', familyName: '', email: '', groups: [] };
const format = formatter('fi', 'Europe/Helsinki');
const scope = await resolveScope(db, principal, 'organization', undefined);
const filter = { principal, scope, timeZone: format.timeZone, ...periodBounds(FROM, TO, format.timeZone) };
const slots = new WorkerSlots(1);

interface Step {
  name: string;
  /** Returns what it produced, for the table (rooms read, bytes written). */
  run: () => Promise<string>;
}

const steps: Step[] = [
  {
    name: 'read the rows (keyset pages), nothing computed',
    run: async () => {
      let rooms = 0;
      let slowest = 0;
      let last = performance.now();
      for await (const page of periodRooms(db, filter)) {
        rooms += page.length;
        slowest = Math.max(slowest, performance.now() - last);
        last = performance.now();
      }
      return `${rooms} rooms (slowest page ${slowest.toFixed(0)} ms)`;
    },
  },
  {
    name: 'compliance summary (SQL aggregation)',
    run: async () => {
      const summary = await periodSummary(db, filter, FROM, TO);
      return `${summary.total.rooms_planned} rooms, ${summary.by_week.length} weeks`;
    },
  },
  {
    name: 'period CSV',
    run: async () => {
      let bytes = 0;
      for await (const text of csvLines(format, periodRooms(db, filter))) bytes += Buffer.byteLength(text);
      return `${(bytes / 1e6).toFixed(1)} MB`;
    },
  },
  {
    name: 'period PDF (summary, then every room; worker thread)',
    run: async () => {
      const summary = await periodSummary(db, filter, FROM, TO);
      let bytes = 0;
      const stream = await pdfStream(slots, { kind: 'period', language: 'fi', timeZone: format.timeZone, generatedAt: new Date().toISOString(), generatedBy: 'bench', summary }, periodRooms(db, filter));
      for await (const chunk of stream) bytes += (chunk as Uint8Array).byteLength;
      return `${(bytes / 1e6).toFixed(1)} MB`;
    },
  },
];

const mb = (bytes: number) => (bytes / 1048576).toFixed(0);

console.log('\n| step | result | time s | peak RSS MB (+ over start) | peak main heap MB (+ over start) | longest event-loop stall ms |');
console.log('|---|---|---|---|---|---|');
for (const step of steps) {
  (globalThis as { gc?: () => void }).gc?.();
  const before = process.memoryUsage();
  let peakRss = before.rss;
  let peakHeap = before.heapUsed;
  const sampler = setInterval(() => {
    const now = process.memoryUsage();
    peakRss = Math.max(peakRss, now.rss);
    peakHeap = Math.max(peakHeap, now.heapUsed);
  }, 10);
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  const started = process.hrtime.bigint();
  const result = await step.run();
  const elapsed = Number(process.hrtime.bigint() - started) / 1e9;
  delay.disable();
  clearInterval(sampler);
  console.log(
    `| ${step.name} | ${result} | ${elapsed.toFixed(2)} | ${mb(peakRss)} (+${mb(peakRss - before.rss)}) | ${mb(peakHeap)} (+${mb(peakHeap - before.heapUsed)}) | ${(delay.max / 1e6).toFixed(0)} |`,
  );
}

await scratch.drop();

// The dose map a log's rooms get when the job ends (dose/), per room, beside reading the same log rows.
console.log('\nDose map per room (the demo history, as the server computes it when a job ends):');
await benchDoseMap(databaseUrl ? { databaseUrl } : {});
