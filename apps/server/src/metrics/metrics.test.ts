/**
 * GET /metrics over real HTTP: who may read it, and that its figures follow what happens (a robot connecting and
 * leaving, a command sent through the real MQTT link and acknowledged or given up, a live stream opened and
 * closed, a request shed). The exposition text is parsed, not matched as fixed strings.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, ErrorCode, METRICS_CONTENT_TYPE } from '@uvd/contracts';
import { loadConfig } from '../config.ts';
import { until } from '../testing/assertions.ts';
import { connectRobotRow, createRobotRow, orderUnderWay, type TestRobot } from '../testing/fleet-fixtures.ts';
import { startTestServer, type TestServer, type TestUser } from '../testing/harness.ts';
import { openSse, type SseClient } from '../testing/live-fixtures.ts';

const TOKEN = 'metrics-token-0123456789abcdefghij';
/** Two requests in flight fill the server: a third is shed. */
const MAX_IN_FLIGHT = 2;

let server: TestServer;
let orgId: string;
let admin: TestUser;
const robots: TestRobot[] = [];
const streams: SseClient[] = [];

beforeAll(async () => {
  server = await startTestServer({
    metricsToken: TOKEN,
    // A command the robot never acknowledges is given up within a test's patience.
    commandGiveUpMs: 4000,
    loadShedding: { ...loadConfig({}).loadShedding, maxInFlight: MAX_IN_FLIGHT, maxEventLoopDelayMs: 0, maxEventLoopUtilization: 0 },
  });
  orgId = await server.createOrg();
  admin = await server.createUser(orgId, ['done-admin']);
});
afterAll(async () => {
  for (const stream of streams) stream.close();
  for (const robot of robots) await robot.close().catch(() => undefined);
  await server.close();
});

// ---------------------------------------------------------------- reading the exposition format

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}
interface Exposition {
  samples: Sample[];
  help: Map<string, string>;
  type: Map<string, string>;
}

const unescape = (text: string) => text.replace(/\\(.)/g, (_, char: string) => (char === 'n' ? '\n' : char));

/** Prometheus text format 0.0.4: `# HELP name text`, `# TYPE name type`, `name{label="value",…} number`. */
function parseExposition(text: string): Exposition {
  const exposition: Exposition = { samples: [], help: new Map(), type: new Map() };
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    const comment = /^# (HELP|TYPE) ([a-zA-Z_:][a-zA-Z0-9_:]*) (.*)$/.exec(line);
    if (comment) {
      const [, kind, name = '', rest = ''] = comment;
      (kind === 'HELP' ? exposition.help : exposition.type).set(name, unescape(rest));
      continue;
    }
    const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!sample) throw new Error(`not an exposition line: ${line}`);
    const [, name = '', labelText = '', value = ''] = sample;
    const labels: Record<string, string> = {};
    for (const match of labelText.matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[match[1] ?? ''] = unescape(match[2] ?? '');
    exposition.samples.push({ name, labels, value: Number(value) });
  }
  return exposition;
}

/** The sum of `name`'s samples whose labels include `labels` (0 when there is none, as for a counter never added to). */
const valueOf = (exposition: Exposition, name: string, labels: Record<string, string> = {}): number =>
  exposition.samples
    .filter((sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value))
    .reduce((sum, sample) => sum + sample.value, 0);

const scrapeAs = (authorization?: string, target: TestServer = server) =>
  fetch(`${target.url}/metrics`, authorization === undefined ? {} : { headers: { authorization } });

async function scrape(): Promise<Exposition> {
  const response = await scrapeAs(`Bearer ${TOKEN}`);
  const text = await response.text();
  if (response.status !== 200) throw new Error(`GET /metrics answered ${response.status}: ${text}`);
  return parseExposition(text);
}

const command = (robotId: string, name: string) =>
  server.request('POST', `/api/command/${robotId}`, { token: admin.token, query: { command: name } });

/** A robot of the organization, connected, in Autonomous mode, with an order under way (a pause means something). */
async function connectedRobot(): Promise<{ id: string; robot: TestRobot }> {
  const row = await createRobotRow(server.context.db, orgId);
  const robot = await connectRobotRow(server.context.fleet.brokerUrl, row);
  robots.push(robot);
  await robot.publishState({ ...orderUnderWay, operatingMode: 'AUTOMATIC' });
  await until(
    async () => server.context.fleet.link(row.id),
    (link) => link?.online === true && link.mode === 2,
  );
  return { id: row.id, robot };
}

// ---------------------------------------------------------------- tests

describe('GET /metrics: who may read it', () => {
  const expectRefused = async (response: Response) => {
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toMatch(/^Bearer /);
    expect(ApiError.parse(await response.json()).error).toBe(ErrorCode.unauthorized);
  };

  it('refuses a request without a token', async () => {
    await expectRefused(await scrapeAs());
  });

  it('refuses a wrong token, the right one of another scheme or cut short, and a signed-in user', async () => {
    await expectRefused(await scrapeAs(`Bearer ${TOKEN}x`));
    await expectRefused(await scrapeAs(`Bearer ${TOKEN.slice(0, -1)}`));
    await expectRefused(await scrapeAs(`Basic ${TOKEN}`));
    // The metrics count every organization's robots: no organization's user reads them, a superadmin neither.
    const superadmin = await server.createUser(orgId, ['done-superadmin']);
    await expectRefused(await scrapeAs(`Bearer ${superadmin.token}`));
  });

  it('answers the token with the text format: every uvd_ metric has its help and type, and the event loop is there', async () => {
    const response = await scrapeAs(`bearer ${TOKEN}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe(METRICS_CONTENT_TYPE);
    const exposition = parseExposition(await response.text());
    const families = [...exposition.type.keys()].filter((name) => name.startsWith('uvd_'));
    expect(families.sort()).toEqual([
      'uvd_http_requests_shed_total',
      'uvd_live_streams',
      'uvd_outbox_backlog',
      'uvd_robot_command_resends_total',
      'uvd_robot_command_round_trip_seconds',
      'uvd_robot_commands_acknowledged_total',
      'uvd_robot_commands_given_up_total',
      'uvd_robot_commands_sent_total',
      'uvd_robots',
      'uvd_robots_by_mode',
      'uvd_robots_working',
    ]);
    for (const name of families) expect(exposition.help.get(name), name).toMatch(/^[A-Z].{20,}/);
    expect(exposition.type.get('nodejs_eventloop_lag_seconds')).toBe('gauge');
    expect(valueOf(exposition, 'nodejs_eventloop_lag_seconds')).toBeGreaterThanOrEqual(0);
    // Every outbox is reported, even when empty.
    for (const outbox of ['robot_commands', 'push_events', 'push_deliveries', 'webhook_deliveries', 'mail']) {
      expect(exposition.samples.some((sample) => sample.name === 'uvd_outbox_backlog' && sample.labels.outbox === outbox), outbox).toBe(true);
    }
  });

  it('answers 404 while no METRICS_TOKEN is set', async () => {
    const plain = await startTestServer();
    try {
      const response = await scrapeAs(`Bearer ${TOKEN}`, plain);
      expect(response.status).toBe(404);
      expect(ApiError.parse(await response.json()).message).toMatch(/METRICS_TOKEN/);
    } finally {
      await plain.close();
    }
  });
});

describe('GET /metrics: the figures follow the installation', () => {
  it('counts robots by connection, mode and work, and a robot that leaves as offline', async () => {
    const before = await scrape();
    const { robot } = await connectedRobot();
    const connected = await scrape();
    expect(valueOf(connected, 'uvd_robots', { connection: 'online' })).toBe(valueOf(before, 'uvd_robots', { connection: 'online' }) + 1);
    expect(valueOf(connected, 'uvd_robots')).toBe(valueOf(before, 'uvd_robots') + 1);
    expect(valueOf(connected, 'uvd_robots_by_mode', { mode: 'autonomous' })).toBe(valueOf(before, 'uvd_robots_by_mode', { mode: 'autonomous' }) + 1);
    expect(valueOf(connected, 'uvd_robots_working')).toBe(valueOf(before, 'uvd_robots_working') + 1);

    await robot.publishConnection('OFFLINE');
    const gone = await until(scrape, (exposition) => valueOf(exposition, 'uvd_robots', { connection: 'online' }) === valueOf(before, 'uvd_robots', { connection: 'online' }));
    expect(valueOf(gone, 'uvd_robots', { connection: 'offline' })).toBe(valueOf(before, 'uvd_robots', { connection: 'offline' }) + 1);
    expect(valueOf(gone, 'uvd_robots_working')).toBe(valueOf(before, 'uvd_robots_working'));
  });

  it('counts a command sent to the robot, waiting in the outbox until acknowledged, and its round trip', async () => {
    const { id, robot } = await connectedRobot();
    const before = await scrape();
    expect((await command(id, 'pause')).status).toBe(200);
    const action = await robot.waitForInstantAction('startPause');
    // The robot may read the command before the outbox, having published it, records and counts the send.
    const sent = await until(scrape, (exposition) => valueOf(exposition, 'uvd_robot_commands_sent_total') > valueOf(before, 'uvd_robot_commands_sent_total'));
    expect(valueOf(sent, 'uvd_robot_commands_sent_total')).toBe(valueOf(before, 'uvd_robot_commands_sent_total') + 1);
    expect(valueOf(sent, 'uvd_outbox_backlog', { outbox: 'robot_commands' })).toBe(valueOf(before, 'uvd_outbox_backlog', { outbox: 'robot_commands' }) + 1);

    await robot.publishState({ actionStates: [{ actionId: action.actionId, actionType: 'startPause', actionStatus: 'FINISHED' }] });
    const acknowledged = await until(
      scrape,
      (exposition) => valueOf(exposition, 'uvd_robot_commands_acknowledged_total') === valueOf(before, 'uvd_robot_commands_acknowledged_total') + 1,
    );
    expect(valueOf(acknowledged, 'uvd_robot_command_round_trip_seconds_count')).toBe(valueOf(before, 'uvd_robot_command_round_trip_seconds_count') + 1);
    const roundTrip = valueOf(acknowledged, 'uvd_robot_command_round_trip_seconds_sum') - valueOf(before, 'uvd_robot_command_round_trip_seconds_sum');
    expect(roundTrip).toBeGreaterThanOrEqual(0);
    expect(roundTrip).toBeLessThan(10);
    expect(valueOf(acknowledged, 'uvd_outbox_backlog', { outbox: 'robot_commands' })).toBe(valueOf(before, 'uvd_outbox_backlog', { outbox: 'robot_commands' }));
    expect(valueOf(acknowledged, 'uvd_robot_commands_given_up_total')).toBe(valueOf(before, 'uvd_robot_commands_given_up_total'));
  });

  it('counts a command the robot never acknowledges as resent, then given up', async () => {
    const { id, robot } = await connectedRobot();
    const before = await scrape();
    expect((await command(id, 'pause')).status).toBe(200);
    await robot.waitForInstantAction('startPause');
    // The robot keeps reporting, so it stays online, but never lists the action.
    const reporting = setInterval(() => void robot.publishState().catch(() => undefined), 500);
    try {
      const given = await until(
        scrape,
        (exposition) => valueOf(exposition, 'uvd_robot_commands_given_up_total', { reason: 'unacknowledged' }) === valueOf(before, 'uvd_robot_commands_given_up_total', { reason: 'unacknowledged' }) + 1,
        15_000,
      );
      expect(valueOf(given, 'uvd_robot_command_resends_total')).toBeGreaterThan(valueOf(before, 'uvd_robot_command_resends_total'));
      expect(valueOf(given, 'uvd_robot_commands_acknowledged_total')).toBe(valueOf(before, 'uvd_robot_commands_acknowledged_total'));
      expect(valueOf(given, 'uvd_outbox_backlog', { outbox: 'robot_commands' })).toBe(valueOf(before, 'uvd_outbox_backlog', { outbox: 'robot_commands' }));
    } finally {
      clearInterval(reporting);
    }
  });

  it('counts an open live stream until it closes', async () => {
    const before = valueOf(await scrape(), 'uvd_live_streams', { stream: 'robots' });
    const stream = await openSse(server.url, '/api/robot/stream', { token: admin.token });
    streams.push(stream);
    expect(stream.status).toBe(200);
    expect(valueOf(await scrape(), 'uvd_live_streams', { stream: 'robots' })).toBe(before + 1);
    stream.close();
    await until(scrape, (exposition) => valueOf(exposition, 'uvd_live_streams', { stream: 'robots' }) === before);
  });

  it('is answered while the API sheds requests, and counts them', async () => {
    const before = valueOf(await scrape(), 'uvd_http_requests_shed_total', { reason: 'in_flight' });
    // Requests whose bodies are still arriving stay in flight until the rest is sent. One more than the limit, and
    // nothing else meanwhile: once one of them is refused, the others hold every place (plugins/load-shedding.test.ts).
    const { hostname, port } = new URL(server.url);
    const uploads = await Promise.all(
      Array.from({ length: MAX_IN_FLIGHT + 1 }, async () => {
        const socket = connect({ host: hostname, port: Number(port) });
        await new Promise<void>((resolve, reject) => {
          socket.once('connect', resolve);
          socket.once('error', reject);
        });
        socket.on('error', () => undefined);
        let reply = '';
        socket.setEncoding('utf8');
        socket.on('data', (chunk: string) => (reply += chunk));
        const body = JSON.stringify({ name: `upload-${Math.random().toString(36).slice(2)}` });
        socket.write(
          `POST /api/group/create HTTP/1.1\r\nHost: ${hostname}\r\nAuthorization: Bearer ${admin.token}\r\nConnection: close\r\n` +
            `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 4)}`,
        );
        return { socket, rest: body.slice(4), reply: () => reply };
      }),
    );
    try {
      const statusLines = () => uploads.map((upload) => upload.reply().split('\r\n')[0] ?? '').filter((line) => line !== '');
      await until(async () => statusLines(), (lines) => lines.length > 0);
      expect(statusLines()).toEqual(['HTTP/1.1 503 Service Unavailable']);
      const shed = await server.request('GET', '/api/jobs/v2/jobs', { token: admin.token });
      expect(shed.status).toBe(503);
      expect(ApiError.parse(shed.body).error).toBe(ErrorCode.overloaded);
      // The scrape is not shed: it sees the overload.
      expect(valueOf(await scrape(), 'uvd_http_requests_shed_total', { reason: 'in_flight' })).toBe(before + 2);
    } finally {
      for (const { socket, rest } of uploads) socket.end(rest);
    }
  });
});
