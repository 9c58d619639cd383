/**
 * The server's Content-Security-Policy (apps/server/src/plugins/security-headers.ts) breaks nothing the browser
 * loads: the signed-in console with its floor plan (a Blob URL image) and Swagger UI at /api/docs render, and
 * Chromium reports no violation of the policy.
 */
import type { Browser } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DESKTOP, expectNoPageErrors, launchBrowser, openSession, type Session } from '../support/browser.ts';
import { DEMO, signIn, t } from '../support/console.ts';

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser.close();
});

describe('the Content-Security-Policy', () => {
  let session: Session;
  let violations: string[];
  beforeEach(async () => {
    session = await openSession(browser, DESKTOP);
    violations = [];
    // Chromium reports a blocked script, style, image or connection on the console, naming the directive.
    session.page.on('console', (message) => {
      if (message.text().includes('Content Security Policy')) violations.push(message.text());
    });
  });
  afterEach(async () => {
    await session.close();
    expectNoPageErrors(session);
  });

  it('lets the console sign in and show a floor plan, and reports no violation', async () => {
    const { page } = session;
    const document = await page.goto('/auth', { waitUntil: 'load' });
    expect(await document?.headerValue('content-security-policy')).toContain("frame-ancestors 'none'");
    await signIn(page, DEMO.org, DEMO.admin.username, DEMO.admin.password);
    await session.goto('/map');
    await page.getByLabel(t('en', 'map.building')).selectOption({ index: 1 });
    const floor = page.getByLabel(t('en', 'map.floor'));
    await expect.poll(() => floor.isEnabled()).toBe(true);
    await floor.selectOption({ index: 1 });
    await page.getByTestId('floor-map').waitFor({ state: 'visible' });
    await expect.poll(() => page.locator('[data-testid=floor-map] img').evaluate((image: HTMLImageElement) => image.naturalWidth)).toBeGreaterThan(0);
    await session.goto('/jobs');
    expect(violations).toEqual([]);
  });

  it('lets Swagger UI render the API document, and reports no violation', async () => {
    const { page } = session;
    await page.goto('/api/docs', { waitUntil: 'load' });
    await page.locator('.swagger-ui .info .title').waitFor({ state: 'visible' });
    await page.locator('.swagger-ui .opblock').first().waitFor({ state: 'visible' });
    expect(violations).toEqual([]);
  });
});
