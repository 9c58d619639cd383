/**
 * The "room is empty" answer on a phone (375×812), as a nurse meets it: the robots screen is open, a robot's
 * prompt arrives without warning, and a tap aimed at the page must neither land somewhere else (the banner must not
 * move the rows) nor confirm a room empty. Confirm takes the dialog naming the room and the robot; the answer's
 * targets are at least 44 px; once sent, the banner says so.
 */
import type { Browser } from 'playwright-core';
import { commandJob, createJob, getDoses, getJob, getRobots, updateRoomReadiness } from '@uvd/contracts';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { apiSignIn, callApi, type ApiSession } from '../support/api.ts';
import { expectAccessible, expectNoPageErrors, launchBrowser, MOBILE, screenshot, settle, type Session } from '../support/browser.ts';
import { DEMO, signedInSession, t } from '../support/console.ts';
import { nearestRooms, readyRobot } from '../support/fleet.ts';

const ROBOT = 'UVD-2';
const TIMEOUT_MS = 60_000;

const fill = (key: string, values: Record<string, string>) =>
  Object.entries(values).reduce((text, [name, value]) => text.replaceAll(`{{${name}}}`, value), t('en', key));

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser.close();
});

describe('answering a robot that asks whether a room is empty, at 375×812', () => {
  let session: Session | undefined;
  let api: ApiSession | undefined;
  let roomToRestore: string | null = null;
  let jobToStop: string | null = null;
  afterEach(async () => {
    if (api && jobToStop !== null) {
      const job = await callApi(api, getJob, { params: { id: jobToStop } });
      if (job.status !== 'Completed') await callApi(api, commandJob, { params: { job_id: jobToStop }, query: { command: 'stop' } });
    }
    if (api && roomToRestore !== null) {
      await callApi(api, updateRoomReadiness, { body: { rooms: [{ room_id: roomToRestore, ready_for_disinfection: true }] } });
    }
    if (session) {
      await session.close();
      expectNoPageErrors(session);
    }
  });

  it('keeps the rows where they were when the prompt appears, and confirms only through the dialog', { timeout: 120_000 }, async () => {
    api = await apiSignIn(DEMO.org, DEMO.operator.username, DEMO.operator.password);
    session = await signedInSession(browser, MOBILE, DEMO.operator);
    const { page } = session;
    await session.goto('/robots');
    await settle(page);

    const robot = await readyRobot(api, ROBOT);
    const robotsApi = api;
    await expect
      .poll(
        async () =>
          (await callApi(robotsApi, getRobots, { query: { offset: 0, limit: 50 } })).payload.find((candidate) => candidate.robot_id === robot.robot_id)
            ?.status,
        { timeout: TIMEOUT_MS, message: `${ROBOT} free` },
      )
      .toMatch(/^(idle|charging)$/);
    const [room] = await nearestRooms(api, robot, 1);
    if (!room) throw new Error('no room');
    await callApi(api, updateRoomReadiness, { body: { rooms: [{ room_id: room.room_id, ready_for_disinfection: false }] } });
    roomToRestore = room.room_id;

    // Where the finger is about to tap: the robot's row, before anything asks.
    const row = page.getByTestId('robot-row').filter({ hasText: ROBOT });
    await row.waitFor({ state: 'visible' });
    const before = await row.boundingBox();

    const dose = Math.max(...(await callApi(api, getDoses)).uvc_doses);
    const job = await callApi(api, createJob, {
      params: { robotId: robot.robot_id },
      query: { start_now: 'true' },
      body: {
        name: `Prompt answer ${new Date().toISOString().slice(11, 19)}`,
        start_time: new Date(Date.now() + 5 * 60_000).toISOString(),
        rooms: [{ room_id: room.room_id, order_no: 0, dose }],
      },
    });
    jobToStop = job.job_id;

    const banner = page.getByTestId('prompt-banner');
    const text = fill('promptBanner.promptInRoom', { robot: ROBOT, room: room.room_name, question: t('en', 'actions.wait_to_enter') });
    const item = banner.getByTestId('prompt-banner-item').filter({ hasText: text });
    await item.waitFor({ state: 'visible', timeout: TIMEOUT_MS });

    // The banner appeared over the page: the row did not move under the finger.
    const after = await row.boundingBox();
    expect(after?.y).toBe(before?.y);
    expect(after?.x).toBe(before?.x);

    const confirm = item.getByRole('button', { name: `${t('en', 'actions.confirm')}: ${text}`, exact: true });
    const skip = item.getByRole('button', { name: `${t('en', 'actions.skip')}: ${text}`, exact: true });
    for (const button of [confirm, skip]) {
      const box = await button.boundingBox();
      expect(box?.height).toBeGreaterThanOrEqual(44);
      expect(box?.width).toBeGreaterThanOrEqual(44);
    }

    // A tap on Confirm sends nothing: it opens the dialog naming the room and the robot.
    const answers: string[] = [];
    page.on('request', (request) => {
      if (request.method() === 'POST' && new URL(request.url()).pathname.endsWith('/action/action/confirm')) answers.push(request.url());
    });
    await confirm.tap();
    const dialog = page.getByRole('dialog', { name: fill('promptAnswer.roomEmptyTitle', { room: room.room_name }) });
    await dialog.waitFor({ state: 'visible' });
    expect(await dialog.innerText()).toContain(fill('promptAnswer.roomEmptyBody', { room: room.room_name, robot: ROBOT }));
    expect(answers).toEqual([]);
    await screenshot(session, 'prompt-answer-dialog');
    await expectAccessible(session, 'prompt-answer-dialog');
    const yes = dialog.getByRole('button', { name: t('en', 'promptAnswer.roomIsEmpty'), exact: true });
    const yesBox = await yes.boundingBox();
    expect(yesBox?.height).toBeGreaterThanOrEqual(44);

    const answered = page.waitForResponse(
      (response) => response.request().method() === 'POST' && new URL(response.url()).pathname.endsWith('/action/action/confirm'),
    );
    await yes.tap();
    expect((await answered).status()).toBe(200);
    roomToRestore = null;
    const status = banner.getByTestId('prompt-answer-sent');
    const sent = fill('promptAnswer.sent', { robot: ROBOT });
    const received = fill('promptAnswer.received', { robot: ROBOT });
    await status.waitFor({ state: 'visible' });
    expect([sent, received]).toContain(await status.innerText());
    await expect.poll(() => status.innerText(), { timeout: TIMEOUT_MS }).toBe(received);
    await expectAccessible(session, 'prompt-answer-sent');
  });
});
