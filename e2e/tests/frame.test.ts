/**
 * The console's frame as a new user meets it, at 1280×800 and 375×812: the guards, signing in, languages and the
 * not-found page, each screen screenshotted and checked with axe.
 */
import type { Browser } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { expectAccessible, expectNoPageErrors, launchBrowser, openSession, screenshot, settle, textOf, VIEWPORTS, type Session } from '../support/browser.ts';
import { DEMO, pathnameOf, signIn, t } from '../support/console.ts';

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser.close();
});

describe.each(VIEWPORTS)('the console frame at $width×$height', (viewport) => {
  let session: Session;
  beforeEach(async () => {
    session = await openSession(browser, viewport);
  });
  afterEach(async () => {
    await session.close();
    expectNoPageErrors(session);
  });

  it('sends a signed-out visitor of /jobs to sign-in, which passes axe', async () => {
    const { page } = session;
    await session.goto('/jobs');
    await page.waitForURL((url) => url.pathname.startsWith('/auth'));
    await settle(page);
    await expect.poll(() => textOf(page.locator('h1'))).toBe(t('en', 'signInForm.title'));
    await page.locator('#sign-in-organization').waitFor({ state: 'visible' });
    await screenshot(session, 'sign-in');
    await expectAccessible(session, 'sign-in');
  });

  it('signs the demo operator in and lands on /jobs, which passes axe', async () => {
    const { page } = session;
    await session.goto('/auth');
    await signIn(page, DEMO.org, DEMO.operator.username, DEMO.operator.password);
    await page.waitForURL((url) => url.pathname === '/jobs');
    await settle(page);
    await screenshot(session, 'jobs');
    await expectAccessible(session, 'jobs');
  });

  it('keeps a teleoperator out of /admin: they are sent home, which is the jobs list', async () => {
    const { page } = session;
    await session.goto('/auth');
    await signIn(page, DEMO.org, DEMO.operator.username, DEMO.operator.password);
    await page.waitForURL((url) => url.pathname === '/jobs');
    await session.goto('/admin');
    await page.waitForURL((url) => url.pathname === '/jobs');
    expect(pathnameOf(page)).toBe('/jobs');
  });

  it('shows Finnish with ?lng=fi and Swedish with ?lng=se, and remembers the choice', async () => {
    const { page } = session;
    await session.goto('/auth?lng=fi');
    await expect.poll(() => textOf(page.locator('h1'))).toBe(t('fi', 'signInForm.title'));
    await expect.poll(() => textOf(page.locator('form button[type=submit]'))).toBe(t('fi', 'signInForm.submit'));
    expect(t('fi', 'signInForm.submit')).not.toBe(t('en', 'signInForm.submit'));
    await expect.poll(() => page.locator('html').getAttribute('lang')).toBe('fi');
    await screenshot(session, 'sign-in-fi');
    await expectAccessible(session, 'sign-in-fi');

    // The detected language is cached in local storage: a visit without ?lng keeps Finnish.
    await session.goto('/auth');
    await expect.poll(() => textOf(page.locator('h1'))).toBe(t('fi', 'signInForm.title'));

    await session.goto('/auth?lng=se');
    await expect.poll(() => textOf(page.locator('h1'))).toBe(t('se', 'signInForm.title'));
    await expect.poll(() => textOf(page.locator('form button[type=submit]'))).toBe(t('se', 'signInForm.submit'));
    // `se` is the product's code for Swedish; the document says sv so screen readers pick the right voice.
    await expect.poll(() => page.locator('html').getAttribute('lang')).toBe('sv');
    await screenshot(session, 'sign-in-se');
  });

  it('shows the not-found page for an unknown address, with a way back home', async () => {
    const { page } = session;
    await session.goto('/no/such/screen');
    await expect.poll(() => textOf(page.locator('h1'))).toBe(t('en', 'notFound.title'));
    await screenshot(session, 'not-found');
    await expectAccessible(session, 'not-found');
    await page.getByRole('link', { name: t('en', 'notFound.backHome') }).click();
    // Home is the jobs list, which sends a signed-out visitor to sign-in.
    await page.waitForURL((url) => url.pathname.startsWith('/auth'));
  });
});
