/**
 * Issue #25's account recovery in Chromium, as people go through it. A user who forgot the password asks for a
 * link, reads the mail from the server's local mail catcher (smtp-server, which the server runs when no SMTP_URL is
 * set: there is no mail server here), chooses a new password, is signed out on the device that was still signed
 * in, and signs in with it. An admin sets a user's password, and that user must choose their own at sign-in.
 */
import { buildPath, CaughtMail, createUser, listCaughtMail, MAIL_CATCHER_HEADER } from '@uvd/contracts';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type ApiSession, apiSignIn, fetchHonouringRetryAfter } from '../support/api.ts';
import {
  baseUrl,
  DESKTOP,
  expectAccessible,
  expectNoPageErrors,
  launchBrowser,
  MOBILE,
  openSession,
  textOf,
  type Session,
  type Viewport,
} from '../support/browser.ts';
import { DEMO, pathnameOf, signedInSession, signIn, t, tFill, type Language } from '../support/console.ts';
import { E2E_MAIL_CATCHER_TOKEN } from '../support/server.ts';

let browser: Browser;
let adminApi: ApiSession;
beforeAll(async () => {
  browser = await launchBrowser();
  adminApi = await apiSignIn(DEMO.org, DEMO.admin.username, DEMO.admin.password);
});
afterAll(async () => {
  await browser.close();
});

/** A user of the demo organization of this test alone (a fresh address each run), with a first password. */
async function newUser(label: string): Promise<{ email: string; password: string }> {
  const email = `${label}-${Date.now().toString(36)}@demo.example`;
  const password = 'first-password-1';
  const reply = await fetchHonouringRetryAfter(new URL(`/api${createUser.path}`, baseUrl()), {
    method: 'POST',
    headers: { authorization: `Bearer ${adminApi.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ firstName: 'Reset', lastName: label, email, password }),
  });
  expect(reply.status, await reply.clone().text()).toBe(201);
  return { email, password };
}

/** The mail the catcher holds for `to` that `matches`, once it has come (the outbox sends after commit). */
async function mailTo(to: string, what: string, matches: (mail: CaughtMail) => boolean): Promise<CaughtMail> {
  let found: CaughtMail | undefined;
  await expect
    .poll(
      async () => {
        const url = new URL(`/api${buildPath(listCaughtMail.path)}`, baseUrl());
        url.searchParams.set('to', to);
        const reply = await fetchHonouringRetryAfter(url, { headers: { [MAIL_CATCHER_HEADER]: E2E_MAIL_CATCHER_TOKEN } });
        const mails = z.object({ data: z.array(CaughtMail) }).parse(await reply.json()).data;
        found = mails.find(matches);
        return found !== undefined;
      },
      { message: `${what} mailed to ${to}`, timeout: 20_000 },
    )
    .toBe(true);
  if (found === undefined) throw new Error('unreachable: polled until found');
  return found;
}

/** Closes the sessions whatever happened; a page error in any fails the test. */
async function closing(sessions: Session[], use: () => Promise<void>): Promise<void> {
  try {
    await use();
    for (const session of sessions) expectNoPageErrors(session);
  } finally {
    for (const session of sessions) await session.close();
  }
}

const WALKS: readonly { viewport: Viewport; language: Language }[] = [
  { viewport: DESKTOP, language: 'fi' },
  { viewport: MOBILE, language: 'se' },
  { viewport: MOBILE, language: 'en' },
];

describe('a user who forgot the password gets back in by mail', () => {
  it.each(WALKS)('at $viewport.width×$viewport.height in $language', async ({ viewport, language }) => {
    const user = await newUser(`forgot-${language}`);
    // The device the user is still signed in on (the phone in a locker, say).
    const elsewhere = await signedInSession(browser, viewport, { username: user.email, password: user.password });
    const session = await openSession(browser, viewport);
    await closing([elsewhere, session], async () => {
      const { page } = session;
      await session.goto(`/auth/restore-my-password?lng=${language}`);
      expect(await textOf(page.locator('h1'))).toBe(t(language, 'restorePassword.title'));
      await page.locator('#restore-organization').fill(DEMO.org);
      await page.locator('#restore-email').fill(user.email);
      await expectAccessible(session, `forgot-password-${language}`);
      await page.locator('form button[type=submit]').click();
      await page.getByText(t(language, 'restorePassword.sent')).waitFor({ state: 'visible' });

      const mail = await mailTo(user.email, 'a reset link', (caught) => caught.text.includes('/auth/reset-password?token='));
      const link = /https?:\/\/\S+\/auth\/reset-password\?token=[A-Za-z0-9_-]{43}/.exec(mail.text)?.[0];
      expect(link, `a reset link in the mail:\n${mail.text}`).toBeDefined();
      const address = new URL(link ?? '');
      // The link names the server it came from.
      expect(address.origin).toBe(new URL(baseUrl()).origin);
      await session.goto(`${address.pathname}${address.search}&lng=${language}`);
      expect(await textOf(page.locator('h1'))).toBe(t(language, 'resetPassword.title'));
      // A password shorter than the rules allow is refused in the form, naming the rule.
      await page.locator('#reset-password').fill('short');
      await page.locator('#reset-repeat').fill('short');
      await page.locator('form button[type=submit]').click();
      await page.getByText(tFill(language, 'newPassword.tooShort', { min: 8 })).first().waitFor({ state: 'visible' });
      const newPassword = `new-password-${language}-2`;
      await page.locator('#reset-password').fill(newPassword);
      await page.locator('#reset-repeat').fill(newPassword);
      await expectAccessible(session, `reset-password-${language}`);
      await page.locator('form button[type=submit]').click();
      await page.getByText(t(language, 'resetPassword.done')).waitFor({ state: 'visible' });

      // The same link a second time: it worked once.
      await session.goto(`${address.pathname}${address.search}&lng=${language}`);
      await page.locator('#reset-password').fill('another-password-3');
      await page.locator('#reset-repeat').fill('another-password-3');
      await page.locator('form button[type=submit]').click();
      await page.getByText(t(language, 'resetPassword.used')).waitFor({ state: 'visible' });

      // The user is told the password changed.
      await mailTo(user.email, 'the news of the change', (caught) => /was changed|vaihdettiin|har ändrats/.test(caught.subject));

      // Signed out on the other device: the next screen it opens is the sign-in.
      await elsewhere.page.goto('/jobs', { waitUntil: 'load' });
      await expect.poll(() => pathnameOf(elsewhere.page), { message: 'the other device is signed out' }).toMatch(/^\/auth/);

      // The old password no longer signs in (OAuth invalid_grant, 400); the new one does.
      await expect(apiSignIn(DEMO.org, user.email, user.password)).rejects.toThrow(/answered 400/);
      await session.goto('/auth');
      await signIn(page, DEMO.org, user.email, newPassword);
      expect(pathnameOf(page)).not.toMatch(/^\/auth/);
    });
  });
});

describe('an admin sets a password, which the user must change at sign-in', () => {
  it.each([
    { viewport: DESKTOP, language: 'en' as const },
    { viewport: MOBILE, language: 'fi' as const },
  ])('at $viewport.width×$viewport.height in $language', async ({ viewport, language }) => {
    const user = await newUser(`admin-set-${language}`);
    const admin = await signedInSession(browser, viewport, DEMO.admin);
    const person = await openSession(browser, viewport);
    await closing([admin, person], async () => {
      const { page } = admin;
      await admin.goto(`/admin?lng=${language}#users`);
      const button = page.getByRole('button', { name: tFill(language, 'setPassword.buttonNamed', { name: user.email }) });
      await button.first().waitFor({ state: 'visible', timeout: 15_000 });
      if (viewport === MOBILE) {
        const box = await button.first().boundingBox();
        expect(box?.height ?? 0, 'the set-password button is a phone touch target').toBeGreaterThanOrEqual(44);
      }
      await button.first().click();
      const given = `given-password-${language}-1`;
      await page.locator('#add-password').fill(given);
      await expectAccessible(admin, `admin-set-password-${language}`);
      await page.getByRole('dialog').getByRole('button', { name: t(language, 'setPassword.submit') }).click();
      await page.getByText(tFill(language, 'setPassword.done', { name: user.email })).first().waitFor({ state: 'visible' });

      // The user signs in with the given password and is asked for their own before anything else.
      await person.goto(`/auth?lng=${language}`);
      await person.page.locator('#sign-in-organization').fill(DEMO.org);
      await person.page.locator('#sign-in-username').fill(user.email);
      await person.page.locator('#sign-in-password').fill(given);
      await person.page.locator('form button[type=submit]').click();
      await person.page.waitForURL((url) => url.pathname === '/auth/change-password');
      await person.page.getByText(t(language, 'changePassword.instructions')).waitFor({ state: 'visible' });
      // Straight to the jobs: still the change screen.
      await person.page.goto('/jobs', { waitUntil: 'load' });
      await person.page.waitForURL((url) => url.pathname === '/auth/change-password');
      await expectAccessible(person, `change-password-${language}`);
      const own = `own-password-${language}-4`;
      await person.page.locator('#change-current').fill(given);
      await person.page.locator('#change-password').fill(own);
      await person.page.locator('#change-repeat').fill(own);
      await person.page.locator('form button[type=submit]').click();
      await person.page.waitForURL((url) => !url.pathname.startsWith('/auth'));
      await person.page.locator('h1').first().waitFor({ state: 'visible' });

      // The given password is gone; the user's own signs in with nothing more to do.
      await expect(apiSignIn(DEMO.org, user.email, given)).rejects.toThrow(/answered 400/);
      await expect(apiSignIn(DEMO.org, user.email, own)).resolves.toMatchObject({ token: expect.any(String) as unknown });
    });
  });
});
