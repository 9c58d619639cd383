/**
 * What the web benches share: the build they measure, Debian's Chromium as they launch it, and the demo sign-in.
 */
import path from 'node:path';
import type { Page } from 'puppeteer-core';
import { ARTIFACTS_DIR } from '../e2e/support/paths.ts';

/** The web benches' own build, so they never swap files under a browser test that serves e2e-artifacts/web-dist. */
export const WEB_DIST = path.join(ARTIFACTS_DIR, 'bench-web-dist');

export const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--headless=new'];

const PASSWORDS: Record<string, string> = { operator: 'operator-demo-1', admin: 'admin-demo-1', superadmin: 'superadmin-demo-1' };

/** Signs the tab in to the demo organization as `username` (its session lives in the tab's session storage). */
export async function signIn(page: Page, baseUrl: string, username: string): Promise<void> {
  const password = PASSWORDS[username];
  if (!password) throw new Error(`no demo password known for ${username}`);
  await page.goto(`${baseUrl}/auth/demo`, { waitUntil: 'load' });
  await page.locator('#sign-in-organization').fill('demo');
  await page.locator('#sign-in-username').fill(username);
  await page.locator('#sign-in-password').fill(password);
  await Promise.all([page.waitForFunction("!location.pathname.startsWith('/auth')", { timeout: 15_000 }), page.click('form button[type=submit]')]);
}
