/**
 * The logistics variant as its people use it, at 1280×800 and 375×812: a server of its own started with
 * `VARIANT=logistics` (the demo organization with its delivery robots DLV-1..4, played by the demo fleet), a sender
 * who requests a delivery in the console and watches it go In transit and Waiting, and a recipient in another browser
 * context who gets the PIN by push, enters it at the console, and both see Delivered with the chain of custody. Three
 * wrong PINs lock the hand-off and alert the sender.
 *
 * Pushes: there is no browser vendor's push service on this machine, so the recipient's device subscription points at
 * a local stand-in speaking the real protocol (apps/server/src/testing/push-service.ts: VAPID checked, aes128gcm
 * decrypted); the decrypted message is then delivered to the recipient's service worker through the DevTools
 * protocol, as the push service would, and the notification it shows is read back.
 */
import {
  cancelDelivery,
  CreatedDelivery,
  confirmLoading,
  createDelivery,
  DeliveryStatus,
  getDelivery,
  getMyProfile,
  subscribe,
  type DeliveryInput,
  type PushMessage,
} from '@uvd/contracts';
import type { Browser } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startLocalPushService, type LocalPushService } from '../../apps/server/src/testing/push-service.ts';
import { type ApiSession, apiSignIn, callApi, fetchHonouringRetryAfter } from '../support/api.ts';
import {
  baseUrl,
  expectAccessible,
  expectNoPageErrors,
  launchBrowser,
  MOBILE,
  screenshot,
  settle,
  useServer,
  VIEWPORTS,
  type Session,
  type Viewport,
} from '../support/browser.ts';
import { DEMO, signedInSession, t, tFill } from '../support/console.ts';
import { nearestRooms, readyRobot, type JourneyRobot, type JourneyRoom } from '../support/fleet.ts';
import { activeWorker, pushDelivery, shownNotifications, watchShownNotifications } from '../support/push.ts';
import { startConsoleServer, type ConsoleServer } from '../support/server.ts';

/** The seed's logistics people (apps/server/src/seed/README.md): a ward nurse of Ward A sends, the lab receives. */
const SENDER = { username: 'nurse-a', password: 'nurse-a-demo-1' };
const RECIPIENT = { username: 'lab', password: 'lab-demo-1' };
/** The delivery robot of Ward A's first floor: pickup and drop-off are rooms near it, so it is the nearest free one. */
const ROBOT = 'DLV-1';
const FLOW_TIMEOUT_MS = 60_000;

let browser: Browser;
let server: ConsoleServer;
let push: LocalPushService;
let admin: ApiSession;
let sender: ApiSession;
let recipient: ApiSession;
let recipientId: string;
/** The push service's id of the sender's device subscription. */
let senderDevice: string;
let robot: JourneyRobot | undefined;
let rooms: JourneyRoom[] | undefined;

/** DLV-1 once it is online (looked up in the first test: expect.poll runs only inside a test). */
const robotPlace = async (): Promise<JourneyRobot> => (robot ??= await readyRobot(admin, ROBOT));
/** Four rooms near DLV-1. */
const roomsNearRobot = async (): Promise<JourneyRoom[]> => (rooms ??= await nearestRooms(admin, await robotPlace(), 4));

beforeAll(async () => {
  push = await startLocalPushService();
  server = await startConsoleServer({
    logName: 'logistics-server.log',
    env: { VARIANT: 'logistics', PUSH_ENDPOINT_HOSTS: '127.0.0.1' },
  });
  useServer(server.baseUrl);
  browser = await launchBrowser();
  admin = await apiSignIn(DEMO.org, DEMO.admin.username, DEMO.admin.password);
  sender = await apiSignIn(DEMO.org, SENDER.username, SENDER.password);
  recipient = await apiSignIn(DEMO.org, RECIPIENT.username, RECIPIENT.password);
  recipientId = (await callApi(recipient, getMyProfile)).sub;
  // The recipient's and the sender's phones: each device subscribed to its user's topic, as the Settings switch does.
  await callApi(recipient, subscribe, { body: { token: push.subscribe().token, topic: recipientId } });
  const senderSubscription = push.subscribe();
  senderDevice = senderSubscription.id;
  await callApi(sender, subscribe, { body: { token: senderSubscription.token, topic: (await callApi(sender, getMyProfile)).sub } });
}, 240_000);

afterAll(async () => {
  // First: the worker's next file uses the run's server even if this file's start failed half-way.
  useServer(undefined);
  await browser.close();
  await server.stop();
  await push.close();
});

/** POST /deliveries as a hospital system would: 201 with the PIN. */
async function requestDelivery(body: DeliveryInput): Promise<CreatedDelivery> {
  const reply = await fetchHonouringRetryAfter(new URL(`/api${createDelivery.path}`, baseUrl()), {
    method: 'POST',
    headers: { authorization: `Bearer ${sender.token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await reply.text();
  expect(reply.status, text).toBe(201);
  return CreatedDelivery.parse(JSON.parse(text));
}

const statusOf = (page: Session['page']) => page.getByTestId('delivery-status').first().innerText();

/** The PIN push the recipient's device got for this delivery. */
async function pinPush(deliveryId: string): Promise<PushMessage> {
  await push.waitFor((received) => received.some((one) => one.message.related_id === deliveryId), FLOW_TIMEOUT_MS);
  const found = push.received.find((one) => one.message.related_id === deliveryId);
  if (!found) throw new Error('no push');
  return found.message;
}

/** Picks the robot's building and floor and then the room in one of the create form's room pickers. */
async function pickRoom(page: Session['page'], prefix: 'pickup' | 'dropoff', room: JourneyRoom): Promise<void> {
  const robot = await robotPlace();
  await page.locator(`#delivery-${prefix}-building option[value="${robot.building_id}"]`).waitFor({ state: 'attached' });
  await page.locator(`#delivery-${prefix}-building`).selectOption(robot.building_id);
  await page.locator(`#delivery-${prefix}-floor option[value="${robot.floor_id}"]`).waitFor({ state: 'attached' });
  await page.locator(`#delivery-${prefix}-floor`).selectOption(robot.floor_id);
  await page.locator(`#delivery-${prefix}-room option[value="${room.room_id}"]`).waitFor({ state: 'attached' });
  await page.locator(`#delivery-${prefix}-room`).selectOption(room.room_id);
}

describe.each(VIEWPORTS)('a delivery from request to a proven hand-off at $width×$height', (viewport: Viewport) => {
  const sessions: Session[] = [];
  afterEach(async () => {
    for (const session of sessions.splice(0)) {
      await session.close();
      expectNoPageErrors(session);
    }
  });

  it('is requested in the console, loaded, taken with the PIN from the push, and Delivered for both', { timeout: 240_000 }, async () => {
    const near = await roomsNearRobot();
    const [pickup, dropoff] = viewport === MOBILE ? [near[2], near[3]] : [near[0], near[1]];
    if (!pickup || !dropoff) throw new Error('rooms');
    const senderConsole = await signedInSession(browser, viewport, SENDER);
    sessions.push(senderConsole);
    const { page } = senderConsole;
    await senderConsole.goto('/deliveries');
    await expectAccessible(senderConsole, 'deliveries');
    await page.getByRole('link', { name: t('en', 'deliveries.new') }).click();
    await settle(page);
    await pickRoom(page, 'pickup', pickup);
    await pickRoom(page, 'dropoff', dropoff);
    await page.locator('#delivery-item-0-description').fill('Blood sample, ward round');
    await page.locator('#delivery-item-0-category').selectOption('specimen');
    await page.locator('#delivery-item-0-quantity').fill('2');
    await page.locator('#delivery-priority').selectOption('urgent');
    await page.locator('#delivery-recipient-user').selectOption(recipientId);
    await expectAccessible(senderConsole, 'delivery-create');
    await screenshot(senderConsole, 'delivery-create');
    await page.locator('#delivery-submit').click();

    // The PIN, shown once to the sender.
    const pinText = (await page.getByTestId('delivery-created-pin').innerText()).replace(/\s/g, '');
    expect(pinText).toMatch(/^\d{4}$/);
    await expectAccessible(senderConsole, 'delivery-pin');
    await page.getByRole('button', { name: t('en', 'deliveries.created.open') }).click();
    await page.waitForURL(/\/deliveries\/[0-9a-f-]{36}$/);
    await settle(page);
    const deliveryId = new URL(page.url()).pathname.split('/').pop() ?? '';

    // The recipient's device got the PIN by push, in the real protocol, before anything else happened.
    const message = await pinPush(deliveryId);
    expect(message.type).toBe('delivery');
    expect(message.url).toBe(`/deliveries/${deliveryId}`);
    expect(message.body).toContain(pinText);

    // The sender watches the robot take it and come for loading.
    await expect.poll(() => statusOf(page), { timeout: FLOW_TIMEOUT_MS }).toBe(t('en', 'deliveries.waitingFor.loading'));
    expect(await page.getByTestId('custody-step').allInnerTexts()).toEqual(
      expect.arrayContaining([expect.stringContaining(t('en', 'deliveries.steps.dispatched'))]),
    );
    await page.getByRole('button', { name: t('en', 'deliveries.actions.loaded') }).click();
    await expect.poll(() => statusOf(page), { timeout: FLOW_TIMEOUT_MS }).toBe(t('en', 'deliveries.waitingFor.recipient'));
    await expectAccessible(senderConsole, 'delivery-waiting');
    await screenshot(senderConsole, 'delivery-waiting');

    // The recipient, in another browser context: the push shows on the device, a click leads to the delivery.
    const taker = await signedInSession(browser, viewport, RECIPIENT);
    sessions.push(taker);
    const worker = await activeWorker(taker);
    const delivered = await pushDelivery(taker);
    const watch = await watchShownNotifications(worker);
    await delivered.deliver(message);
    // A system notification's list is read only once the worker has shown one (watchShownNotifications says why).
    const notified = async () => ((await watch.count()) > 0 ? (await shownNotifications(worker)).map((shown) => shown.body).join(' | ') : '');
    await expect.poll(async () => (await notified()) || (await taker.page.locator('.Toastify').innerText())).toContain(pinText);
    await taker.goto(message.url);
    await expect.poll(() => statusOf(taker.page), { timeout: FLOW_TIMEOUT_MS }).toBe(t('en', 'deliveries.waitingFor.recipient'));
    await expectAccessible(taker, 'delivery-handoff');
    await taker.page.locator('#delivery-pin').fill(pinText);
    await taker.page.getByRole('button', { name: t('en', 'deliveries.confirmPin') }).click();

    // Both see it Delivered, with the chain of custody from request to hand-off.
    const chain = ['requested', 'dispatched', 'loaded', 'departed', 'arrived', 'received', 'delivered'].map((step) => t('en', `deliveries.steps.${step}`));
    for (const session of [taker, senderConsole]) {
      await expect.poll(() => statusOf(session.page), { timeout: FLOW_TIMEOUT_MS }).toBe(t('en', 'deliveryStatus.4'));
      // Each step in the order it happened (the record is read again after every change).
      await expect
        .poll(async () => {
          const steps = await session.page.getByTestId('custody-step').allInnerTexts();
          // The chain's steps, each found after the one before it (the robot arrives at the pickup, then the drop-off).
          let from = 0;
          return chain.filter((step) => {
            const at = steps.findIndex((text, index) => index >= from && text.startsWith(step));
            if (at >= 0) from = at + 1;
            return at >= 0;
          });
        })
        .toEqual(chain);
    }
    await screenshot(senderConsole, 'delivery-delivered');
    const record = await callApi(admin, getDelivery, { params: { delivery_id: deliveryId } });
    expect(record.status).toBe(DeliveryStatus.delivered);
    expect(record.custody.find((step) => step.step === 'received')?.user_id).toBe(recipientId);
  });

  it('locks the hand-off after three wrong PINs and tells the sender', { timeout: 180_000 }, async () => {
    const near = await roomsNearRobot();
    const [pickup, dropoff] = viewport === MOBILE ? [near[3], near[2]] : [near[1], near[0]];
    if (!pickup || !dropoff) throw new Error('rooms');
    const created = await requestDelivery({
      pickup_room_id: pickup.room_id,
      dropoff_room_id: dropoff.room_id,
      items: [{ description: 'Insulin', category: 'medication', quantity: 1 }],
      priority: 'stat',
      recipient_user_id: recipientId,
    });
    const id = created.delivery_id;
    const reached = async (waitingFor: 'loading' | 'recipient') => {
      await expect
        .poll(async () => {
          const now = await callApi(admin, getDelivery, { params: { delivery_id: id } });
          return now.status === DeliveryStatus.waiting && now.waiting_for === waitingFor;
        }, { timeout: FLOW_TIMEOUT_MS, message: `waiting for ${waitingFor}` })
        .toBe(true);
    };
    await reached('loading');
    await callApi(admin, confirmLoading, { params: { delivery_id: id } });
    await reached('recipient');

    const taker = await signedInSession(browser, viewport, RECIPIENT);
    sessions.push(taker);
    await taker.goto(`/deliveries/${id}`);
    const wrong = created.pin === '0000' ? '1111' : '0000';
    for (const attemptsLeft of [2, 1]) {
      await taker.page.locator('#delivery-pin').fill(wrong);
      await taker.page.getByRole('button', { name: t('en', 'deliveries.confirmPin') }).click();
      await expect.poll(() => taker.page.getByTestId('delivery-pin-error').innerText()).toBe(tFill('en', 'deliveries.refusals.handoff_wrong_pin', { attempts: attemptsLeft }));
    }
    await taker.page.locator('#delivery-pin').fill(wrong);
    await taker.page.getByRole('button', { name: t('en', 'deliveries.confirmPin') }).click();
    await taker.page.getByTestId('delivery-handoff-locked').waitFor({ state: 'visible' });
    expect(await taker.page.locator('#delivery-pin').count()).toBe(0);
    await expectAccessible(taker, 'delivery-locked');
    await screenshot(taker, 'delivery-locked');

    const locked = await callApi(admin, getDelivery, { params: { delivery_id: id } });
    expect(locked.handoff_locked).toBe(true);
    expect(locked.status).toBe(DeliveryStatus.waiting);
    expect(locked.custody.filter((step) => step.step === 'handoff_failed')).toHaveLength(3);

    // The sender sees it on the delivery, live.
    const senderConsole = await signedInSession(browser, viewport, SENDER);
    sessions.push(senderConsole);
    await senderConsole.goto(`/deliveries/${id}`);
    await senderConsole.page.getByTestId('delivery-handoff-locked').waitFor({ state: 'visible' });
    // And on the sender's phone.
    await push.waitFor(
      (received) => received.some((one) => one.subscriptionId === senderDevice && one.message.related_id === id && one.message.kind === 'delivery_handoff_locked'),
      FLOW_TIMEOUT_MS,
    );
    // The sender acts on it: cancelled, the robot is free for the next delivery.
    expect((await callApi(sender, cancelDelivery, { params: { delivery_id: id } })).status).toBe(DeliveryStatus.cancelled);
  });
});
