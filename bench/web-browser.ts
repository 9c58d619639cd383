/**
 * What the web benches share: the build they measure, Debian's Chromium as they launch it, the demo sign-in, the
 * map's first floor chosen, and their tables.
 */
import path from 'node:path';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { ARTIFACTS_DIR, chromiumPath } from '../e2e/support/paths.ts';
import type { ConsoleServer } from '../e2e/support/server.ts';

/** The web benches' own build, so they never swap files under a browser test that serves e2e-artifacts/web-dist. */
export const WEB_DIST = path.join(ARTIFACTS_DIR, 'bench-web-dist');

const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--headless=new'];

/**
 * Debian's full Chromium, headless (`--headless=new`: a person's browser, as the earlier figures were measured; the
 * browser tests use the lighter headless shell). The servers a bench started are processes of their own: when the
 * browser cannot start they are stopped, not left running to load the machine's later runs.
 */
export async function launchChromium(servers: ConsoleServer[]): Promise<Browser> {
  return puppeteer.launch({ executablePath: chromiumPath({ full: true }), headless: true, args: CHROMIUM_ARGS }).catch(async (error: unknown) => {
    await Promise.all(servers.map((server) => server.stop()));
    throw error;
  });
}

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

/**
 * The map remembers the building and floor per user in local storage (which Lighthouse leaves alone): the first
 * building and its first floor are chosen once, so every later visit of /map opens on a plan with robots.
 */
export async function chooseFirstFloor(page: Page, baseUrl: string): Promise<void> {
  await page.goto(`${baseUrl}/map`, { waitUntil: 'load' });
  const enabledSelects = (count: number) => page.waitForFunction(`document.querySelectorAll('main select:not([disabled])').length >= ${count}`, { timeout: 15_000 });
  await enabledSelects(1);
  await page.focus('main select');
  await page.keyboard.press('ArrowDown');
  await enabledSelects(2);
  const [, floor] = await page.$$('main select');
  await floor?.focus();
  await page.keyboard.press('ArrowDown');
  await page.waitForSelector('[data-testid="floor-map"]', { timeout: 15_000 });
}

/** Columns padded to their widest cell; numbers right-aligned. */
export function printTable(title: string, header: string[], rows: string[][]): void {
  const widths = header.map((cell, column) => Math.max(cell.length, ...rows.map((row) => (row[column] ?? '').length)));
  const line = (cells: string[]) =>
    cells.map((cell, column) => (column === 0 ? cell.padEnd(widths[column] ?? 0) : cell.padStart(widths[column] ?? 0))).join('  ');
  console.log(`\n${title}`);
  console.log(`  ${line(header)}`);
  console.log(`  ${widths.map((width) => '-'.repeat(width)).join('  ')}`);
  for (const row of rows) console.log(`  ${line(row)}`);
}
