/**
 * The console as an installable app that receives Web Push: its web app manifest and icons, its service
 * worker, and pushes delivered to that worker through the DevTools protocol (ServiceWorker.deliverPushMessage), as
 * a push service would after decrypting one: Chromium here has no push service, so `pushManager.subscribe` is
 * refused and the tests deliver to the registration directly.
 *
 * - No console window in front: the push is a system notification; a prompt's Confirm button answers it from the
 *   worker with the session the page mirrored, without opening the console, and the robot goes on.
 * - The console in front: the push is an in-app toast, and no system notification shows.
 */
import { Action, commandJob, createJob, getDoses, getJob, getLog, PushMessage, startJobNow, updateRoomReadiness, type Job } from '@uvd/contracts';
import type { Browser, CDPSession, Worker } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type ApiSession, apiSignIn, callApi, fetchHonouringRetryAfter } from '../support/api.ts';
import { baseUrl, DESKTOP, expectAccessible, expectNoPageErrors, launchBrowser, openSession, screenshot, settle, textOf, type Session } from '../support/browser.ts';
import { DEMO, signIn, t } from '../support/console.ts';
import { nearestRooms, readyRobot } from '../support/fleet.ts';
import { activeWorker, clickNotificationButton, pushDelivery, shownNotifications, watchShownNotifications } from '../support/push.ts';

/** A Ward A robot the operator may answer for; the operator journey is over before this file runs (files run in turn). */
const ROBOT = 'UVD-1';
const JOB_TIMEOUT_MS = 60_000;
const TEST_TIMEOUT_MS = 120_000;

// ---------------------------------------------------------------- the app's files

const ManifestIcon = z.object({ src: z.string(), sizes: z.string(), type: z.string(), purpose: z.string().optional() });
const WebAppManifest = z.object({
  name: z.string(),
  short_name: z.string(),
  start_url: z.string(),
  scope: z.string(),
  display: z.string(),
  theme_color: z.string(),
  background_color: z.string(),
  icons: z.array(ManifestIcon),
});

/** Width and height from a PNG's IHDR chunk, after checking the signature. */
function pngSize(bytes: Buffer): { width: number; height: number } {
  expect(bytes.subarray(0, 8).toString('hex'), 'PNG signature').toBe('89504e470d0a1a0a');
  expect(bytes.subarray(12, 16).toString('latin1'), 'IHDR chunk').toBe('IHDR');
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

// ---------------------------------------------------------------- the job the robot asks about

/** The job's open prompt (GET /action/action?job_id; 204 is none). */
async function openAction(api: ApiSession, jobId: string): Promise<Action | null> {
  const reply = await fetchHonouringRetryAfter(new URL(`/api/action/action?job_id=${jobId}`, baseUrl()), { headers: { authorization: `Bearer ${api.token}` } });
  if (reply.status === 204) return null;
  expect(reply.status, 'GET /action/action').toBe(200);
  return Action.parse(await reply.json());
}

/** A one-room job on the robot, the room marked not ready, started: the robot stops before it and asks wait_to_enter. */
async function jobAskingToEnter(api: ApiSession): Promise<{ job: Job; action: Action; roomId: string }> {
  const robot = await readyRobot(api, ROBOT);
  const [room] = await nearestRooms(api, robot, 1);
  if (!room) throw new Error('no room near the robot');
  const dose = Math.min(...(await callApi(api, getDoses)).uvc_doses);
  await callApi(api, updateRoomReadiness, { body: { rooms: [{ room_id: room.room_id, ready_for_disinfection: false }] } });
  const job = await callApi(api, createJob, {
    params: { robotId: robot.robot_id },
    body: {
      name: `Push ${new Date().toISOString().slice(11, 19)}`,
      start_time: new Date(Date.now() + 3_600_000).toISOString(),
      rooms: [{ room_id: room.room_id, dose, order_no: 0 }],
    },
  });
  expect((await callApi(api, startJobNow, { query: { job_id: job.job_id } })).data).toBe(true);
  const asked: { action: Action | null } = { action: null };
  await expect
    .poll(
      async () => {
        asked.action = await openAction(api, job.job_id);
        return asked.action?.button.text ?? null;
      },
      { timeout: JOB_TIMEOUT_MS, message: `${ROBOT} asks wait_to_enter` },
    )
    .toBe('wait_to_enter');
  const { action } = asked;
  if (!action) throw new Error('no prompt');
  return { job, action, roomId: room.room_id };
}

/** Behaviour §3 push data of a prompt, as the server's fan-out writes it (apps/server/src/notifications/fan-out.ts). */
function promptPush(job: Job, action: Action): PushMessage {
  return PushMessage.parse({
    title: `${ROBOT} is waiting`,
    body: `${t('en', 'actions.wait_to_enter')} (${job.name})`,
    icon: '/icons/icon-192.png',
    type: 'job',
    related_id: job.job_id,
    kind: 'prompt',
    push_id: `e2e-prompt-${action.action_id}`,
    url: `/job/${job.job_id}`,
    realm: DEMO.org,
    action_id: action.action_id,
    choices: ['confirm', 'skip'],
    choice_labels: { confirm: 'Confirm', skip: 'Skip' },
    sent_at: new Date().toISOString(),
  });
}

// ---------------------------------------------------------------- the tests

let browser: Browser;
beforeAll(async () => {
  // Push toasts and system notifications: the full browser (the headless shell denies their permission).
  browser = await launchBrowser({ systemNotifications: true });
});
afterAll(async () => {
  await browser.close();
});

describe('the installable console', () => {
  it('serves a web app manifest with its name, start URL, standalone display and 192 and 512 px PNG icons', async () => {
    const reply = await fetch(new URL('/manifest.webmanifest', baseUrl()));
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toContain('application/manifest+json');
    const manifest = WebAppManifest.parse(await reply.json());
    expect(manifest).toMatchObject({ name: 'UVD Console', short_name: 'UVD', start_url: '/', scope: '/', display: 'standalone' });
    for (const size of [192, 512]) {
      const icon = manifest.icons.find((candidate) => candidate.sizes === `${size}x${size}` && candidate.purpose !== 'maskable');
      expect(icon?.type, `a ${size} px icon`).toBe('image/png');
      const image = await fetch(new URL(icon?.src ?? '', baseUrl()));
      expect(image.status, icon?.src).toBe(200);
      expect(image.headers.get('content-type'), icon?.src).toBe('image/png');
      expect(pngSize(Buffer.from(await image.arrayBuffer()))).toEqual({ width: size, height: size });
    }
    const maskable = manifest.icons.find((candidate) => candidate.purpose === 'maskable');
    const maskableImage = await fetch(new URL(maskable?.src ?? '', baseUrl()));
    expect(pngSize(Buffer.from(await maskableImage.arrayBuffer()))).toEqual({ width: 512, height: 512 });
  });

  it('registers its service worker, served for revalidation on every update check, and links the manifest', async () => {
    const session = await openSession(browser, DESKTOP);
    try {
      await session.goto('/auth');
      expect(await session.page.locator('link[rel=manifest]').getAttribute('href')).toBe('/manifest.webmanifest');
      await activeWorker(session);
      const script = await fetch(new URL('/sw.js', baseUrl()));
      expect(script.status).toBe(200);
      expect(script.headers.get('content-type')).toMatch(/^(application|text)\/javascript/);
      expect(script.headers.get('cache-control')).toBe('no-cache');
      expectNoPageErrors(session);
    } finally {
      await session.close();
    }
  });
});

describe('Web Push', () => {
  let api: ApiSession;
  let session: Session | undefined;
  let cdp: CDPSession | undefined;
  let cleanUp: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    api = await apiSignIn(DEMO.org, DEMO.operator.username, DEMO.operator.password);
  });
  afterEach(async () => {
    await cdp?.detach().catch(() => undefined);
    if (session) {
      await session.close();
      expectNoPageErrors(session);
    }
    await cleanUp?.();
    session = undefined;
    cdp = undefined;
    cleanUp = undefined;
  });

  /** The operator signed in to the console, notifications allowed for its origin, the service worker active. */
  async function operatorConsole(): Promise<{ session: Session; worker: Worker; deliver: (message: PushMessage) => Promise<void> }> {
    const opened = await openSession(browser, DESKTOP);
    session = opened;
    await opened.context.grantPermissions(['notifications'], { origin: baseUrl() });
    await opened.goto('/auth');
    await signIn(opened.page, DEMO.org, DEMO.operator.username, DEMO.operator.password);
    await settle(opened.page);
    const worker = await activeWorker(opened);
    const delivery = await pushDelivery(opened);
    cdp = delivery.cdp;
    return { session: opened, worker, deliver: delivery.deliver };
  }

  it(
    "with no console window in front, a prompt is a system notification whose Confirm answers it without opening the console, and the robot goes on",
    async () => {
      const { session: opened, worker, deliver } = await operatorConsole();
      const { job, action, roomId } = await jobAskingToEnter(api);
      cleanUp = async () => {
        await callApi(api, updateRoomReadiness, { body: { rooms: [{ room_id: roomId, ready_for_disinfection: true }] } });
        const left = await callApi(api, getJob, { params: { id: job.job_id } });
        if (left.status !== 'Running') return;
        await callApi(api, commandJob, { params: { job_id: job.job_id }, query: { command: 'stop' } }).catch(async (error: unknown) => {
          // With its room ready again the job can end on its own between the two calls (409 job_finished): only a
          // job still running is left behind.
          if ((await callApi(api, getJob, { params: { id: job.job_id } })).status === 'Running') throw error;
        });
      };

      // The tab leaves the console for another file of the same origin: no console window takes the push.
      await opened.page.goto('/icons/icon-512.png');
      const push = promptPush(job, action);
      const watch = await watchShownNotifications(worker);
      await deliver(push);

      expect(await watch.onceShown()).toEqual([
        {
          title: push.title,
          body: push.body,
          tag: push.push_id,
          requireInteraction: true,
          actions: [
            { action: 'confirm', title: 'Confirm' },
            { action: 'skip', title: 'Skip' },
          ],
        },
      ]);

      await clickNotificationButton(worker, push.push_id, 'confirm');

      // Answered from the worker with the mirrored session: the prompt is gone and the robot disinfects the room.
      await expect.poll(() => openAction(api, job.job_id), { timeout: JOB_TIMEOUT_MS }).toBeNull();
      await expect.poll(async () => (await callApi(api, getJob, { params: { id: job.job_id } })).status, { timeout: JOB_TIMEOUT_MS }).toBe('Completed');
      const log = await callApi(api, getLog, { params: { id: job.job_id } });
      expect(log.attributes.prompts).toMatchObject([{ action_id: action.action_id, confirm: true, answered_by: DEMO.operator.username, source: 'notification' }]);
      expect(log.attributes.rooms).toMatchObject([{ room_id: roomId, state: 'done' }]);
      // No console window was opened for it, and the notification is gone.
      expect(opened.context.pages()).toHaveLength(1);
      expect(new URL(opened.page.url()).pathname).toBe('/icons/icon-512.png');
      expect(await shownNotifications(worker)).toEqual([]);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'with the console in front, a push is an in-app toast that links to what it is about, and no system notification',
    async () => {
      const { session: opened, worker, deliver } = await operatorConsole();
      const robot = await readyRobot(api, ROBOT);
      const push = PushMessage.parse({
        title: 'Battery low',
        body: `${ROBOT} is at 12 % (10:42).`,
        icon: '/icons/icon-192.png',
        type: 'battery',
        related_id: robot.robot_id,
        kind: 'battery_low',
        push_id: `e2e-battery-${String(Date.now())}`,
        url: `/map?robot=${robot.robot_id}`,
        realm: DEMO.org,
        sent_at: new Date().toISOString(),
      });
      await opened.page.bringToFront();

      await deliver(push);

      const toast = opened.page.getByTestId('push-toast');
      await expect.poll(() => textOf(toast)).toContain(push.body);
      expect(await textOf(toast)).toContain('Battery low');
      // Its entrance animation over (its own, not the 600 s progress bar's), for the picture and axe.
      await opened.page.waitForFunction(() =>
        Array.from(document.querySelectorAll('.Toastify__toast')).every((frame) => frame.getAnimations().every((animation) => animation.playState !== 'running')),
      );
      await screenshot(opened, 'push-toast');
      await expectAccessible(opened, 'push-toast');
      expect(await shownNotifications(worker)).toEqual([]);

      await toast.getByRole('link', { name: t('en', 'push.open'), exact: true }).click();
      await opened.page.waitForURL((url) => url.pathname === '/map' && url.searchParams.get('robot') === robot.robot_id);
    },
    TEST_TIMEOUT_MS,
  );
});
