/**
 * The server's Prometheus metrics (GET /metrics, metrics/routes.ts), in a registry of this app (not prom-client's
 * global one), so tests that build several apps in one process never collide.
 *
 * Two kinds: counters and a histogram the code adds to where things happen (robot commands in robot-link/outbox.ts,
 * shed requests in plugins/load-shedding.ts), and gauges read at scrape time from what the server already holds
 * (the gateway's robots, the open live streams, the outbox tables) through prom-client's `collect()`, so no state
 * is kept twice. Every metric is of this process: several server processes are several scrape targets.
 */
import { sql } from 'drizzle-orm';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { z } from 'zod';
import { RobotMode } from '@uvd/contracts';
import type { Db } from '../db/client.ts';
import type { Stream } from '../live/bus.ts';
import type { Fleet } from '../robot-link/fleet.ts';

/** Why the load shedder refused a request (plugins/load-shedding.ts). */
export type ShedReason = 'in_flight' | 'event_loop_delay' | 'event_loop_utilization' | 'live_streams';

/** What the command outbox reports of each command (robot-link/outbox.ts). */
export interface CommandMetrics {
  /** A command was published to its robot; `resend` when it had been published before. */
  sent(kind: string, resend: boolean): void;
  /** A command's acknowledgement committed `at`; `sentAt` is its last publish (null if the robot took it unsent). */
  acknowledged(command: { kind: string; sentAt: Date | null }, at: Date): void;
  givenUp(kind: string, reason: string): void;
}

export interface Metrics {
  readonly registry: Registry;
  readonly commands: CommandMetrics;
  readonly shed: (reason: ShedReason) => void;
  /** Counts `open` (one live stream route's open connections, live/sse.ts) under `stream` at every scrape. */
  watchLiveStreams(stream: Stream, open: ReadonlySet<unknown>): void;
  /** Starts the gauges read from the fleet gateway and the database. */
  observe(sources: { fleet: Fleet; db: Db }): void;
  /** The exposition text; the process's default metrics start with the first scrape (see `defaults`). */
  scrape(): Promise<string>;
}

/** Mode labels of robots online (RobotMode of the contracts, its `offline` left out: offline is a connection). */
const MODE_NAMES: ReadonlyMap<number, string> = new Map([
  [RobotMode.manual, 'manual'],
  [RobotMode.autonomous, 'autonomous'],
  [RobotMode.semiAutonomous, 'semi_autonomous'],
  [RobotMode.maintenance, 'maintenance'],
]);

/** The outboxes whose waiting rows are counted, as label values. */
const OUTBOXES = ['robot_commands', 'push_events', 'push_deliveries', 'webhook_deliveries', 'mail'] as const;

const count = z.coerce.number().int().min(0);
const Backlog = z.object({ robot_commands: count, push_events: count, push_deliveries: count, webhook_deliveries: count, mail: count });
const RobotCount = z.object({ robots: count });
const rowsOf = (result: unknown): unknown[] =>
  typeof result === 'object' && result !== null && 'rows' in result && Array.isArray(result.rows) ? result.rows : [];

export function createMetrics(): Metrics {
  const registry = new Registry();
  const registers = [registry];

  const sent = new Counter({
    name: 'uvd_robot_commands_sent_total',
    help: 'Robot commands (VDA 5050 orders and instant actions) published to their robot for the first time, by kind.',
    labelNames: ['kind'],
    registers,
  });
  const resent = new Counter({
    name: 'uvd_robot_command_resends_total',
    help: 'Robot commands published again because the robot had not acknowledged them yet, by kind.',
    labelNames: ['kind'],
    registers,
  });
  const acknowledged = new Counter({
    name: 'uvd_robot_commands_acknowledged_total',
    help: "Robot commands a robot's state acknowledged, by kind.",
    labelNames: ['kind'],
    registers,
  });
  const givenUp = new Counter({
    name: 'uvd_robot_commands_given_up_total',
    help: 'Robot commands given up without an acknowledgement, by kind and reason (unacknowledged in time, or superseded by a later one the robot took).',
    labelNames: ['kind', 'reason'],
    registers,
  });
  const roundTrip = new Histogram({
    name: 'uvd_robot_command_round_trip_seconds',
    help: "Seconds from a robot command's last publish to the robot state that acknowledged it.",
    buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers,
  });
  const shed = new Counter({
    name: 'uvd_http_requests_shed_total',
    help: 'Requests the load shedder answered 503 at once, by reason (too many in flight, event loop delay, event loop busy, too many live streams).',
    labelNames: ['reason'],
    registers,
  });

  const liveStreams: { stream: Stream; open: ReadonlySet<unknown> }[] = [];
  new Gauge({
    name: 'uvd_live_streams',
    help: 'Live streams (server-sent events) open now, by stream.',
    labelNames: ['stream'],
    registers,
    collect() {
      this.reset();
      for (const { stream, open } of liveStreams) this.inc({ stream }, open.size);
    },
  });

  let observed = false;
  const observe = ({ fleet, db }: { fleet: Fleet; db: Db }) => {
    if (observed) throw new Error('metrics observe the fleet and the database once');
    observed = true;
    new Gauge({
      name: 'uvd_robots',
      help: 'Robots by connection: online, stale (online but silent for FLEET_STALE_SECONDS) and offline (every other robot of the installation).',
      labelNames: ['connection'],
      registers,
      async collect() {
        // The links first: every gauge of one scrape reads the gateway at the same moment (they are collected at
        // once, and the others do not wait for a query).
        let online = 0;
        let stale = 0;
        for (const link of fleet.links().values()) {
          if (!link.online) continue;
          if (link.stale) stale += 1;
          else online += 1;
        }
        const total = RobotCount.parse(rowsOf(await db.execute(sql`SELECT count(*) AS robots FROM robots`))[0]).robots;
        this.set({ connection: 'online' }, online);
        this.set({ connection: 'stale' }, stale);
        this.set({ connection: 'offline' }, Math.max(0, total - online - stale));
      },
    });
    new Gauge({
      name: 'uvd_robots_by_mode',
      help: 'Robots online, by operating mode (manual, autonomous, semi_autonomous, maintenance).',
      labelNames: ['mode'],
      registers,
      collect() {
        const counts = new Map([...MODE_NAMES.values()].map((mode) => [mode, 0]));
        for (const link of fleet.links().values()) {
          const mode = MODE_NAMES.get(link.mode);
          if (link.online && mode !== undefined) counts.set(mode, (counts.get(mode) ?? 0) + 1);
        }
        for (const [mode, robots] of counts) this.set({ mode }, robots);
      },
    });
    new Gauge({
      name: 'uvd_robots_working',
      help: 'Robots online whose last state reports an order not finished (a job or a delivery under way).',
      registers,
      collect() {
        let working = 0;
        for (const link of fleet.links().values()) if (link.online && link.work?.order === true) working += 1;
        this.set(working);
      },
    });
    new Gauge({
      name: 'uvd_outbox_backlog',
      help: 'Rows waiting in an outbox: robot commands not acknowledged yet, push events due but not fanned out, and push deliveries, webhook deliveries and mails not sent yet (given-up ones not counted).',
      labelNames: ['outbox'],
      registers,
      async collect() {
        // One statement, each count on its table's partial index of waiting rows (db/schema.ts).
        const result = await db.execute(sql`SELECT
          (SELECT count(*) FROM robot_commands WHERE state IN ('pending', 'sent')) AS robot_commands,
          (SELECT count(*) FROM push_events WHERE fanned_out_at IS NULL AND due_at <= now()) AS push_events,
          (SELECT count(*) FROM push_deliveries WHERE status IN ('pending', 'sending')) AS push_deliveries,
          (SELECT count(*) FROM webhook_deliveries WHERE status IN ('pending', 'sending')) AS webhook_deliveries,
          (SELECT count(*) FROM mail_outbox WHERE status IN ('pending', 'sending')) AS mail`);
        const backlog = Backlog.parse(rowsOf(result)[0]);
        for (const outbox of OUTBOXES) this.set({ outbox }, backlog[outbox]);
      },
    });
  };

  /**
   * Node's process metrics (nodejs_eventloop_lag_seconds and its percentiles, heap, GC, handles, CPU). Started at the
   * first scrape rather than with the app: they enable an event loop monitor and a GC observer that live as long as
   * the process, which the many apps a test file builds need not carry.
   */
  let defaults = false;
  const scrape = async () => {
    if (!defaults) {
      defaults = true;
      collectDefaultMetrics({ register: registry });
    }
    return registry.metrics();
  };

  return {
    registry,
    commands: {
      sent: (kind, resend) => {
        (resend ? resent : sent).inc({ kind });
      },
      acknowledged: (command, at) => {
        acknowledged.inc({ kind: command.kind });
        if (command.sentAt !== null) roundTrip.observe(Math.max(0, at.getTime() - command.sentAt.getTime()) / 1000);
      },
      givenUp: (kind, reason) => {
        givenUp.inc({ kind, reason });
      },
    },
    shed: (reason) => {
      shed.inc({ reason });
    },
    watchLiveStreams: (stream, open) => {
      liveStreams.push({ stream, open });
    },
    observe,
    scrape,
  };
}
