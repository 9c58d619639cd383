/**
 * The server hands a browser the built console: every script and stylesheet the page loads arrives (no 404 from a
 * stale or misplaced build), hashed assets are cached for a year, and a deep link loads the same page.
 */
import type { Browser, Response } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DESKTOP, launchBrowser, openSession } from '../support/browser.ts';

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser.close();
});

describe('the built console as the server serves it', () => {
  it.each(['/', '/jobs', '/no/such/screen'])('loads every script and stylesheet of %s', async (address) => {
    const session = await openSession(browser, DESKTOP);
    const assets: Response[] = [];
    session.page.on('response', (response) => {
      const type = response.request().resourceType();
      if (type === 'script' || type === 'stylesheet') assets.push(response);
    });
    const document = await session.page.goto(address, { waitUntil: 'load' });
    expect(document?.status()).toBe(200);
    expect(await document?.headerValue('cache-control')).toBe('no-cache');
    expect(assets.length).toBeGreaterThan(0);
    for (const asset of assets) {
      const { pathname } = new URL(asset.url());
      expect(asset.status(), pathname).toBe(200);
      if (pathname.startsWith('/assets/')) {
        expect(await asset.headerValue('cache-control'), pathname).toBe('public, max-age=31536000, immutable');
        // Chromium accepts brotli: the build's precompressed file is sent, not the raw one.
        expect(await asset.headerValue('content-encoding'), pathname).toBe('br');
      }
    }
    await session.close();
  });
});
