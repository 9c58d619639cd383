/**
 * Push notifications end to end with real parts: a simulated robot over the embedded MQTT broker runs a job and
 * asks wait_to_enter; the server sends real encrypted Web Push messages (VAPID, aes128gcm) to a local stand-in
 * of a browser vendor's push service (testing/push-service.ts), which verifies the signature and decrypts them
 * with each subscription's own keys.
 */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SimRobot } from '@uvd/robot-sim';
import { Action, ApiError, LogEntry, RuntimeConfig } from '@uvd/contracts';
import { deviceSubscriptions, pushDeliveries, rooms } from '../db/schema.ts';
import { publishActionChange } from '../robot-link/lifecycle.ts';
import { insertAction } from '../robot-link/repository.ts';
import { markDecided } from '../actions/repository.ts';
import { createJobFor, executionWorld, waitUntil, type ExecutionWorld } from '../testing/execution-fixtures.ts';
import { startTestServer, type TestServer, type TestUser } from '../testing/harness.ts';
import { startLocalPushService, testPushConfig, type LocalPushService, type ReceivedPush, type TestSubscription } from '../testing/push-service.ts';

let pushService: LocalPushService;
let server: TestServer;
beforeAll(async () => {
  pushService = await startLocalPushService();
  server = await startTestServer({ push: testPushConfig(), schedulerPollMs: 50 });
});
afterAll(async () => {
  await server.close();
  await pushService.close();
});

const subscribeDevice = async (user: TestUser, topics: string[]): Promise<TestSubscription> => {
  const subscription = pushService.subscribe();
  for (const topic of topics) {
    const response = await server.request('POST', '/api/subscribe', { token: user.token, body: { token: subscription.token, topic } });
    expect(response.status).toBe(200);
  }
  return subscription;
};

const pushesTo = (subscription: TestSubscription): ReceivedPush[] =>
  pushService.received.filter((push) => push.subscriptionId === subscription.id);
const kindsTo = (subscription: TestSubscription) => pushesTo(subscription).map((push) => push.message.kind);

/** What the job runner publishes when a robot's battery falls below 20 % (robot-link/job-runner.ts). */
const publishBatteryLow = (w: ExecutionWorld, battery = 17) =>
  server.context.bus.publish({
    orgId: w.orgId,
    stream: 'robots',
    key: w.robotId,
    type: 'battery_low',
    payload: { robot_id: w.robotId, battery, charging_status: 0 },
  });

describe('pushes of a running job (simulated robot, local push service)', () => {
  it('sends job started, the prompt with its choices, and job completed to those who may see the robot, in their language; the answer from a notification is logged', async () => {
    const w = await executionWorld(server);
    const config = RuntimeConfig.parse((await server.request('GET', '/config.json')).body);
    expect(Buffer.from(config.vapidPublicKey, 'base64url')).toHaveLength(65);

    // The operator reads Finnish; they subscribe on both topics with one browser: one device.
    const settings = await server.request('POST', '/api/settings/settings', {
      token: w.operator.token,
      body: { language: 'fi', timezone: 'Europe/Helsinki' },
    });
    expect(settings.status).toBe(200);
    const operatorPhone = await subscribeDevice(w.operator, [w.operator.id, w.orgId]);
    const adminLaptop = await subscribeDevice(w.admin, [w.orgId]);
    // A teleoperator of another ward, on the organization's topic: never told about this ward's robot.
    const otherWard = await server.createUser(w.orgId, ['done-teleoperator'], { groupIds: [await server.createGroup(w.orgId)] });
    const otherWardPhone = await subscribeDevice(otherWard, [otherWard.id, w.orgId]);
    // An admin of another organization.
    const foreignOrg = await server.createOrg();
    const foreignAdmin = await server.createUser(foreignOrg, ['done-admin']);
    const foreignPhone = await subscribeDevice(foreignAdmin, [foreignAdmin.id, foreignOrg]);

    const sim = new SimRobot({
      brokerUrl: server.context.fleet.brokerUrl,
      manufacturer: w.robot.manufacturer,
      serialNumber: w.robot.serialNumber,
      password: w.mqttPassword,
      mapId: w.floorId,
      home: { x: 0, y: -2, theta: 0 },
      timeFactor: 60,
      stateIntervalMs: 200,
      tickMs: 20,
    });
    await sim.start();
    try {
      await waitUntil(async () => (server.context.fleet.link(w.robotId)?.mode === 2 ? true : undefined), 5000, 'Autonomous mode');
      await server.context.db.update(rooms).set({ readyForDisinfection: false }).where(eq(rooms.id, w.roomIds[1] ?? ''));
      const job = await createJobFor(server, w);
      const start = await server.request('POST', `/api/command/job/${job.job_id}`, { token: w.operator.token, query: { command: 'start' } });
      expect(start.status).toBe(200);

      await pushService.waitFor(() => kindsTo(operatorPhone).includes('prompt') && kindsTo(adminLaptop).includes('prompt'), 20_000);
      const prompt = pushesTo(operatorPhone).find((push) => push.message.kind === 'prompt')?.message;
      const open = Action.parse(
        (await server.request('GET', '/api/action/action', { token: w.operator.token, query: { job_id: job.job_id } })).body,
      );
      expect(prompt).toMatchObject({
        type: 'job',
        related_id: job.job_id,
        action_id: open.action_id,
        choices: ['confirm', 'skip'],
        choice_labels: { confirm: 'Vahvista', skip: 'Ohita' },
        url: `/job/${job.job_id}`,
        realm: w.orgId,
        title: 'Vahvista, että huone on tyhjä, jotta robotti voi mennä sisään',
      });
      const adminPrompt = pushesTo(adminLaptop).find((push) => push.message.kind === 'prompt');
      expect(adminPrompt?.message.title).toBe('Confirm the room is empty to enter');
      expect(adminPrompt?.urgency).toBe('high');
      expect(adminPrompt?.topic).toBe(adminPrompt?.message.push_id.replaceAll('-', ''));

      // As the service worker does for the notification's Confirm button.
      const answer = await server.request('POST', '/api/action/action/confirm', {
        token: w.operator.token,
        body: { action_id: open.action_id, confirm: true, source: 'notification' },
      });
      expect(answer.status).toBe(200);

      await pushService.waitFor(() => kindsTo(operatorPhone).includes('job_finished') && kindsTo(adminLaptop).includes('job_finished'), 20_000);
      expect(kindsTo(operatorPhone)).toEqual(['job_started', 'prompt', 'job_finished']);
      expect(kindsTo(adminLaptop)).toEqual(['job_started', 'prompt', 'job_finished']);
      const started = pushesTo(operatorPhone)[0]?.message;
      expect(started?.title).toBe('Tehtävä alkoi');
      expect(started?.body).toMatch(/^Ward round alkoi robotilla .+ klo \d{2}\.\d{2}\.$/);
      expect(pushesTo(adminLaptop)[2]?.message).toMatchObject({ title: 'Job completed', type: 'job', related_id: job.job_id });
      for (const push of [...pushesTo(operatorPhone), ...pushesTo(adminLaptop)]) {
        expect(push.vapidKey).toBe(config.vapidPublicKey);
        expect(push.ttl).toBeGreaterThan(0);
        expect(push.message.icon).toMatch(/^\/.+\.png$/);
      }
      expect(pushesTo(otherWardPhone)).toEqual([]);
      expect(pushesTo(foreignPhone)).toEqual([]);
      expect(pushService.rejected).toEqual([]);

      const log = LogEntry.parse((await server.request('GET', `/api/log/${job.job_id}`, { token: w.admin.token })).body);
      expect(log.attributes.prompts).toEqual([
        expect.objectContaining({
          action_id: open.action_id,
          button: 'wait_to_enter',
          answered_by: w.operator.username,
          confirm: true,
          source: 'notification',
        }),
      ]);
      expect(log.attributes.prompts[0]?.answered_at).not.toBeNull();
    } finally {
      await sim.stop();
    }
  });
});

describe('delivery', () => {
  it('sends a low battery push as type battery about the robot, and a 410 from the push service deletes that subscription', async () => {
    const w = await executionWorld(server);
    const kept = await subscribeDevice(w.admin, [w.orgId]);
    const expired = await subscribeDevice(w.operator, [w.operator.id, w.orgId]);
    pushService.answer(expired.id, 410);
    await publishBatteryLow(w);
    await pushService.waitFor(() => pushesTo(kept).length === 1);
    expect(pushesTo(kept)[0]?.message).toMatchObject({
      type: 'battery',
      kind: 'battery_low',
      related_id: w.robotId,
      url: `/map?robot=${w.robotId}`,
      title: 'Battery low',
    });
    expect(pushesTo(kept)[0]?.message.body).toContain('17 %');
    await waitUntil(async () => {
      const rows = await server.context.db.select().from(deviceSubscriptions).where(eq(deviceSubscriptions.token, expired.storedToken));
      return rows.length === 0 ? true : undefined;
    }, 5000, 'the expired subscription deleted');
    expect(pushService.rejected.filter((r) => r.subscriptionId === expired.id).map((r) => r.status)).toEqual([410]);
  });

  it('retries a push service that answers 503 and delivers once it answers', async () => {
    const w = await executionWorld(server);
    const device = await subscribeDevice(w.admin, [w.orgId]);
    pushService.answer(device.id, 503);
    await publishBatteryLow(w);
    await waitUntil(async () => (pushService.rejected.filter((r) => r.subscriptionId === device.id).length >= 2 ? true : undefined), 5000, 'two refused attempts');
    pushService.answer(device.id, undefined);
    await pushService.waitFor(() => pushesTo(device).length === 1);
    // The push service counts it before the server has recorded its 201.
    const delivery = await waitUntil(async () => {
      const [row] = await deliveriesTo(device);
      return row?.status === 'sent' ? row : undefined;
    }, 5000, 'the delivery recorded as sent');
    expect(delivery.attempts).toBeGreaterThanOrEqual(3);
  });

  it('gives a push up when the push service keeps failing past the give-up time, and keeps the device', async () => {
    const w = await executionWorld(server);
    const device = await subscribeDevice(w.admin, [w.orgId]);
    pushService.answer(device.id, 500);
    await publishBatteryLow(w);
    const failed = await waitUntil(async () => {
      const [delivery] = await deliveriesTo(device);
      return delivery?.status === 'failed' ? delivery : undefined;
    }, 15_000, 'the delivery given up');
    // Backoff: 50 ms doubling, so a handful of attempts in the 4 s before giving up, not hundreds.
    expect(failed.attempts).toBeGreaterThan(1);
    expect(failed.attempts).toBeLessThan(12);
    expect(pushesTo(device)).toEqual([]);
    const rows = await server.context.db.select().from(deviceSubscriptions).where(eq(deviceSubscriptions.token, device.storedToken));
    expect(rows).toHaveLength(1);
  });
});

describe('subscriptions (behaviour §7 token: the PushSubscription JSON)', () => {
  const bodyOf = (subscription: object, topic: string) => ({ token: JSON.stringify(subscription), topic });

  it('answers 400 naming the problem for a malformed token or an endpoint outside the allowed hosts, and stores nothing', async () => {
    const org = await server.createOrg();
    const user = await server.createUser(org, ['done-teleoperator']);
    const good = JSON.parse(pushService.subscribe().token) as { endpoint: string; keys: { p256dh: string; auth: string } };
    const cases: [object | string, string][] = [
      [{ endpoint: good.endpoint, keys: { p256dh: good.keys.p256dh } }, 'keys.auth'],
      [{ endpoint: good.endpoint, keys: { p256dh: good.keys.p256dh.slice(0, 40), auth: good.keys.auth } }, 'keys.p256dh'],
      [{ endpoint: 'https://push.attacker.example/x', keys: good.keys }, 'push.attacker.example'],
      [{ endpoint: 'http://fcm.googleapis.com/fcm/send/x', keys: good.keys }, 'https'],
      ['{"endpoint":', 'JSON'],
      ['not a token', 'native push token'],
    ];
    for (const [token, problem] of cases) {
      const body = typeof token === 'string' ? { token, topic: org } : bodyOf(token, org);
      const response = await server.request('POST', '/api/subscribe', { token: user.token, body });
      expect(response.status, JSON.stringify(token)).toBe(400);
      const error = ApiError.parse(response.body);
      expect(error.message).toContain('"token"');
      expect(error.message).toContain(problem);
    }
    const rows = await server.context.db.select().from(deviceSubscriptions).where(eq(deviceSubscriptions.userId, user.id));
    expect(rows).toEqual([]);
  });

  it("accepts a browser vendor's push service and answers 403 for a topic that is not the caller's", async () => {
    const org = await server.createOrg();
    const user = await server.createUser(org, ['done-teleoperator']);
    const { keys } = JSON.parse(pushService.subscribe().token) as { keys: object };
    const chrome = bodyOf({ endpoint: 'https://fcm.googleapis.com/fcm/send/abc:def', expirationTime: null, keys }, org);
    expect((await server.request('POST', '/api/subscribe', { token: user.token, body: chrome })).status).toBe(200);
    const firefox = bodyOf({ endpoint: 'https://updates.push.services.mozilla.com/wpush/v2/gAAA', keys }, user.id);
    expect((await server.request('POST', '/api/subscribe', { token: user.token, body: firefox })).status).toBe(200);
    const otherTopic = await server.request('POST', '/api/subscribe', { token: user.token, body: bodyOf({ endpoint: 'https://web.push.apple.com/x', keys }, 'demo') });
    expect(otherTopic.status).toBe(403);
    const rows = await server.context.db.select().from(deviceSubscriptions).where(eq(deviceSubscriptions.userId, user.id));
    expect(rows).toHaveLength(2);
  });

  it('treats the same subscription with its keys in another order as one device', async () => {
    const w = await executionWorld(server);
    const device = pushService.subscribe();
    const parsed = JSON.parse(device.token) as { endpoint: string; keys: { p256dh: string; auth: string } };
    const reordered = JSON.stringify({ keys: { auth: parsed.keys.auth, p256dh: parsed.keys.p256dh }, endpoint: parsed.endpoint });
    await server.request('POST', '/api/subscribe', { token: w.admin.token, body: { token: device.token, topic: w.orgId } });
    await server.request('POST', '/api/subscribe', { token: w.admin.token, body: { token: reordered, topic: w.admin.id } });
    await publishBatteryLow(w);
    await pushService.waitFor(() => pushesTo(device).length === 1);
    const removed = await server.request('DELETE', '/api/remove', { token: w.admin.token, body: { deviceToken: reordered, userId: w.admin.id } });
    expect(removed.status).toBe(200);
    const rows = await server.context.db.select().from(deviceSubscriptions).where(eq(deviceSubscriptions.userId, w.admin.id));
    expect(rows).toEqual([]);
  });
});

describe('escalation', () => {
  it("pushes a prompt nobody answered to the organization's admins after the escalation time, and not one that was answered", async () => {
    const escalating = await startTestServer({ push: testPushConfig({ escalationMs: 1500 }) });
    try {
      const w = await executionWorld(escalating);
      const subscribe = async (user: TestUser) => {
        const subscription = pushService.subscribe();
        const response = await escalating.request('POST', '/api/subscribe', { token: user.token, body: { token: subscription.token, topic: w.orgId } });
        expect(response.status).toBe(200);
        return subscription;
      };
      const adminPhone = await subscribe(w.admin);
      const operatorPhone = await subscribe(w.operator);
      const job = await createJobFor(escalating, w);
      // The job runner's own path when a robot reports a new prompt (robot-link/job-runner.ts syncPrompts).
      const ask = (promptId: string) =>
        escalating.context.db.transaction(async (tx) => {
          const row = await insertAction(tx, { orgId: w.orgId, jobId: job.job_id, robotId: w.robotId, roomId: w.roomIds[0] ?? null, promptId, buttonText: 'wait_to_enter' });
          if (!row) throw new Error('action not inserted');
          await publishActionChange(escalating.context, tx, row);
          return row;
        });
      const unanswered = await ask('p-unanswered');
      const answered = await ask('p-answered');
      await escalating.context.db.transaction(async (tx) => {
        const decided = await markDecided(tx, answered.id, { confirm: true, by: w.operator.username, source: 'console' });
        if (decided) await publishActionChange(escalating.context, tx, decided);
      });
      await pushService.waitFor(() => kindsTo(adminPhone).includes('prompt_escalation'), 10_000);
      // Let any wrong second escalation show before judging.
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const escalations = pushesTo(adminPhone).filter((push) => push.message.kind === 'prompt_escalation');
      expect(escalations.map((push) => push.message.action_id)).toEqual([unanswered.id]);
      expect(escalations[0]?.message.body).toContain('Nobody has answered');
      expect(escalations[0]?.message.choices).toEqual(['confirm', 'skip']);
      // The teleoperator hears of the prompt that stayed open (the answered one may be dropped before it goes out).
      expect(pushesTo(operatorPhone).filter((push) => push.message.kind === 'prompt').map((push) => push.message.action_id)).toContain(unanswered.id);
      expect(kindsTo(operatorPhone)).not.toContain('prompt_escalation');
    } finally {
      await escalating.close();
    }
  });
});

function deliveriesTo(subscription: TestSubscription) {
  return server.context.db.select().from(pushDeliveries).where(eq(pushDeliveries.token, subscription.storedToken));
}
