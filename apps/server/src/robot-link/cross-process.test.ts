import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RobotUpdate } from '@uvd/contracts';
import { buildApp, type App } from '../app.ts';
import { openDatabase, type Database } from '../db/client.ts';
import type { LiveEvent } from '../live/bus.ts';
import { connectRobotRow, createRobotRow, type TestRobot } from '../testing/fleet-fixtures.ts';
import { startTestServer, type TestServer } from '../testing/harness.ts';
import { openSse, type SseClient } from '../testing/live-fixtures.ts';
import { testEngine } from '../testing/test-database.ts';

// Telemetry is not recorded, yet a client of either server process sees it: the transient path crosses
// processes by NOTIFY, and each process ignores its own batches.
describe.skipIf(testEngine() !== 'postgres')('robot updates across server processes (needs TEST_DATABASE_URL)', () => {
  let processA: TestServer;
  let databaseB: Database;
  let processB: App;
  let urlB = '';
  const clients: SseClient[] = [];
  const robots: TestRobot[] = [];

  beforeAll(async () => {
    processA = await startTestServer();
    const url = processA.testDatabase.url;
    if (!url) throw new Error('process A is not on PostgreSQL');
    databaseB = await openDatabase({ databaseUrl: url });
    processB = await buildApp({ config: processA.context.config, database: databaseB });
    await processB.app.listen({ port: 0, host: '127.0.0.1' });
    urlB = `http://127.0.0.1:${(processB.app.server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    for (const robot of robots) await robot.close();
    for (const client of clients) client.close();
    await processB.app.close();
    await databaseB.close();
    await processA.close();
  });

  it('delivers a transient event once to the subscribers of both processes', async () => {
    const orgId = await processA.createOrg();
    const key = randomUUID();
    const onA: LiveEvent[] = [];
    const onB: LiveEvent[] = [];
    const stopA = processA.context.bus.subscribe('robots', (event) => {
      if (event.key === key) onA.push(event);
    });
    const stopB = processB.context.bus.subscribe('robots', (event) => {
      if (event.key === key) onB.push(event);
    });
    for (let n = 0; n < 3; n++) {
      processA.context.bus.publishTransient({ orgId, stream: 'robots', key, type: 'robot_update', payload: { n } });
    }
    const deadline = Date.now() + 3000;
    while (onB.length < 3 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    await new Promise((resolve) => setTimeout(resolve, 200));
    stopA();
    stopB();
    expect(onA.map((event) => event.payload)).toEqual([{ n: 0 }, { n: 1 }, { n: 2 }]);
    expect(onB.map((event) => event.payload)).toEqual([{ n: 0 }, { n: 1 }, { n: 2 }]);
    expect(onB.every((event) => event.transient === true && event.id === 0)).toBe(true);
  });

  it("streams a robot's state reported to process A to a robot stream client of process B", async () => {
    const orgId = await processA.createOrg();
    const admin = await processA.createUser(orgId, ['done-admin']);
    const row = await createRobotRow(processA.context.db, orgId);
    const onB = await openSse(urlB, '/api/robot/stream', { token: admin.token, query: { robot_list: row.id } });
    clients.push(onB);
    const robot = await connectRobotRow(processA.context.fleet.brokerUrl, row);
    robots.push(robot);
    await robot.publishState({ batteryState: { batteryCharge: 44, charging: false } });
    const frame = await onB.waitFor((f) => f.event === 'robot_update' && f.data.includes('"battery"'));
    expect(RobotUpdate.parse(JSON.parse(frame.data))).toEqual({ robot_id: row.id, field: 'battery', value: 44, charging_status: 0 });
  });
});
