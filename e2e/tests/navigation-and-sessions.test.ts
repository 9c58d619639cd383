/**
 * Issue #25's items 1, 6 and 11 in Chromium: the language saved in the profile is the one shown on every device;
 * the console keeps the user's place (the job editor back to the list's page and filters, admin tabs in the
 * history, Escape on the phone menu, a deep link after sign-in); and "Stay signed in on this device" decides whether
 * the session outlives the browser's last tab.
 */
import { buildPath, createJob, deleteJob, getDoses, getRuntimeConfig, postToken, saveSettings } from '@uvd/contracts';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiSession, apiSignIn, callApi, fetchHonouringRetryAfter } from '../support/api.ts';
import {
  baseUrl,
  DESKTOP,
  expectAccessible,
  expectNoPageErrors,
  launchBrowser,
  MOBILE,
  openSession,
  settle,
  textOf,
  VIEWPORTS,
  type Session,
} from '../support/browser.ts';
import { DEMO, pathnameOf, signedInSession, signIn, t, type Language } from '../support/console.ts';
import { nearestRooms, readyRobot } from '../support/fleet.ts';

const LANGUAGES: readonly Language[] = ['fi', 'se', 'en'];
const HOME_TIMEZONE = 'Europe/Helsinki';

let browser: Browser;
let operatorApi: ApiSession;
let adminApi: ApiSession;
beforeAll(async () => {
  browser = await launchBrowser();
  operatorApi = await apiSignIn(DEMO.org, DEMO.operator.username, DEMO.operator.password);
  adminApi = await apiSignIn(DEMO.org, DEMO.admin.username, DEMO.admin.password);
});
afterAll(async () => {
  await browser.close();
});

/** Opens a session, runs `use`, and closes it whatever happened; a page error fails the test. */
async function withSession<T>(session: Session, use: (session: Session) => Promise<T>): Promise<T> {
  try {
    const result = await use(session);
    expectNoPageErrors(session);
    return result;
  } finally {
    await session.close();
  }
}

describe('the profile is the truth about language and timezone (item 1)', () => {
  it.each(VIEWPORTS)('at $width×$height in fi, se and en: Settings shows the language shown, and another browser applies what was saved', async (viewport) => {
    try {
      await withSession(await signedInSession(browser, viewport, DEMO.operator), async (first) => {
        const { page } = first;
        for (const [index, language] of LANGUAGES.entries()) {
          // This browser shows the language (?lng=), whatever the profile said before.
          await first.goto(`/settings?lng=${language}`);
          await expect.poll(() => textOf(page.locator('h1')), { message: `${language} named in the address` }).toBe(t(language, 'settings.title'));
          await page.getByLabel(t(language, 'settings.language')).waitFor({ state: 'visible', timeout: 30_000 });
          const select = page.getByLabel(t(language, 'settings.language'));
          await expect.poll(() => select.inputValue(), { message: `${language}: the select shows the language shown` }).toBe(language);
          // Only the timezone changes; the language stays the one shown.
          const timezone = index % 2 === 0 ? 'Europe/Stockholm' : HOME_TIMEZONE;
          await page.getByLabel(t(language, 'settings.timezone')).fill(timezone);
          await page.getByRole('button', { name: t(language, 'settings.save') }).click();
          await page.getByText(t(language, 'settings.saved')).first().waitFor({ state: 'visible' });
          expect(await textOf(page.locator('h1'))).toBe(t(language, 'settings.title'));
          expect(await page.getByTestId('nav-jobs').textContent()).toBe(t(language, 'nav.jobs'));

          // Another browser, nothing in its storage, its navigator in English: signed in, it shows the saved language.
          await withSession(await openSession(browser, viewport), async (second) => {
            await second.goto('/auth');
            await signIn(second.page, DEMO.org, DEMO.operator.username, DEMO.operator.password);
            await expect
              .poll(() => second.page.getByTestId('nav-jobs').textContent(), { message: `${language} after sign-in on another browser` })
              .toBe(t(language, 'nav.jobs'));
            await expect.poll(() => textOf(second.page.locator('h1'))).toBe(t(language, 'nav.jobs'));
            for (const screen of ['robots', 'settings'] as const) {
              await second.goto(`/${screen}`);
              await expect.poll(() => textOf(second.page.locator('h1')), { message: `${language} on /${screen}` }).toBe(t(language, screen === 'robots' ? 'nav.robots' : 'settings.title'));
            }
            expect(await second.page.getByLabel(t(language, 'settings.language')).inputValue()).toBe(language);
            expect(await second.page.getByLabel(t(language, 'settings.timezone')).inputValue()).toBe(timezone);
            expect(await second.page.locator('html').getAttribute('lang')).toBe(language === 'se' ? 'sv' : language);
          });
        }
      });
    } finally {
      await callApi(operatorApi, saveSettings, { body: { language: 'EN', timezone: HOME_TIMEZONE } });
    }
    // Four sign-ins and three saves: ~35 s on a quiet machine.
  }, 150_000);
});

describe('the user keeps their place (item 6)', () => {
  let created: string | null = null;
  /** A job of the demo admin's, scheduled tomorrow, for the deep link and the editor (made inside a test: it polls). */
  async function scheduledJob(): Promise<string> {
    if (created !== null) return created;
    const robot = await readyRobot(adminApi, 'UVD-1');
    const [room] = await nearestRooms(adminApi, robot, 1);
    if (!room) throw new Error('no room');
    const dose = Math.max(...(await callApi(adminApi, getDoses)).uvc_doses);
    const job = await callApi(adminApi, createJob, {
      params: { robotId: robot.robot_id },
      body: {
        name: `Deep link ${new Date().toISOString().slice(11, 19)}`,
        start_time: new Date(Date.now() + 24 * 3600_000).toISOString(),
        rooms: [{ room_id: room.room_id, order_no: 0, dose }],
      },
    });
    created = job.job_id;
    return created;
  }
  afterAll(async () => {
    if (created !== null) await callApi(adminApi, deleteJob, { params: { id: created } });
  });

  it('a job link opened while signed out lands on that job after sign-in', async () => {
    const jobId = await scheduledJob();
    await withSession(await openSession(browser, DESKTOP), async (session) => {
      const { page } = session;
      await page.goto(`/job/${jobId}`);
      await page.waitForURL((url) => url.pathname.startsWith('/auth'));
      await signIn(page, DEMO.org, DEMO.admin.username, DEMO.admin.password);
      await page.waitForURL((url) => url.pathname === '/jobs');
      await settle(page);
      await expect.poll(() => page.locator(`#job-details-${jobId}`).isVisible(), { message: 'the linked job is open' }).toBe(true);
    });
  });

  it('Cancel in the job editor (new or edit) returns to the page and filters; admin tabs are history entries', async () => {
    const jobId = await scheduledJob();
    await withSession(await signedInSession(browser, DESKTOP, DEMO.admin), async (session) => {
      const { page } = session;
      const paged = '?status=Scheduled&offset=10&limit=10';
      await session.goto(`/jobs${paged}`);
      await page.getByRole('link', { name: t('en', 'jobTable.newJob') }).click();
      await page.waitForURL((url) => url.pathname === '/jobs/create');
      await settle(page);
      await page.locator('#job-cancel').click();
      await page.waitForURL((url) => url.pathname === '/jobs');
      expect(new URL(page.url()).search).toBe(paged);

      const filtered = '?status=Scheduled&limit=50';
      await session.goto(`/jobs${filtered}`);
      const row = page.getByTestId('job-row').filter({ has: page.getByRole('button', { name: new RegExp(`^${t('en', 'jobTable.expand')}: Deep link`) }) });
      await row.first().getByRole('button').first().click();
      await page.locator(`#job-details-${jobId}`).getByRole('button', { name: t('en', 'jobControls.edit'), exact: true }).click();
      await page.waitForURL((url) => url.pathname === `/jobs/edit/${jobId}`);
      await settle(page);
      await page.locator('#job-cancel').click();
      await page.waitForURL((url) => url.pathname === '/jobs');
      expect(new URL(page.url()).search).toBe(filtered);

      // Admin tabs: Back from Contacts goes to the tab before, not out of the dashboard.
      await session.goto('/admin');
      for (const tab of ['groups', 'contacts'] as const) {
        await page.getByRole('tab', { name: t('en', `adminView.tab.${tab}`) }).click();
        await page.waitForURL((url) => url.hash === `#${tab}`);
      }
      await page.goBack();
      await page.waitForURL((url) => url.hash === '#groups');
      await expect.poll(() => page.getByRole('tab', { selected: true }).textContent()).toBe(t('en', 'adminView.tab.groups'));
      await page.goBack();
      await page.waitForURL((url) => url.pathname === '/admin' && url.hash === '');
      await expect.poll(() => page.getByRole('tab', { selected: true }).textContent()).toBe(t('en', 'adminView.tab.users'));
    });
  });

  it('Escape closes the phone menu and gives the focus back to its button', async () => {
    await withSession(await signedInSession(browser, MOBILE, DEMO.operator), async (session) => {
      const { page } = session;
      const toggle = page.getByRole('button', { name: t('en', 'nav.toggle') });
      await toggle.click();
      await page.getByTestId('nav-robots').waitFor({ state: 'visible' });
      await page.keyboard.press('Tab');
      await page.keyboard.press('Escape');
      await page.getByTestId('nav-robots').waitFor({ state: 'hidden' });
      expect(await toggle.getAttribute('aria-expanded')).toBe('false');
      expect(await toggle.evaluate((element) => element === document.activeElement)).toBe(true);
    });
  });
});

describe('"Stay signed in on this device" (item 11)', () => {
  /** Every page of the context closes (the browser's last tab) and a new one opens the console; storage stays. */
  async function reopen(context: BrowserContext): Promise<Page> {
    for (const page of context.pages()) await page.close();
    const page = await context.newPage();
    await page.goto('/jobs');
    await page.locator('h1').first().waitFor({ state: 'visible' });
    await settle(page);
    return page;
  }

  it.each(VIEWPORTS)('at $width×$height: off by default, said on the sign-in page, axe clean', async (viewport) => {
    await withSession(await openSession(browser, viewport), async (session) => {
      await session.goto('/auth');
      const box = session.page.getByRole('checkbox', { name: t('en', 'signInForm.staySignedIn') });
      expect(await box.isChecked()).toBe(false);
      await session.page.getByText(t('en', 'signInForm.staySignedInHelp')).waitFor({ state: 'visible' });
      const target = await session.page.locator('label[for="sign-in-stay"]').boundingBox();
      expect(target?.height ?? 0, 'the box and its label are one 44 px target').toBeGreaterThanOrEqual(44);
      await expectAccessible(session, 'sign-in-stay-signed-in');
    });
  });

  it('unticked, closing the last tab ends the session; ticked, it survives until sign-out, which revokes it', async () => {
    // Unticked: as before, the session lives as long as a tab keeps it.
    await withSession(await openSession(browser, DESKTOP), async (session) => {
      await session.goto('/auth');
      await signIn(session.page, DEMO.org, DEMO.operator.username, DEMO.operator.password);
      await settle(session.page);
      const page = await reopen(session.context);
      expect(pathnameOf(page)).toBe('/auth');
    });

    // Ticked: a new tab after the last one closed is signed in.
    await withSession(await openSession(browser, DESKTOP), async (session) => {
      await session.goto('/auth');
      await session.page.getByRole('checkbox', { name: t('en', 'signInForm.staySignedIn') }).check();
      await signIn(session.page, DEMO.org, DEMO.operator.username, DEMO.operator.password);
      await settle(session.page);
      let page = await reopen(session.context);
      expect(pathnameOf(page)).toBe('/jobs');
      await page.getByTestId('nav-jobs').waitFor({ state: 'visible' });

      // Sign-out forgets it on this device and ends it at the identity provider: the kept token is refused.
      const kept = await page.evaluate(() => localStorage.getItem('kept_refresh_token'));
      expect(kept).not.toBeNull();
      await page.getByRole('button', { name: t('en', 'nav.logout') }).click();
      await page.waitForURL((url) => url.pathname.startsWith('/auth'));
      expect(await page.evaluate(() => localStorage.getItem('kept_refresh_token'))).toBeNull();
      const config = getRuntimeConfig.response[200].parse(await (await fetch(new URL(getRuntimeConfig.path, baseUrl()))).json());
      const refused = await fetchHonouringRetryAfter(new URL(`${config.identity}${buildPath(postToken.path, { organization: DEMO.org })}`, baseUrl()), {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'refresh_token', client_id: config.clientId, refresh_token: kept ?? '' }),
      });
      expect(refused.status).toBe(400);
      page = await reopen(session.context);
      expect(pathnameOf(page)).toBe('/auth');
    });
  });
});
