/**
 * Debian's Chromium driven by playwright-core (no downloaded browser), one browser per test file, one fresh context
 * (cookies, storage) per test, at the two sizes the console must work at.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import { chromium, type Browser, type BrowserContext, type Locator, type Page } from 'playwright-core';
import { expect, inject } from 'vitest';
import { ARTIFACTS_DIR, chromiumPath, SCREENSHOTS_DIR } from './paths.ts';

/**
 * Root in a container needs no sandbox; the rest keeps a headless run quiet and off the network, but the last.
 * `--js-flags=--max-opt=1`: V8 runs the console's JavaScript in its interpreter and its baseline compiler
 * (Sparkplug) only, never optimizing it (Maglev, TurboFan). A test's page lives seconds, and the step is bound by CPU:
 * optimizing cost more than it saved. screens.test.ts and frame.test.ts on two workers took 82 s of CPU with it and
 * 91-99 s without (84.5-87 interpreter only, 94-95 with Maglev); the admin, safety, proof and audit files 115 s
 * against 134. Same JavaScript, same results; the benches of the console's speed (bench/web-browser.ts) keep V8's
 * default, as a person's browser has it.
 */
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-quic',
  '--no-first-run',
  '--js-flags=--max-opt=1',
];

export interface Viewport {
  name: 'desktop' | 'mobile';
  width: number;
  height: number;
}

export const DESKTOP: Viewport = { name: 'desktop', width: 1280, height: 800 };
export const MOBILE: Viewport = { name: 'mobile', width: 375, height: 812 };
export const VIEWPORTS: readonly Viewport[] = [DESKTOP, MOBILE];

let ownServer: string | undefined;

/**
 * The console under test: this worker's server of the run (global-setup.ts starts one per worker), or the one a
 * test file started itself (`useServer`).
 */
export function baseUrl(): string {
  if (ownServer) return ownServer;
  const servers = inject('baseUrls');
  const server = servers[(Number(process.env.VITEST_POOL_ID ?? '1') - 1) % servers.length];
  if (!server) throw new Error('no server for this worker (global-setup.ts)');
  return server;
}

/**
 * Points this test file's sessions and API calls at a server it started itself (e.g. the logistics variant), or
 * back at the run's shared server with undefined. The files of a worker share this module (`isolate: false`): a file
 * that points elsewhere points back when it ends.
 */
export function useServer(url: string | undefined): void {
  ownServer = url;
}

/**
 * `backForwardCache`: keep Chromium's back/forward cache, as a person's browser has it (Playwright turns it off
 * by default, so that a page left behind is gone). `systemNotifications`: the full browser, for the tests of Web
 * Push and the system's notifications, which the headless shell (the default, paths.ts) denies.
 */
export function launchBrowser(options: { backForwardCache?: boolean; systemNotifications?: boolean } = {}): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath({ full: options.systemNotifications === true }),
    args: CHROMIUM_ARGS,
    headless: true,
    ...(options.backForwardCache ? { ignoreDefaultArgs: ['--disable-back-forward-cache'] } : {}),
  });
}

export interface Session {
  viewport: Viewport;
  context: BrowserContext;
  page: Page;
  /** Uncaught exceptions of the page; a test that ends with any has found a bug. */
  pageErrors: Error[];
  /** Opens a path of the console (e.g. `/jobs?lng=fi`) and waits until the screen has rendered (`settle`). */
  goto(pathAndQuery: string): Promise<void>;
  close(): Promise<void>;
}

export async function openSession(browser: Browser, viewport: Viewport, options: { locale?: string } = {}): Promise<Session> {
  const context = await browser.newContext({
    baseURL: baseUrl(),
    viewport: { width: viewport.width, height: viewport.height },
    isMobile: viewport.name === 'mobile',
    hasTouch: viewport.name === 'mobile',
    // The navigator language is one of i18next's detection sources: pin it, so English is what a test sees first.
    locale: options.locale ?? 'en-US',
    timezoneId: 'Europe/Helsinki',
  });
  context.setDefaultTimeout(15_000);
  const page = await context.newPage();
  const pageErrors: Error[] = [];
  page.on('pageerror', (error) => pageErrors.push(error));
  return {
    viewport,
    context,
    page,
    pageErrors,
    async goto(pathAndQuery) {
      // Not 'networkidle': the live streams (server-sent events) keep a request open for as long as the page lives.
      await page.goto(pathAndQuery, { waitUntil: 'load' });
      await settle(page);
    },
    async close() {
      await context.close();
    },
  };
}

/**
 * Waits until a screen has rendered: its h1 is visible, no whole-page spinner is left and nothing is marked busy
 * (skeletons, lists loading). Screens that stay busy are still captured after 10 s rather than failing here.
 */
export async function settle(page: Page): Promise<void> {
  await page.locator('h1').first().waitFor({ state: 'visible' });
  await page.locator('[data-testid=page-spinner]').waitFor({ state: 'detached', timeout: 10_000 });
  await page
    .waitForFunction(() => document.querySelectorAll('[aria-busy="true"]').length === 0, undefined, { timeout: 10_000 })
    .catch(() => undefined);
}

/**
 * Waits until the page has stopped scrolling: its scroll position the same over ten animation frames and a quarter of
 * a second. Bootstrap makes the page's scrolling smooth, so a focus that brings an element into view scrolls the page
 * for a while after it (at 375×812, focusing the floor plan scrolled the page 0 -> 211 px over the 7-226 ms after).
 */
export async function scrollAtRest(page: Page): Promise<void> {
  await page.evaluate(
    () =>
      new Promise<void>((resolve) => {
        let last = window.scrollY;
        let still = 0;
        let since = performance.now();
        const frame = () => {
          if (window.scrollY === last) {
            still += 1;
          } else {
            still = 0;
            since = performance.now();
          }
          last = window.scrollY;
          if (still >= 10 && performance.now() - since >= 250) resolve();
          else requestAnimationFrame(frame);
        };
        requestAnimationFrame(frame);
      }),
  );
}

/** The visible text of the first match, trimmed; for `expect.poll(() => textOf(locator)).toBe(…)`. */
export async function textOf(locator: Locator): Promise<string> {
  return (await locator.first().innerText()).trim();
}

function slug(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
}

/** A full-page screenshot in e2e-artifacts/screenshots/<screen>-<viewport>.png (the latest run wins). */
export async function screenshot(session: Session, screen: string): Promise<string> {
  const file = path.join(SCREENSHOTS_DIR, `${slug(screen)}-${session.viewport.name}.png`);
  await session.page.screenshot({ path: file, fullPage: true });
  return file;
}

/**
 * Waits until no fade or move runs (a CSS transition or animation of a second or less): react-bootstrap fades modals
 * in and Bootstrap's tabs fade their colours, and axe would measure the contrast of half-faded text.
 */
export async function stillness(page: Page): Promise<void> {
  await page.waitForFunction(() =>
    document
      .getAnimations()
      .filter((animation) => {
        const timing = animation.effect?.getTiming();
        // Endless ones (spinners, placeholder glow) never finish, and what is loading is settle's business; a toast's
        // countdown bar runs as long as the toast is shown, and is a timer, not a fade.
        return timing?.iterations !== Infinity && typeof timing?.duration === 'number' && timing.duration <= 1000;
      })
      .every((animation) => animation.playState !== 'running'),
  );
}

/**
 * Runs axe-core on the page once nothing fades or moves (a dialog caught mid-fade-in has half-faded text, which axe
 * rightly reads as too faint), and throws on any serious or critical violation, naming rule, impact and the
 * first offending elements. The full report goes to e2e-artifacts/axe/<screen>-<viewport>.json.
 *
 * Axe runs in the page itself (`axe.run`, @axe-core/playwright's legacy mode). Its default runs each frame's part and
 * merges them in a new blank page per check, for frames of other origins, which the console has none of (it has no
 * frames): the same rules on the same elements, where the blank page cost a fifth of the CPU of screens.test.ts
 * (88 -> 69 s of CPU, 81 -> 62 s, with one worker on this machine). `resultTypes: ['violations']`: every rule still
 * runs on every element and every violation is reported with all its elements; only the passes, the incomplete and
 * the inapplicable, which nothing here reads, keep one element each instead of a selector built for every one.
 */
export async function expectAccessible(session: Session, screen: string): Promise<void> {
  await stillness(session.page);
  const results = await new AxeBuilder({ page: session.page }).setLegacyMode(true).options({ resultTypes: ['violations'] }).analyze();
  const dir = path.join(ARTIFACTS_DIR, 'axe');
  await mkdir(dir, { recursive: true });
  await writeFile(path.join(dir, `${slug(screen)}-${session.viewport.name}.json`), JSON.stringify(results.violations, null, 2));
  const blocking = results.violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical');
  if (blocking.length === 0) return;
  const lines = blocking.map((violation) => {
    const targets = violation.nodes
      .slice(0, 3)
      .map((node) => node.target.join(' '))
      .join(', ');
    return `- ${violation.id} (${String(violation.impact)}): ${violation.help} — ${targets}`;
  });
  throw new Error(`axe: ${blocking.length} serious or critical violation(s) on ${screen} (${session.viewport.name}):\n${lines.join('\n')}`);
}

/** Fails the test with the page's uncaught errors since the last check (and forgets them). */
export function expectNoPageErrors(session: Session): void {
  const errors = session.pageErrors.splice(0).map((error) => error.message);
  expect(errors, 'uncaught errors in the page').toEqual([]);
}
