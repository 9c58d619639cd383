/**
 * The shift view in Chromium at one size, in en, fi and se: a real job on the simulated fleet whose robot asks
 * before a room that is not ready. The operator, on the robots screen (not the jobs list), sees the prompt in the
 * banner naming robot and room, answers it there, then sees the job's progress advance on the jobs list. Each size
 * drives its own Ward A robot (desktop UVD-1, mobile UVD-2) and is a test file of its own
 * (tests/shift-view-desktop.test.ts, tests/shift-view-phone.test.ts), so the two sizes run side by side on two
 * workers; the languages run one after another. Prints how long the prompt stood in the browser before the answer
 * took it away (no wall-clock assertion).
 */
import type { Browser } from 'playwright-core';
import { createJob, getDoses, getJob, getRobots, listWaitingActions, startJobNow, updateRoomReadiness } from '@uvd/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callApi } from './api.ts';
import { expectAccessible, launchBrowser, screenshot, settle, type Viewport } from './browser.ts';
import { DEMO, operatorEachTest, signIn, t, type Language } from './console.ts';
import { nearestRooms, readyRobot } from './fleet.ts';

const ROBOT_OF: Record<Viewport['name'], string> = { desktop: 'UVD-1', mobile: 'UVD-2' };
const LANGUAGES: readonly Language[] = ['en', 'fi', 'se'];
/** The first room is not ready (the robot asks at once); the second gives the list progress to show. */
const ROOMS_PER_JOB = 2;
/** A room takes dose / 0.5 W/m² simulated seconds: the largest dose keeps a room on screen a few real seconds. */
const JOB_RUN_TIMEOUT_MS = 60_000;
const TEST_TIMEOUT_MS = 120_000;

/** A translation with its {{placeholders}} filled, as i18next renders it. */
const fill = (text: string, values: Record<string, string | number>) =>
  text.replace(/\{\{(\w+)\}\}/g, (_match, name: string) => String(values[name] ?? ''));

/** The shift view's tests at this size, in a browser of their own. */
export const describeShiftView = (viewport: Viewport): void => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser.close();
  });

  describe(`the shift view at ${String(viewport.width)}×${String(viewport.height)}`, () => {
    const operator = operatorEachTest(() => browser, viewport);

    it.each(LANGUAGES)(
      'in %s: the prompt shows on the robots screen, is answered from the banner, and the job advances on the list',
      async (language) => {
        const { session, api } = operator;
        const { page } = session;
        await session.goto(`/auth?lng=${language}`);
        await signIn(page, DEMO.org, DEMO.operator.username, DEMO.operator.password);
        await settle(page);
        // The page named by ?lng= keeps its language; a load without it would show the operator's profile language.
        await session.goto(`/robots?lng=${language}`);

        const robot = await readyRobot(api, ROBOT_OF[viewport.name]);
        // The previous language's job has ended; its robot is given the next once it is back at its dock.
        await expect
          .poll(
            async () => {
              const { payload } = await callApi(api, getRobots, { query: { offset: 0, limit: 50 } });
              return payload.find((candidate) => candidate.robot_id === robot.robot_id)?.status;
            },
            { timeout: JOB_RUN_TIMEOUT_MS, message: `${robot.name} back at its dock` },
          )
          .toMatch(/^(idle|charging)$/);
        const rooms = await nearestRooms(api, robot, ROOMS_PER_JOB);
        const [occupied] = rooms;
        if (!occupied) throw new Error('no room to mark not ready');
        const dose = Math.max(...(await callApi(api, getDoses)).uvc_doses);
        // Only the first room is occupied: the others are made ready, as another test may have left one not ready
        // (the operator journey's confirmed room keeps its flag), which would make the robot ask a second time.
        await callApi(api, updateRoomReadiness, {
          body: { rooms: rooms.map((room) => ({ room_id: room.room_id, ready_for_disinfection: room.room_id !== occupied.room_id })) },
        });
        operator.roomToRestore = occupied.room_id;
        const jobName = `Shift ${viewport.name} ${language} ${new Date().toISOString().slice(11, 19)}`;
        const job = await callApi(api, createJob, {
          params: { robotId: robot.robot_id },
          body: {
            name: jobName,
            start_time: new Date(Date.now() + 3600_000).toISOString(),
            rooms: rooms.map((room, order_no) => ({ room_id: room.room_id, order_no, dose })),
          },
        });
        await callApi(api, startJobNow, { query: { job_id: job.job_id } });

        // The robot stops at the door and asks; the banner names it and the room on a screen other than jobs.
        const banner = page.getByTestId('prompt-banner');
        const question = t(language, 'actions.wait_to_enter');
        const text = fill(t(language, 'promptBanner.promptInRoom'), { robot: robot.name, room: occupied.room_name, question });
        const item = banner.getByTestId('prompt-banner-item').filter({ hasText: text });
        await item.waitFor({ state: 'visible', timeout: JOB_RUN_TIMEOUT_MS }).catch(async (error: unknown) => {
          // What the server holds then tells a robot that never asked from a banner that never showed.
          const waiting = await callApi(api, listWaitingActions);
          const current = await callApi(api, getJob, { params: { id: job.job_id } });
          await screenshot(session, `shift-banner-missing-${language}`);
          throw new Error(
            `no banner for ${jobName}: waiting ${JSON.stringify(waiting.payload)}, job ${current.status} ${JSON.stringify(current.progress)}, ` +
              `rooms ${JSON.stringify(current.rooms.map((room) => room.state))}, banner ${await banner.count()}: ${String(error)}`,
          );
        });
        const shownAt = Date.now();
        const [asked] = (await callApi(api, listWaitingActions)).payload.filter((action) => action.job_id === job.job_id);
        expect(new URL(page.url()).pathname).toBe('/robots');
        await expect.poll(() => item.getByRole('alert').innerText()).toContain(text);
        await screenshot(session, `shift-banner-${language}`);
        await expectAccessible(session, `shift-banner-${language}`);

        // Answered from the banner: Confirm, with the console's Idempotency-Key path; the banner goes.
        const answered = page.waitForResponse(
          (response) => response.request().method() === 'POST' && new URL(response.url()).pathname.endsWith('/action/action/confirm'),
        );
        const clickedAt = await page.evaluate(() => performance.now());
        await item.getByRole('button', { name: `${t(language, 'actions.confirm')}: ${text}`, exact: true }).click();
        // Confirm asks first, naming the room (prompt-answer.test.ts measures the rest).
        await page.getByRole('dialog').getByRole('button', { name: t(language, 'promptAnswer.roomIsEmpty'), exact: true }).click();
        const reply = await answered;
        expect(reply.status()).toBe(200);
        expect(reply.request().headers()['idempotency-key']).toBeTruthy();
        operator.roomToRestore = null;
        await item.waitFor({ state: 'detached' });
        const goneAt = await page.evaluate(() => performance.now());
        // Shown: from the robot's question (the prompt's created_at) to the banner seen; answered: from the click on
        // Confirm to the banner gone with the server's acceptance, both in this browser.
        const shownAfter = asked ? (shownAt - Date.parse(asked.created_at)) / 1000 : Number.NaN;
        console.log(
          `shift view (${viewport.name}, ${language}, ${robot.name}): prompt shown ${shownAfter.toFixed(2)} s after the robot asked; ` +
            `answered from the banner in ${((goneAt - clickedAt) / 1000).toFixed(2)} s (click → banner gone)`,
        );

        // On the jobs list the running job shows its progress, and it advances live.
        // Through the navigation (the phone's menu first), so the page and its streams stay.
        const navJobs = page.getByTestId('nav-jobs');
        if (!(await navJobs.isVisible())) await page.locator('.navbar-toggler').click();
        await navJobs.click();
        await page.waitForURL((url) => url.pathname === '/jobs');
        await settle(page);
        const bar = page.getByRole('progressbar', { name: fill(t(language, 'jobProgress.label'), { name: jobName }), exact: true });
        const finishedToast = page.getByTestId('job-finished-toast').filter({ hasText: jobName });
        const state = async () => {
          if (await finishedToast.isVisible()) return 'finished';
          return (await bar.isVisible()) ? `rooms ${(await bar.getAttribute('aria-valuenow')) ?? '?'}` : 'none';
        };
        await expect.poll(state, { timeout: JOB_RUN_TIMEOUT_MS }).toMatch(/^rooms \d$|^finished$/);
        const first = await state();
        if (first !== 'finished') {
          await screenshot(session, `shift-progress-${language}`);
          await expectAccessible(session, `shift-progress-${language}`);
          await expect.poll(state, { timeout: JOB_RUN_TIMEOUT_MS }).not.toBe(first);
        }
        // The finished job leaves the list with a toast saying what was done, and the server agrees.
        await finishedToast.waitFor({ state: 'visible', timeout: JOB_RUN_TIMEOUT_MS });
        await expect
          .poll(() => finishedToast.innerText())
          .toContain(fill(t(language, 'jobFinished.summary'), { name: jobName, done: ROOMS_PER_JOB, total: ROOMS_PER_JOB }));
        const ended = await callApi(api, getJob, { params: { id: job.job_id } });
        expect(ended.progress).toMatchObject({ rooms_disinfected: ROOMS_PER_JOB, rooms_total: ROOMS_PER_JOB });
      },
      TEST_TIMEOUT_MS,
    );
  });
};
