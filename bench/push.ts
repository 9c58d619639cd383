/**
 * Push delivery end to end: an event is recorded on the bus (a robot's battery falls below
 * 20 %) and the notifications service fans it out to D devices and sends each an encrypted Web Push message; the
 * local push service (apps/server/src/testing/push-service.ts: VAPID verified, payload decrypted) stamps each
 * arrival. Prints event → push received p50/p99, beside a bare `web-push` send loop in the same process: the same
 * D subscriptions, encrypted and signed by web-push and posted at once, with no database, outbox or fan-out.
 *
 *   npx tsx bench/push.ts [--devices 100] [--events 20]
 *
 * PGlite in memory by default; DATABASE_URL=postgres://… runs it on a fresh database of that server. Prints
 * figures; never fails on them.
 */
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import webpush from 'web-push';
import { WebPushSubscription, type PushMessage } from '@uvd/contracts';
import { buildApp } from '../apps/server/src/app.ts';
import { loadConfig } from '../apps/server/src/config.ts';
import { createScratchDatabase } from '../apps/server/src/db/scratch-database.ts';
import { deviceSubscriptions, organizations, users } from '../apps/server/src/db/schema.ts';
import { startLocalPushService, testPushConfig } from '../apps/server/src/testing/push-service.ts';
import { createSite } from '../apps/server/src/testing/site-fixtures.ts';

const { values: args } = parseArgs({ options: { devices: { type: 'string', default: '100' }, events: { type: 'string', default: '20' } } });
const DEVICES = Number(args.devices);
const EVENTS = Number(args.events);
const USERS = Math.max(1, Math.ceil(DEVICES / 5));

const percentile = (sorted: readonly number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
const summary = (latencies: number[]) => {
  const sorted = [...latencies].sort((a, b) => a - b);
  return { n: sorted.length, p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted.at(-1) ?? NaN };
};

const pushService = await startLocalPushService();
const scratch = await createScratchDatabase(process.env.DATABASE_URL || undefined, 'uvd_bench');
const config = {
  // No request reaches this server (events are published on its bus): load shedding stays as deployed.
  ...loadConfig({ LOG_LEVEL: 'silent', SEED_DEMO: 'false' }),
  port: 0,
  host: '127.0.0.1',
  mqttPort: 0,
  mqttUrl: undefined,
  push: testPushConfig({ giveUpMs: 60_000 }),
};
const { app, context } = await buildApp({ config, database: scratch.database });
const db = scratch.database.db;

const orgId = `bench-${randomUUID().slice(0, 8)}`;
await db.insert(organizations).values({ id: orgId, name: orgId, uvcDoses: [10], defaultDose: 10 });
const site = await createSite(db, orgId, { roomsPerFloor: 1, robots: 1 });
const robotId = site.robotIds[0] ?? '';
const subscriptions = Array.from({ length: DEVICES }, () => pushService.subscribe());
for (let u = 0; u < USERS; u += 1) {
  const [user] = await db
    .insert(users)
    .values({ orgId, username: `bench-${u}`, passwordHash: 'x', roles: ['done-admin'] })
    .returning({ id: users.id });
  const mine = subscriptions.filter((_, index) => index % USERS === u);
  if (mine.length > 0) {
    await db.insert(deviceSubscriptions).values(
      mine.map((subscription) => ({ orgId, userId: user?.id ?? '', token: subscription.storedToken, topic: orgId })),
    );
  }
}

/** Waits for `count` more pushes after `from` received ones. */
const arrivals = (from: number, count: number) => pushService.waitFor((received) => received.length >= from + count, 60_000);

// ---------------------------------------------------------------- the server: event → push received
const serverLatencies: number[] = [];
const warmup = 2;
for (let i = 0; i < EVENTS + warmup; i += 1) {
  const before = pushService.received.length;
  const started = performance.now();
  await context.bus.publish({ orgId, stream: 'robots', key: robotId, type: 'battery_low', payload: { robot_id: robotId, battery: 19 } });
  await arrivals(before, DEVICES);
  if (i >= warmup) for (const push of pushService.received.slice(before)) serverLatencies.push(push.receivedAt - started);
}
const failed = pushService.rejected.length;
await app.close();

// ---------------------------------------------------------------- baseline: a bare web-push send loop
const vapid = webpush.generateVAPIDKeys();
const message: PushMessage = {
  title: 'Battery low',
  body: 'Robot is at 19 % (12:00).',
  icon: '/icons/icon-192.png',
  type: 'battery',
  related_id: robotId,
  kind: 'battery_low',
  push_id: randomUUID(),
  url: `/map?robot=${robotId}`,
  realm: orgId,
  sent_at: new Date().toISOString(),
};
const bareLatencies: number[] = [];
for (let i = 0; i < EVENTS + warmup; i += 1) {
  const before = pushService.received.length;
  const started = performance.now();
  await Promise.all(
    subscriptions.map(async (subscription) => {
      const details = webpush.generateRequestDetails(WebPushSubscription.parse(JSON.parse(subscription.token)), JSON.stringify(message), {
        vapidDetails: { subject: 'mailto:bench@example.test', ...vapid },
        contentEncoding: 'aes128gcm',
        TTL: 60,
      });
      const response = await fetch(details.endpoint, { method: 'POST', headers: details.headers, body: details.body });
      await response.arrayBuffer();
    }),
  );
  await arrivals(before, DEVICES);
  if (i >= warmup) for (const push of pushService.received.slice(before)) bareLatencies.push(push.receivedAt - started);
}

await pushService.close();
await scratch.drop();

const server = summary(serverLatencies);
const bare = summary(bareLatencies);
const row = (name: string, s: ReturnType<typeof summary>) =>
  `| ${name} | ${s.n} | ${s.p50.toFixed(1)} | ${s.p99.toFixed(1)} | ${s.max.toFixed(1)} |`;
console.log(`\nbench:push — ${DEVICES} devices (${USERS} users), ${EVENTS} events after ${warmup} warm-up, ${scratch.where}`);
console.log('| path | pushes | p50 ms | p99 ms | max ms |');
console.log('|---|---|---|---|---|');
console.log(row('server: event recorded → push received (outbox, fan-out, web-push, fetch)', server));
console.log(row('baseline: bare web-push send loop → push received', bare));
console.log(`ratio p50 ×${(server.p50 / bare.p50).toFixed(2)}, p99 ×${(server.p99 / bare.p99).toFixed(2)}; refused by the push service: ${failed}`);
process.exit(0);
