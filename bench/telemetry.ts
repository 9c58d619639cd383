/**
 * Telemetry end to end (issue 3 acceptance): R robots publish VDA 5050 states at 1 Hz into the fleet gateway
 * and C clients read GET /api/robot/stream; prints latency p50/p99 from a robot's publish to a client's receipt
 * of the robot_update, the server process's CPU and memory, beside a minimal MQTT→SSE relay (plain aedes + mqtt
 * + http, no validation, no database) measured in the same run as the baseline.
 *
 *   npx tsx bench/telemetry.ts [--robots 100,500,1000] [--clients 50,200] [--seconds 8] [--targets relay,server]
 *
 * The server (real app: embedded broker, gateway, PGlite in memory) and the relay each run in a child process,
 * so their CPU and RSS are their own; robots and clients run here. Robots move 5 cm per state, so every state
 * is a pose event; the pose's x identifies the state a client received. Prints figures; never fails on them.
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

const { values: args } = parseArgs({
  options: {
    role: { type: 'string', default: 'bench' },
    robots: { type: 'string', default: '100,500,1000' },
    clients: { type: 'string', default: '50,200' },
    seconds: { type: 'string', default: '8' },
    warmup: { type: 'string', default: '3' },
    targets: { type: 'string', default: 'relay,server' },
  },
});

const Ready = z.object({ url: z.string(), brokerUrl: z.string(), token: z.string(), password: z.string(), robotIds: z.array(z.string()) });
type Ready = z.infer<typeof Ready>;
const MANUFACTURER = 'bench';

// ---------------------------------------------------------------- child: the real server

async function runServer(robotCount: number): Promise<void> {
  const { buildApp } = await import('../apps/server/src/app.ts');
  const { loadConfig, LOAD_SHEDDING_OFF } = await import('../apps/server/src/config.ts');
  const { openDatabase } = await import('../apps/server/src/db/client.ts');
  const { organizations, robots, users } = await import('../apps/server/src/db/schema.ts');
  const { hashPassword } = await import('../apps/server/src/identity/passwords.ts');
  const { realmIssuer, signAccessToken } = await import('../apps/server/src/identity/tokens.ts');

  const database = await openDatabase({});
  const config = {
    ...loadConfig({ LOG_LEVEL: 'silent', SEED_DEMO: 'false', ...LOAD_SHEDDING_OFF }),
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
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--role', role, '--robots', String(robotCount)], {
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

function startPublishing(robots: Robot[]): void {
  robots.forEach((robot, index) => {
    const publish = () => {
      const x = (robot.seq++ % 2000) * 0.05;
      const state = {
        headerId: robot.seq,
        timestamp: new Date().toISOString(),
        version: '2.0.0',
        manufacturer: MANUFACTURER,
        serialNumber: robot.id,
        orderId: '',
        orderUpdateId: 0,
        lastNodeId: '',
        lastNodeSequenceId: 0,
        nodeStates: [],
        edgeStates: [],
        agvPosition: { x, y: index % 100, theta: 0, mapId: 'bench', positionInitialized: true },
        driving: true,
        actionStates: [],
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
  received: () => number;
  recording: { on: boolean };
  close: () => void;
}

async function openClients(target: Target, count: number): Promise<Clients> {
  const latencies: number[] = [];
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
                }
              });
            },
          );
          request.on('error', reject);
          requests.push(() => request.destroy());
        }),
    ),
  );
  return { latencies, received: () => received, recording, close: () => { requests.forEach((close) => { close(); }); } };
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
  /** CPU of this process (robots and clients): near 100 % the figures measure the load generator. */
  benchCpu: string;
}

async function measure(role: 'server' | 'relay', robotCount: number, clientCounts: number[], seconds: number, warmup: number): Promise<Row[]> {
  const target = await startTarget(role, robotCount);
  const pid = target.child.pid;
  if (pid === undefined) throw new Error('no pid');
  const rows: Row[] = [];
  try {
    const robots = await connectRobots(target, role);
    startPublishing(robots);
    await pause(warmup * 1000);
    for (const clientCount of clientCounts) {
      const clients = await openClients(target, clientCount);
      await pause(warmup * 1000);
      const before = usageOf(pid);
      const benchBefore = process.cpuUsage();
      const startedAt = performance.now();
      clients.recording.on = true;
      await pause(seconds * 1000);
      clients.recording.on = false;
      const elapsed = (performance.now() - startedAt) / 1000;
      const after = usageOf(pid);
      const benchUsed = process.cpuUsage(benchBefore);
      clients.close();
      const sorted = clients.latencies.sort((a, b) => a - b);
      const expected = robotCount * clientCount * elapsed;
      rows.push({
        target: role === 'server' ? 'gateway (server)' : 'baseline relay',
        robots: robotCount,
        clients: clientCount,
        delivered: `${((100 * clients.received()) / expected).toFixed(0)} %`,
        p50: percentile(sorted, 50).toFixed(1),
        p99: percentile(sorted, 99).toFixed(1),
        cpu: `${((100 * (after.cpuSeconds - before.cpuSeconds)) / elapsed).toFixed(0)} %`,
        rss: `${(after.rssBytes / 1048576).toFixed(0)} MB`,
        benchCpu: `${((benchUsed.user + benchUsed.system) / 1e4 / elapsed).toFixed(0)} %`,
      });
      await pause(500);
    }
    for (const robot of robots) {
      clearInterval(robot.timer);
      robot.client.end(true);
    }
  } finally {
    target.child.kill('SIGTERM');
    sentAt.clear();
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
