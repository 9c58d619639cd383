/**
 * Telemetry end to end: R robots publish VDA 5050 states at 1 Hz into the fleet gateway
 * and C clients read GET /api/robot/stream; prints latency p50/p99 from a robot's publish to a client's receipt
 * of the robot_update, the server process's CPU and memory, beside a minimal MQTT→SSE relay (plain aedes + mqtt
 * + http, no validation, no database) measured in the same run as the baseline.
 *
 *   npx tsx bench/telemetry.ts [--robots 100,500,1000] [--clients 50,200] [--seconds 8] [--targets relay,server]
 *                              [--jobs 20] [--room-seconds 3] [--database postgres://…] [--cpu-prof dir]
 *
 * The server (real app: embedded broker, gateway, PGlite in memory) and the relay each run in a child process,
 * so their CPU and RSS are their own; robots and clients run here. Robots move 5 cm per state, so every state
 * is a pose event; the pose's x identifies the state a client received. Prints figures; never fails on them.
 *
 * With --jobs N the server is measured twice in the same run, with the same robots and clients: first as
 * above, then while N of the robots run real jobs: each job is created and started through the API (3 rooms on
 * a floor); the robot takes the order from MQTT, reports each room's uvd_disinfect RUNNING for --room-seconds,
 * then FINISHED, on its floor's map, and the next job starts once the server has completed the last. So the
 * server writes room results, trajectory points, job changes and logs while telemetry is measured; the row
 * shows the p99 of the job robots' own poses too.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer as createHttpServer, get, type ServerResponse } from 'node:http';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Aedes } from 'aedes';
import mqtt, { type MqttClient } from 'mqtt';
import { z } from 'zod';
import { retryAfterMs } from '@uvd/contracts';

const { values: args } = parseArgs({
  options: {
    role: { type: 'string', default: 'bench' },
    robots: { type: 'string', default: '100,500,1000' },
    clients: { type: 'string', default: '50,200' },
    seconds: { type: 'string', default: '8' },
    warmup: { type: 'string', default: '3' },
    targets: { type: 'string', default: 'relay,server' },
    jobs: { type: 'string', default: '0' },
    /** A PostgreSQL server to run the server on (a scratch database, dropped after); PGlite in memory if not given. */
    database: { type: 'string', default: '' },
    'room-seconds': { type: 'string', default: '3' },
    /** A folder to write the server process's CPU profile to (node --cpu-prof), to see where its time goes. */
    'cpu-prof': { type: 'string', default: '' },
  },
});

const Ready = z.object({
  url: z.string(),
  brokerUrl: z.string(),
  token: z.string(),
  password: z.string(),
  robotIds: z.array(z.string()),
  /** The floor and its rooms jobs run on (--jobs only). */
  floorId: z.string().optional(),
  roomIds: z.array(z.string()).optional(),
});
type Ready = z.infer<typeof Ready>;
const MANUFACTURER = 'bench';

// ---------------------------------------------------------------- child: the real server

async function runServer(robotCount: number): Promise<void> {
  const { buildApp } = await import('../apps/server/src/app.ts');
  const { loadConfig } = await import('../apps/server/src/config.ts');
  const { createScratchDatabase } = await import('../apps/server/src/db/scratch-database.ts');
  const { buildings, floors, organizations, robots, rooms, users } = await import('../apps/server/src/db/schema.ts');
  const { hashPassword } = await import('../apps/server/src/identity/passwords.ts');
  const { realmIssuer, signAccessToken } = await import('../apps/server/src/identity/tokens.ts');

  const scratch = await createScratchDatabase(args.database || undefined, 'uvd_bench');
  const { database } = scratch;
  process.once('SIGTERM', () => {
    void scratch.drop().finally(() => process.exit(0));
  });
  const config = {
    // Load shedding as deployed: the clients' streams are admitted by their own limit (LIVE_MAX_STREAMS), not
    // shed for the loop the robots keep busy; the --jobs calls may be, and wait their Retry-After.
    ...loadConfig({ LOG_LEVEL: 'silent', SEED_DEMO: 'false' }),
    port: 0,
    host: '127.0.0.1',
    mqttPort: 0,
    mqttUrl: undefined,
  };
  const { app, context } = await buildApp({ config, database });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  const orgId = `bench-${randomUUID().slice(0, 8)}`;
  await database.db.insert(organizations).values({ id: orgId, name: orgId, uvcDoses: [10, 20], defaultDose: 20 });
  const password = randomUUID();
  // One hash for every robot: a thousand argon2 hashes would only slow the set-up.
  const passwordHash = await hashPassword(password);
  const robotIds = Array.from({ length: robotCount }, () => randomUUID());
  for (let start = 0; start < robotIds.length; start += 500) {
    await database.db.insert(robots).values(
      robotIds.slice(start, start + 500).map((id, n) => ({
        id,
        orgId,
        name: `bench-${start + n}`,
        manufacturer: MANUFACTURER,
        serialNumber: id,
        mqttPasswordHash: passwordHash,
      })),
    );
  }
  const [user] = await database.db
    .insert(users)
    .values({ orgId, username: 'bench', firstName: 'Bench', lastName: 'Admin', email: 'bench@example.test', passwordHash, roles: ['done-admin'] })
    .returning({ id: users.id });
  if (!user) throw new Error('user not created');
  const token = await signAccessToken(
    { userId: user.id, orgId, username: 'bench', roles: ['done-admin'], firstName: 'Bench', lastName: 'Admin', email: '', groups: [] },
    { keys: context.keys, issuer: realmIssuer(`${url}/idp`, orgId), clientId: config.clientId, ttlSeconds: 3600, sessionId: randomUUID(), scope: 'openid' },
  );
  const ready: Ready = { url, brokerUrl: context.fleet.brokerUrl, token, password, robotIds };
  if (Number(args.jobs) > 0) {
    // A floor with three rooms in a row, 5 m apart, for the jobs.
    const [building] = await database.db.insert(buildings).values({ orgId, name: 'Bench building' }).returning({ id: buildings.id });
    if (!building) throw new Error('building not created');
    const [floor] = await database.db
      .insert(floors)
      .values({ orgId, buildingId: building.id, name: 'Bench floor', level: 0 })
      .returning({ id: floors.id });
    if (!floor) throw new Error('floor not created');
    const inserted = await database.db
      .insert(rooms)
      .values(
        [0, 1, 2].map((index) => ({
          orgId,
          buildingId: building.id,
          floorId: floor.id,
          name: `Bench room ${index + 1}`,
          orderNo: index,
          polygon: [
            { x: index * 5, y: 0 },
            { x: index * 5 + 4, y: 0 },
            { x: index * 5 + 4, y: 4 },
            { x: index * 5, y: 4 },
          ],
          entryPoint: { x: index * 5 + 2, y: 2, theta: 0 },
        })),
      )
      .returning({ id: rooms.id });
    ready.floorId = floor.id;
    ready.roomIds = inserted.map((row) => row.id);
  }
  process.stdout.write(`${JSON.stringify(ready)}\n`);
}

// ---------------------------------------------------------------- child: the baseline relay

interface BenchState {
  serialNumber: string;
  agvPosition: { x: number; y: number; theta: number };
}

/** The relay checks only what it reads: it stands for "no validation". */
function isBenchState(value: unknown): value is BenchState {
  if (typeof value !== 'object' || value === null || !('serialNumber' in value) || !('agvPosition' in value)) return false;
  const position = value.agvPosition;
  return typeof value.serialNumber === 'string' && typeof position === 'object' && position !== null && 'x' in position;
}

async function runRelay(robotCount: number): Promise<void> {
  const broker = await Aedes.createBroker();
  // As the embedded broker does: no Nagle delay on small packets.
  const mqttServer = createNetServer((socket) => {
    socket.setNoDelay(true);
    broker.handle(socket);
  });
  await new Promise<void>((resolve) => mqttServer.listen(0, '127.0.0.1', resolve));
  const brokerUrl = `mqtt://127.0.0.1:${(mqttServer.address() as AddressInfo).port}`;
  const clients = new Set<ServerResponse>();
  const http = createHttpServer((request, response) => {
    response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    response.socket?.setNoDelay(true);
    response.write(': connected\n\n');
    clients.add(response);
    request.on('close', () => clients.delete(response));
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const relay = await mqtt.connectAsync(brokerUrl);
  relay.on('message', (topic, payload) => {
    const state: unknown = JSON.parse(payload.toString('utf8'));
    if (!isBenchState(state)) return;
    const { x, y, theta } = state.agvPosition;
    const frame = `event: robot_update\ndata: ${JSON.stringify({ robot_id: state.serialNumber, field: 'pose', value: { x, y, theta, floor_id: null } })}\n\n`;
    for (const client of clients) client.write(frame);
  });
  await relay.subscribeAsync('uagv/v2/+/+/state');
  const ready: Ready = {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}`,
    brokerUrl,
    token: '',
    password: '',
    robotIds: Array.from({ length: robotCount }, () => randomUUID()),
  };
  process.stdout.write(`${JSON.stringify(ready)}\n`);
}

// ---------------------------------------------------------------- the bench

interface Target {
  child: ChildProcess;
  ready: Ready;
}

async function startTarget(role: 'server' | 'relay', robotCount: number): Promise<Target> {
  const profile = role === 'server' && args['cpu-prof'] ? ['--cpu-prof', '--cpu-prof-dir', args['cpu-prof']] : [];
  const child = spawn(process.execPath, [...profile, '--import', 'tsx', fileURLToPath(import.meta.url), '--role', role, '--robots', String(robotCount), '--jobs', args.jobs, '--database', args.database], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const ready = await new Promise<Ready>((resolve, reject) => {
    let buffered = '';
    child.stdout.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      const line = buffered.split('\n')[0];
      if (line !== undefined && buffered.includes('\n')) resolve(Ready.parse(JSON.parse(line)));
    });
    child.once('exit', (code) => { reject(new Error(`${role} exited with ${code}`)); });
  });
  return { child, ready };
}

/**
 * Stops a target and waits for it to end: a server still busy with a backlog when told to stop has been seen to
 * outlive the bench by minutes, taking a core from the runs after it. Killed if not gone within 10 s.
 */
async function stopTarget(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => { resolve(); }));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

/** CPU seconds (user + system) and RSS bytes of a process, from /proc (Linux). */
function usageOf(pid: number): { cpuSeconds: number; rssBytes: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  const rssPages = Number(fields[21]);
  return { cpuSeconds: ticks / 100, rssBytes: rssPages * 4096 };
}

interface Robot {
  client: MqttClient;
  id: string;
  timer?: NodeJS.Timeout;
  seq: number;
  /** Set for a robot that runs jobs: the map it reports, and the order it works on. */
  job?: JobRobot;
}

interface JobRobot {
  floorId: string;
  order: { orderId: string; orderUpdateId: number; actionIds: string[]; receivedAt: number } | undefined;
  /** Jobs the server completed (ended while this robot ran them). */
  completed: number;
}

const OrderOnWire = z.object({
  orderId: z.string(),
  orderUpdateId: z.number(),
  nodes: z.array(z.object({ actions: z.array(z.object({ actionId: z.string(), actionType: z.string() })) })),
});

/** What a job robot reports of its order now: each room RUNNING for `roomMs`, then FINISHED, one after another. */
function actionStatesOf(job: JobRobot, roomMs: number): { actionId: string; actionType: string; actionStatus: string }[] {
  const order = job.order;
  if (!order) return [];
  const elapsed = Date.now() - order.receivedAt;
  return order.actionIds.map((actionId, index) => ({
    actionId,
    actionType: 'uvd_disinfect',
    actionStatus: elapsed >= (index + 1) * roomMs ? 'FINISHED' : elapsed >= index * roomMs ? 'RUNNING' : 'WAITING',
  }));
}

/** When each (robot, x) state was published, for the clients to look up. */
const sentAt = new Map<string, number>();
const keyOf = (robotId: string, x: number) => `${robotId}:${x.toFixed(2)}`;

async function connectRobots(target: Target, role: 'server' | 'relay'): Promise<Robot[]> {
  const robots: Robot[] = [];
  const ids = target.ready.robotIds;
  for (let start = 0; start < ids.length; start += 50) {
    const batch = await Promise.all(
      ids.slice(start, start + 50).map(async (id) => {
        const client = await mqtt.connectAsync(target.ready.brokerUrl, {
          clientId: `bench-${id}`,
          reconnectPeriod: 0,
          ...(role === 'server' ? { username: `${MANUFACTURER}/${id}`, password: target.ready.password } : {}),
        });
        return { client, id, seq: 0 };
      }),
    );
    robots.push(...batch);
  }
  return robots;
}

function startPublishing(robots: Robot[], roomMs: number): void {
  robots.forEach((robot, index) => {
    const publish = () => {
      const x = (robot.seq++ % 2000) * 0.05;
      const job = robot.job;
      const state = {
        headerId: robot.seq,
        timestamp: new Date().toISOString(),
        version: '2.0.0',
        manufacturer: MANUFACTURER,
        serialNumber: robot.id,
        orderId: job?.order?.orderId ?? '',
        orderUpdateId: job?.order?.orderUpdateId ?? 0,
        lastNodeId: '',
        lastNodeSequenceId: 0,
        nodeStates: [],
        edgeStates: [],
        agvPosition: { x, y: index % 100, theta: 0, mapId: job?.floorId ?? 'bench', positionInitialized: true },
        driving: true,
        actionStates: job ? actionStatesOf(job, roomMs) : [],
        batteryState: { batteryCharge: 80, charging: false },
        operatingMode: 'AUTOMATIC',
        errors: [],
        safetyState: { eStop: 'NONE', fieldViolation: false },
      };
      sentAt.set(keyOf(robot.id, x), performance.now());
      robot.client.publish(`uagv/v2/${MANUFACTURER}/${robot.id}/state`, JSON.stringify(state));
    };
    // Spread over the second, as independent robots would be.
    setTimeout(() => {
      publish();
      robot.timer = setInterval(publish, 1000);
    }, (index * 1000) / robots.length);
  });
}

const ROBOT_ID = /"robot_id":"([^"]+)"/;
const X = /"x":(-?[\d.e+-]+)/;

interface Clients {
  latencies: number[];
  /** Latencies of the robots that run jobs. */
  jobLatencies: number[];
  received: () => number;
  recording: { on: boolean };
  close: () => void;
}

async function openClients(target: Target, count: number, jobRobotIds: ReadonlySet<string>): Promise<Clients> {
  const latencies: number[] = [];
  const jobLatencies: number[] = [];
  const recording = { on: false };
  let received = 0;
  const requests: (() => void)[] = [];
  await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<void>((resolve, reject) => {
          const request = get(
            `${target.ready.url}/api/robot/stream`,
            { headers: { accept: 'text/event-stream', ...(target.ready.token ? { authorization: `Bearer ${target.ready.token}` } : {}) } },
            (response) => {
              if (response.statusCode !== 200) {
                reject(new Error(`stream answered ${response.statusCode}`));
                return;
              }
              resolve();
              let rest = '';
              response.setEncoding('utf8');
              response.on('data', (chunk: string) => {
                const now = performance.now();
                const frames = (rest + chunk).split('\n\n');
                rest = frames.pop() ?? '';
                if (!recording.on) return;
                for (const frame of frames) {
                  // The client side must stay cheaper than the server: 100 000 frames a second at 500×200.
                  // Payloads are the server's own serialisation, so the fields are found by position.
                  if (!frame.includes('"field":"pose"')) continue;
                  const id = ROBOT_ID.exec(frame)?.[1];
                  const x = X.exec(frame)?.[1];
                  if (id === undefined || x === undefined) continue;
                  const sent = sentAt.get(keyOf(id, Number(x)));
                  if (sent === undefined) continue;
                  received++;
                  latencies.push(now - sent);
                  if (jobRobotIds.has(id)) jobLatencies.push(now - sent);
                }
              });
            },
          );
          request.on('error', reject);
          requests.push(() => request.destroy());
        }),
    ),
  );
  return { latencies, jobLatencies, received: () => received, recording, close: () => { requests.forEach((close) => { close(); }); } };
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Row {
  target: string;
  robots: number;
  clients: number;
  delivered: string;
  p50: string;
  p99: string;
  cpu: string;
  rss: string;
  /** p99 of the job robots' poses, and jobs completed while measuring (--jobs). */
  jobRobotsP99: string;
  jobsDone: string;
  /** CPU of this process (robots and clients): near 100 % the figures measure the load generator. */
  benchCpu: string;
}

/** Runs jobs on `robots` until `stop.on`: create and start through the API, wait for the server to complete each. */
function runJobs(target: Target, robots: Robot[], roomMs: number, stop: { on: boolean }): Promise<void>[] {
  const { url, token, roomIds = [] } = target.ready;
  let shedReported = false;
  const call = async (method: string, path: string, body?: unknown): Promise<unknown> => {
    const response = await fetch(`${url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    // Shed before any handler ran (the robots keep the loop busy): sent again after the wait the server asked for.
    if (response.status === 503 && !stopped()) {
      await response.body?.cancel();
      if (!shedReported) console.error(`a bench job call was shed (503); sent again after its Retry-After`);
      shedReported = true;
      await pause(retryAfterMs(response.headers.get('retry-after')) ?? 1000);
      return call(method, path, body);
    }
    const json: unknown = await response.json();
    if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${JSON.stringify(json)}`);
    return json;
  };
  let reported = false;
  // Read through a call: the flag changes while a loop awaits.
  const stopped = () => stop.on;
  return robots.map(async (robot) => {
    const job = robot.job;
    if (!job) return;
    while (!stopped()) {
      try {
        const created = z.object({ job_id: z.string() }).parse(
          await call('POST', `/api/jobs/jobs/${robot.id}`, {
            name: 'Bench round',
            start_time: new Date(Date.now() + 24 * 3600_000).toISOString(),
            rooms: roomIds.map((room_id, order_no) => ({ room_id, order_no, dose: 10 })),
          }),
        );
        await call('POST', `/api/jobs/job/start?job_id=${created.job_id}`);
        // The robot needs this long; then the job is looked at once a second (the bench's reads stay few).
        await pause(roomIds.length * roomMs);
        const deadline = Date.now() + 20_000;
        while (Date.now() < deadline && !stopped()) {
          await pause(1000);
          const status = z.object({ status: z.string() }).parse(await call('GET', `/api/jobs/job/${created.job_id}`)).status;
          if (status === 'Completed') {
            job.completed++;
            break;
          }
        }
      } catch (error) {
        if (!reported && !stopped()) console.error('a bench job failed:', error instanceof Error ? error.message : error);
        reported = true;
        await pause(1000);
      }
    }
  });
}

async function measure(role: 'server' | 'relay', robotCount: number, clientCounts: number[], seconds: number, warmup: number): Promise<Row[]> {
  const target = await startTarget(role, robotCount);
  const pid = target.child.pid;
  if (pid === undefined) throw new Error('no pid');
  const rows: Row[] = [];
  const jobCount = role === 'server' ? Math.min(Number(args.jobs), robotCount) : 0;
  const roomMs = Number(args['room-seconds']) * 1000;
  try {
    const robots = await connectRobots(target, role);
    const jobRobots = robots.slice(0, jobCount);
    const floorId = target.ready.floorId;
    if (jobCount > 0 && floorId) {
      for (const robot of jobRobots) {
        const job: JobRobot = { floorId, order: undefined, completed: 0 };
        robot.job = job;
        robot.client.on('message', (_topic, payload) => {
          const order = OrderOnWire.safeParse(JSON.parse(payload.toString('utf8')));
          if (!order.success) return;
          const actionIds = order.data.nodes.flatMap((node) => node.actions.filter((action) => action.actionType === 'uvd_disinfect').map((action) => action.actionId));
          job.order = { orderId: order.data.orderId, orderUpdateId: order.data.orderUpdateId, actionIds, receivedAt: Date.now() };
        });
        await robot.client.subscribeAsync(`uagv/v2/${MANUFACTURER}/${robot.id}/order`);
      }
    }
    const jobRobotIds = new Set(jobRobots.map((robot) => robot.id));
    startPublishing(robots, roomMs);
    await pause(warmup * 1000);

    const measureOnce = async (clientCount: number, withJobs: boolean): Promise<Row> => {
      const clients = await openClients(target, clientCount, jobRobotIds);
      await pause(warmup * 1000);
      const before = usageOf(pid);
      const benchBefore = process.cpuUsage();
      const doneBefore = jobRobots.reduce((sum, robot) => sum + (robot.job?.completed ?? 0), 0);
      const startedAt = performance.now();
      clients.recording.on = true;
      await pause(seconds * 1000);
      clients.recording.on = false;
      const elapsed = (performance.now() - startedAt) / 1000;
      const after = usageOf(pid);
      const benchUsed = process.cpuUsage(benchBefore);
      const doneAfter = jobRobots.reduce((sum, robot) => sum + (robot.job?.completed ?? 0), 0);
      clients.close();
      const sorted = clients.latencies.sort((a, b) => a - b);
      const jobSorted = clients.jobLatencies.sort((a, b) => a - b);
      const expected = robotCount * clientCount * elapsed;
      await pause(500);
      return {
        target: role === 'server' ? (withJobs ? `gateway, ${jobCount} jobs running` : 'gateway (server)') : 'baseline relay',
        robots: robotCount,
        clients: clientCount,
        delivered: `${((100 * clients.received()) / expected).toFixed(0)} %`,
        p50: percentile(sorted, 50).toFixed(1),
        p99: percentile(sorted, 99).toFixed(1),
        cpu: `${((100 * (after.cpuSeconds - before.cpuSeconds)) / elapsed).toFixed(0)} %`,
        rss: `${(after.rssBytes / 1048576).toFixed(0)} MB`,
        jobRobotsP99: jobCount > 0 ? percentile(jobSorted, 99).toFixed(1) : '',
        jobsDone: jobCount > 0 ? String(doneAfter - doneBefore) : '',
        benchCpu: `${((benchUsed.user + benchUsed.system) / 1e4 / elapsed).toFixed(0)} %`,
      };
    };

    for (const clientCount of clientCounts) rows.push(await measureOnce(clientCount, false));
    if (jobCount > 0) {
      const stop = { on: false };
      const loops = runJobs(target, jobRobots, roomMs, stop);
      // Let the first jobs start and reach their rooms.
      await pause(warmup * 1000);
      for (const clientCount of clientCounts) rows.push(await measureOnce(clientCount, true));
      stop.on = true;
      await Promise.race([Promise.all(loops), pause(5000)]);
    }
    for (const robot of robots) {
      clearInterval(robot.timer);
      robot.client.end(true);
    }
  } finally {
    sentAt.clear();
    await stopTarget(target.child);
  }
  return rows;
}

async function main(): Promise<void> {
  const robotCount = Number(args.robots.split(',')[0]);
  if (args.role === 'server') return runServer(robotCount);
  if (args.role === 'relay') return runRelay(robotCount);
  const robotCounts = args.robots.split(',').map(Number);
  const clientCounts = args.clients.split(',').map(Number);
  const seconds = Number(args.seconds);
  const warmup = Number(args.warmup);
  // Stale entries would only grow the map: states older than 20 s are no longer awaited.
  const sweep = setInterval(() => {
    const horizon = performance.now() - 20_000;
    for (const [key, at] of sentAt) if (at < horizon) sentAt.delete(key);
  }, 5000);
  const rows: Row[] = [];
  for (const robots of robotCounts) {
    const roles = (['relay', 'server'] as const).filter((role) => args.targets.split(',').includes(role));
    for (const role of roles) {
      const measured = await measure(role, robots, clientCounts, seconds, warmup);
      for (const row of measured) console.error(`${row.target} ${row.robots}×${row.clients}: p50 ${row.p50} ms, p99 ${row.p99} ms`);
      rows.push(...measured);
    }
  }
  clearInterval(sweep);
  console.log(
    '\nEnd-to-end latency, robot publish → SSE client receipt (ms); CPU of the target process and of the load generator (100 % = one core); load average now',
    (await import('node:os')).loadavg().map((load) => load.toFixed(1)).join(' '),
  );
  console.table(rows);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
