/**
 * The operator's working day in one journey, at 1280×800 and 375×812: sign in, schedule a job of three rooms in
 * the job editor, mark one room not ready and start the job, answer the robot's wait_to_enter prompt, watch the
 * job finish live, then read its log, its room results and its trajectory drawn in the log. Each size drives its own
 * Ward A robot (desktop UVD-1 on building A floor 1, mobile UVD-2 on floor 3) of the simulated fleet at
 * SIM_TIME_FACTOR=30, so the two journeys never wait for each other's robot.
 */
import type { Browser, Page } from 'playwright-core';
import { getDoses, getJob, Job, updateRoomReadiness } from '@uvd/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callApi } from '../support/api.ts';
import { expectAccessible, launchBrowser, screenshot, settle, textOf, VIEWPORTS, type Session, type Viewport } from '../support/browser.ts';
import { DEMO, operatorEachTest, signIn, t } from '../support/console.ts';
import { nearestRooms, readyRobot, type JourneyRobot, type JourneyRoom } from '../support/fleet.ts';

/** The robot each size drives: Ward A, the operator's group (Ward B's UVD-3 and UVD-4 belong to the admin tests). */
const ROBOT_OF: Record<Viewport['name'], string> = { desktop: 'UVD-1', mobile: 'UVD-2' };
const ROOMS_PER_JOB = 3;
/** The room the operator marks not ready before starting (zero-based): the robot asks before entering it. */
const NOT_READY_AT = 1;
/** The job is scheduled this far ahead, so the scheduler leaves it to the operator's "Start now". */
const SCHEDULED_AHEAD_MINUTES = 60;
/** A whole journey: sign-in, the editor, a job of three near rooms (about 5 s at SIM_TIME_FACTOR=30), four screens. */
const JOURNEY_TIMEOUT_MS = 120_000;
/** How long the robot may take to ask, and then to finish; both measure a few seconds. */
const JOB_RUN_TIMEOUT_MS = 60_000;

// ---------------------------------------------------------------- the job editor

/** The editor's wall-clock start (date, hours, minutes in the user's timezone) moved by `minutes`. */
function laterStart(date: string, hours: string, minutes: string, by: number): { date: string; hours: string; minutes: string } {
  // Wall-clock arithmetic in UTC: no zone rules apply to the fields' own values.
  const moved = new Date(Date.parse(`${date}T${hours.padStart(2, '0')}:${minutes.padStart(2, '0')}:00Z`) + by * 60_000);
  return { date: moved.toISOString().slice(0, 10), hours: String(moved.getUTCHours()), minutes: String(moved.getUTCMinutes()) };
}

/**
 * Step 2 as the operator does it: New job, name, building → floor → robot, a start an hour ahead (the editor
 * proposes now), the smallest dose, then the rooms one by one, and Save. Resolves with the job the server created.
 */
async function scheduleJobInEditor(session: Session, robot: JourneyRobot, name: string, rooms: readonly JourneyRoom[], dose: number): Promise<Job> {
  const { page } = session;
  await page.getByRole('link', { name: t('en', 'jobTable.newJob'), exact: true }).click();
  await page.waitForURL((url) => url.pathname === '/jobs/create');
  await settle(page);
  await screenshot(session, 'job-create');

  await page.locator('#job-name').fill(name);
  await page.locator('#job-building').selectOption(robot.building_id);
  await page.locator('#job-floor').selectOption(robot.floor_id);
  await page.locator('#job-robot').selectOption(robot.robot_id);
  const start = laterStart(
    await page.locator('#job-date').inputValue(),
    await page.locator('#job-hours').inputValue(),
    await page.locator('#job-minutes').inputValue(),
    SCHEDULED_AHEAD_MINUTES,
  );
  await page.locator('#job-date').fill(start.date);
  await page.locator('#job-hours').fill(start.hours);
  await page.locator('#job-minutes').fill(start.minutes);
  await page.locator('#job-dose').selectOption(String(dose));
  const cards = page.getByTestId('job-room-card');
  for (const [index, room] of rooms.entries()) {
    await page.locator('#job-room').selectOption(room.room_id);
    await expect.poll(() => cards.count()).toBe(index + 1);
    await expect.poll(() => textOf(cards.nth(index))).toContain(room.room_name);
  }
  await screenshot(session, 'job-create-filled');
  await expectAccessible(session, 'job-create-filled');

  const created = page.waitForResponse(
    (response) => response.request().method() === 'POST' && new URL(response.url()).pathname.endsWith(`/jobs/jobs/${robot.robot_id}`),
  );
  await page.locator('#job-submit').click();
  const reply = await created;
  expect(reply.status(), 'POST /jobs/jobs/{robotId}').toBe(200);
  const job = Job.parse(await reply.json());
  // Saved, the editor opens the jobs list with the new job expanded.
  await page.waitForURL((url) => url.pathname === '/jobs');
  await settle(page);
  return job;
}

// ---------------------------------------------------------------- what the test watches in the page

/** Set once on the jobs screen; still there at the end only if the page never reloaded or navigated away. */
const MARKER = 'operatorJourneyMarker';

function setMarker(page: Page, value: string): Promise<void> {
  return page.evaluate(
    ([key, mark]) => {
      Reflect.set(window, key, mark);
    },
    [MARKER, value] as const,
  );
}

function readMarker(page: Page): Promise<unknown> {
  return page.evaluate((key) => Reflect.get(window, key) as unknown, MARKER);
}

/** Counts the jobs list reads (not the live streams), to tell a live update from a refetch. */
function countListReads(page: Page): { readonly count: number } {
  const reads = { count: 0 };
  page.on('request', (request) => {
    if (request.method() === 'GET' && new URL(request.url()).pathname.endsWith('/jobs/v2/jobs')) reads.count += 1;
  });
  return reads;
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

// ---------------------------------------------------------------- the journey

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser.close();
});

describe.each(VIEWPORTS)('the operator journey at $width×$height', (viewport) => {
  const operator = operatorEachTest(() => browser, viewport);

  it(
    'schedules a 3-room job, starts it, lets the robot into the room it asks about, sees it finish live, then reads its log and trajectory',
    async () => {
      const { session, api } = operator;
      const { page } = session;

      // 1. Sign in as the Ward A operator.
      await session.goto('/auth');
      await signIn(page, DEMO.org, DEMO.operator.username, DEMO.operator.password);
      await page.waitForURL((url) => url.pathname === '/jobs');
      await settle(page);

      // 2. A job of the three rooms nearest to the robot, at the smallest dose offered, scheduled in the editor.
      const robot = await readyRobot(api, ROBOT_OF[viewport.name]);
      const rooms = await nearestRooms(api, robot, ROOMS_PER_JOB);
      // Every room starts ready: another test may have left one not ready (a confirmed room keeps its flag), which
      // would make the robot ask a second time.
      await callApi(api, updateRoomReadiness, { body: { rooms: rooms.map((room) => ({ room_id: room.room_id, ready_for_disinfection: true })) } });
      const dose = Math.min(...(await callApi(api, getDoses)).uvc_doses);
      const jobName = `Journey ${viewport.name} ${new Date().toISOString().slice(11, 19)}`;
      const job = await scheduleJobInEditor(session, robot, jobName, rooms, dose);
      expect(job).toMatchObject({ name: jobName, status: 'Scheduled', robot_id: robot.robot_id });

      // Back on the jobs list, the new job's row is open.
      const row = page.getByTestId('job-row').filter({ hasText: jobName });
      const details = page.locator(`#job-details-${job.job_id}`);
      await details.waitFor({ state: 'visible' });
      const status = row.getByTestId('job-status');
      await expect.poll(() => textOf(status)).toBe(t('en', 'jobStatus.Scheduled'));
      const roomRows = details.getByRole('table', { name: t('en', 'jobTable.rooms') }).locator('tbody tr');
      await expect.poll(() => roomRows.allInnerTexts()).toHaveLength(ROOMS_PER_JOB);
      for (const [index, room] of rooms.entries()) {
        await expect.poll(() => textOf(roomRows.nth(index).locator('td').nth(1))).toBe(room.room_name);
        await expect.poll(() => textOf(roomRows.nth(index).locator('td').nth(3))).toBe(String(dose));
      }

      // The second room is still occupied: the operator marks it not ready, and the server stores it.
      const occupied = rooms[NOT_READY_AT];
      if (!occupied) throw new Error('no room to mark not ready');
      const readySwitch = details.getByRole('checkbox', { name: `${t('en', 'jobTable.ready')}: ${occupied.room_name}`, exact: true });
      await expect.poll(() => readySwitch.isChecked()).toBe(true);
      const stored = page.waitForResponse((response) => response.request().method() === 'PATCH' && response.url().includes('/rooms/room/ready'));
      operator.roomToRestore = occupied.room_id;
      await readySwitch.click();
      expect((await stored).status()).toBe(200);
      await expect.poll(() => readySwitch.isChecked()).toBe(false);
      await screenshot(session, 'job-expanded');
      await expectAccessible(session, 'jobs-expanded-row');

      // From here on the page must neither reload nor navigate: everything arrives over the live streams.
      await setMarker(page, job.job_id);
      const listUrl = page.url();

      // Start now, confirmed in the dialog.
      await details.getByRole('button', { name: t('en', 'jobControls.startNow'), exact: true }).click();
      const dialog = page.getByRole('dialog', { name: t('en', 'jobControls.confirmStart') });
      await dialog.getByRole('button', { name: t('en', 'common.confirm'), exact: true }).click();
      const startedAt = Date.now();
      await dialog.waitFor({ state: 'hidden' });
      await expect.poll(() => textOf(status)).toBe(t('en', 'jobStatus.disinfecting'));
      await screenshot(session, 'job-running');

      // 3. The robot stops before the room that is not ready and asks; the operator confirms it is empty.
      const prompt = details.getByRole('group', { name: t('en', 'actions.wait_to_enter'), exact: true });
      await prompt.waitFor({ state: 'visible', timeout: JOB_RUN_TIMEOUT_MS });
      const promptAfter = Date.now() - startedAt;
      await screenshot(session, 'prompt');
      await expectAccessible(session, 'jobs-prompt');
      const reads = countListReads(page);
      const readsBefore = reads.count;
      // Confirm asks first, in a dialog naming the room (a stray tap cannot start UV-C): the room is empty.
      await prompt.getByRole('button', { name: `${t('en', 'actions.confirm')}: ${t('en', 'actions.wait_to_enter')}`, exact: true }).click();
      const empty = page.getByRole('dialog');
      await empty.getByRole('button', { name: t('en', 'promptAnswer.roomIsEmpty'), exact: true }).click();
      const confirmedAt = Date.now();
      operator.roomToRestore = null;
      // The decision is sent once: the prompt goes away when the robot takes it.
      await prompt.waitFor({ state: 'detached' });

      // 4. The job ends live: the finished (performed) job leaves the list of active work without a reload.
      await row.waitFor({ state: 'detached', timeout: JOB_RUN_TIMEOUT_MS });
      const finishedAfter = Date.now() - startedAt;
      expect(await readMarker(page), 'the page was reloaded').toBe(job.job_id);
      expect(page.url()).toBe(listUrl);
      // Updated live: at most one read of the page, to fill the place the job left with the next page's first job.
      expect(reads.count - readsBefore, 'the list was fetched again instead of updated live').toBeLessThanOrEqual(1);
      const ended = await callApi(api, getJob, { params: { id: job.job_id } });
      expect(ended).toMatchObject({ status: 'Completed', performed: true });
      console.log(
        `operator journey (${viewport.name}, ${robot.name}): prompt ${seconds(promptAfter)} after the start, ` +
          `job ended ${seconds(finishedAfter)} after the start (${seconds(Date.now() - confirmedAt)} after the confirmation)`,
      );

      // 5. Its log: completed, every room disinfected (the one asked about included, since it was confirmed).
      await session.goto('/logs');
      const logRow = page.getByTestId('log-row').filter({ hasText: jobName });
      await expect.poll(() => textOf(logRow.locator('td').nth(2))).toBe(t('en', 'completionStatus.completed'));
      await screenshot(session, 'logs');
      await expectAccessible(session, 'logs');
      await logRow.getByRole('button', { name: `${t('en', 'logTable.expand')}: ${jobName}`, exact: true }).click();
      const detail = page.locator(`#log-detail-${job.job_id}`).getByTestId('log-detail');
      const logged = detail.getByTestId('logged-room');
      await expect.poll(() => logged.allInnerTexts()).toHaveLength(ROOMS_PER_JOB);
      for (const [index, room] of rooms.entries()) {
        if (viewport.name === 'desktop') {
          await expect.poll(() => textOf(logged.nth(index).locator('td').nth(1))).toBe(room.room_name);
          await expect.poll(() => textOf(logged.nth(index).locator('td').nth(2))).toBe(t('en', 'roomResult.disinfected'));
        } else {
          // On a phone each room is a block: its order and name, then its result, then its figures.
          await expect.poll(() => logged.nth(index).locator('div').nth(0).innerText()).toBe(`${String(index + 1)}. ${room.room_name}`);
          await expect.poll(() => logged.nth(index).locator('div').nth(1).innerText()).toBe(t('en', 'roomResult.disinfected'));
        }
      }
      await expect.poll(() => textOf(detail.locator('dd').first())).toBe(robot.name);
      await screenshot(session, 'log-detail');
      await expectAccessible(session, 'log-detail');

      // Its trajectory, drawn in the opened log over the floor it drove on.
      const trajectory = detail.getByTestId('trajectory');
      await trajectory.waitFor({ state: 'visible' });
      const points = (await trajectory.getAttribute('points'))?.trim().split(/\s+/) ?? [];
      expect(points.length, 'points of the trajectory polyline').toBeGreaterThanOrEqual(2);
      await screenshot(session, 'log-trajectory-journey');
      await expectAccessible(session, 'log-trajectory-journey');
    },
    JOURNEY_TIMEOUT_MS,
  );
});
