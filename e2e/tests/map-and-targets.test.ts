/**
 * The floor map as a hand uses it, at 1280×800 and 375×812: the plan's size, zoom and pan by buttons, keyboard,
 * mouse wheel and drag, and on a phone by pinch and one-finger drag (real touch events through the DevTools
 * protocol); robots named by their room; a log's trajectory drawn in its row; the not-found page inside the app;
 * and on a phone no control smaller than 24×24 px (WCAG 2.5.8) on the jobs, logs, map and robots screens.
 */
import { listLogs } from '@uvd/contracts';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { apiSignIn, callApi } from '../support/api.ts';
import { expectAccessible, expectNoPageErrors, launchBrowser, MOBILE, screenshot, scrollAtRest, settle, textOf, VIEWPORTS, type Session } from '../support/browser.ts';
import { blockSession, DEMO, signedInSession, t } from '../support/console.ts';
import { readyRobot } from '../support/fleet.ts';

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser.close();
});

interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

async function boxOf(page: Page, testId: string): Promise<Box> {
  const box = await page.getByTestId(testId).first().boundingBox();
  if (!box) throw new Error(`${testId} is not shown`);
  return box;
}

/** The plan layer's zoom and offset, as its transform applies them. */
async function viewOf(page: Page): Promise<{ scale: number; x: number; y: number }> {
  return page.getByTestId('plan-layer').first().evaluate((layer) => {
    const matrix = new DOMMatrix(getComputedStyle(layer).transform);
    return { scale: matrix.a, x: matrix.e, y: matrix.f };
  });
}

/**
 * Touch points through the DevTools protocol, as a phone's screen sends them: Chromium turns them into the
 * pointer events the plan listens to (Playwright's touchscreen only taps).
 */
async function touch(page: Page, steps: { type: 'touchStart' | 'touchMove' | 'touchEnd'; points: { x: number; y: number }[] }[]): Promise<void> {
  const cdp = await page.context().newCDPSession(page);
  try {
    for (const step of steps) {
      await cdp.send('Input.dispatchTouchEvent', {
        type: step.type,
        touchPoints: step.points.map((point, id) => ({ x: point.x, y: point.y, id, radiusX: 1, radiusY: 1, force: 1 })),
      });
    }
  } finally {
    await cdp.detach();
  }
}

/** Moves of a gesture in `count` even steps from `from` to `to` (each a list of fingers). */
function path(from: { x: number; y: number }[], to: { x: number; y: number }[], count: number) {
  return Array.from({ length: count }, (_, step) => ({
    type: 'touchMove' as const,
    points: from.map((start, finger) => {
      const end = to[finger] ?? start;
      const share = (step + 1) / count;
      return { x: start.x + (end.x - start.x) * share, y: start.y + (end.y - start.y) * share };
    }),
  }));
}

/** What scrolls sideways: the page, or a table's scroll box (a list whose row holds a plan). */
function sidewaysOverflow(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const boxes = [document.documentElement, ...Array.from(document.querySelectorAll('main .table-responsive'))];
    return boxes
      .filter((box) => box.scrollWidth > box.clientWidth + 1)
      .map((box) => `${box.tagName.toLowerCase()}.${box.className}: ${String(box.scrollWidth)} px in ${String(box.clientWidth)} px`);
  });
}

describe.each(VIEWPORTS)('the floor map at $width×$height', (viewport) => {
  const session = blockSession(() => browser, viewport, DEMO.admin);

  it('fits the plan to the screen, zooms and moves it by buttons, keys, wheel, drag and pinch, and names robots by room', async () => {
    const { page } = session;
    const api = await apiSignIn(DEMO.org, DEMO.admin.username, DEMO.admin.password);
    const robot = await readyRobot(api, 'UVD-1');
    await session.goto(`/map?robot=${robot.robot_id}`);
    await page.locator('[data-testid=floor-map] img').waitFor({ state: 'visible' });

    // Behaviour §2: 600 px high on a desktop; on a phone the plan is as wide as the content and nearly as high as the
    // screen (issue #25: a plan shaped 351×240 left the rest of the phone unused).
    const plan = await boxOf(page, 'floor-map');
    const content = await page.locator('main .container-lg').first().evaluate((element) => {
      const style = getComputedStyle(element);
      return element.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
    });
    expect(Math.round(plan.width)).toBe(Math.round(content));
    if (viewport.name === 'desktop') expect(Math.round(plan.height)).toBe(600);
    else {
      expect(plan.height).toBeGreaterThanOrEqual(viewport.height * 0.75);
      expect(plan.height).toBeLessThan(viewport.height);
    }
    expect(await viewOf(page)).toEqual({ scale: 1, x: 0, y: 0 });

    // Buttons, by the names a screen reader reads.
    await page.getByRole('button', { name: t('en', 'map.zoomIn') }).click();
    await expect.poll(async () => (await viewOf(page)).scale).toBeCloseTo(1.5, 5);
    await page.getByRole('button', { name: t('en', 'map.zoomReset') }).click();
    await expect.poll(async () => (await viewOf(page)).scale).toBe(1);

    // Keyboard: the plan's group takes focus, + zooms, an arrow moves.
    await page.getByTestId('floor-map').focus();
    await page.keyboard.press('+');
    await page.keyboard.press('ArrowRight');
    await expect.poll(async () => (await viewOf(page)).scale).toBeCloseTo(1.5, 5);
    expect((await viewOf(page)).x).toBeCloseTo((-plan.width / 2) * 0.5 - plan.width * 0.1, 0);
    await page.keyboard.press('0');
    await expect.poll(async () => (await viewOf(page)).scale).toBe(1);

    const centre = { x: plan.x + plan.width / 2, y: plan.y + plan.height / 2 };
    if (viewport.name === 'desktop') {
      // The wheel zooms at the cursor, the page does not scroll (the plan takes the wheel event from the browser;
      // its scroll position is not compared, as live text above the plan may shift it by a line); a mouse drag
      // moves the plan.
      await page.evaluate(() => {
        window.addEventListener('wheel', (event) => {
          document.body.dataset.wheelTaken = String(event.defaultPrevented);
        });
      });
      await page.mouse.move(centre.x, centre.y);
      await page.mouse.wheel(0, -300);
      await expect.poll(async () => (await viewOf(page)).scale).toBeGreaterThan(1.5);
      expect(await page.evaluate(() => document.body.dataset.wheelTaken)).toBe('true');
      const before = await viewOf(page);
      await page.mouse.down();
      await page.mouse.move(centre.x + 40, centre.y + 30, { steps: 4 });
      await page.mouse.up();
      const after = await viewOf(page);
      expect([Math.round(after.x - before.x), Math.round(after.y - before.y)]).toEqual([40, 30]);
    } else {
      // Two fingers spread from 60 to 180 px apart: three times the zoom about their midpoint.
      const spread = 30;
      await touch(page, [
        { type: 'touchStart', points: [{ x: centre.x - spread, y: centre.y }, { x: centre.x + spread, y: centre.y }] },
        ...path(
          [{ x: centre.x - spread, y: centre.y }, { x: centre.x + spread, y: centre.y }],
          [{ x: centre.x - 3 * spread, y: centre.y }, { x: centre.x + 3 * spread, y: centre.y }],
          6,
        ),
        { type: 'touchEnd', points: [] },
      ]);
      await expect.poll(async () => (await viewOf(page)).scale).toBeCloseTo(3, 1);
      const pinched = await viewOf(page);
      // The midpoint stayed under the fingers: plan point (centre) maps to itself.
      expect(pinched.x + (plan.width / 2) * pinched.scale).toBeCloseTo(plan.width / 2, 0);
      // One finger drags the zoomed plan 50 px left and 20 px up; the page stays where it was. The page is compared
      // once it is at rest: focusing the plan above smooth-scrolls it into view over about a fifth of a second, which a
      // fast run overtook (the page read at 206 or 208 px on its way to 211, and compared with 211 after the drag).
      await scrollAtRest(page);
      const scrolled = await page.evaluate(() => window.scrollY);
      await touch(page, [
        { type: 'touchStart', points: [centre] },
        ...path([centre], [{ x: centre.x - 50, y: centre.y - 20 }], 5),
        { type: 'touchEnd', points: [] },
      ]);
      const dragged = await viewOf(page);
      expect([Math.round(dragged.x - pinched.x), Math.round(dragged.y - pinched.y)]).toEqual([-50, -20]);
      expect(await page.evaluate(() => window.scrollY)).toBe(scrolled);
    }
    await settle(page);
    expect(await sidewaysOverflow(page)).toEqual([]);
    await screenshot(session, 'map-zoomed');
    await expectAccessible(session, 'map-zoomed');

    // Robots are listed by the room they are in, or the corridor: never by metres.
    const list = page.getByTestId('map-robot-list');
    await list.waitFor({ state: 'visible' });
    const entries = await list.getByRole('listitem').allInnerTexts();
    expect(entries.length).toBeGreaterThan(0);
    for (const entry of entries) expect(entry).not.toMatch(/\bx [-\d.]+ m\b/);
    const corridor = t('en', 'map.robotInCorridor').replace('{{name}}', robot.name);
    const inRoom = new RegExp(`^${robot.name}: in `);
    expect(entries.some((entry) => entry.startsWith(corridor) || inRoom.test(entry))).toBe(true);
  });

  // A log with a path has a dose map too (the demo history's, issue #24): the path is drawn over it, on the plan.
  it("draws an opened log's trajectory on its floor's plan, over its dose map", async () => {
    const { page } = session;
    const api = await apiSignIn(DEMO.org, DEMO.admin.username, DEMO.admin.password);
    // The demo's two weeks of history, up to yesterday: the first page holds logs with a path across a floor (the
    // browser tests' own jobs, today's, drive a few metres between neighbouring rooms).
    const day = (daysAgo: number) => new Date(Date.now() - daysAgo * 24 * 3600_000).toISOString().slice(0, 10);
    const [fromDate, toDate] = [day(6), day(1)];
    const logs = await callApi(api, listLogs, { query: { offset: 0, limit: 10, from_date: fromDate, to_date: toDate } });
    const index = logs.payload.findIndex((log) => log.has_trajectory);
    expect(index, 'a log with a trajectory on the first page').toBeGreaterThanOrEqual(0);
    await session.goto(`/logs?startDate=${fromDate}&endDate=${toDate}`);
    const row = page.getByTestId('log-row').nth(index);
    await row.getByRole('button', { expanded: false }).click();
    const detail = page.getByTestId('log-detail');
    await detail.getByTestId('trajectory').waitFor({ state: 'attached' });
    expect(await detail.getByRole('link', { name: t('en', 'logDetail.trajectory') }).count()).toBe(0);
    const line = await detail.getByTestId('trajectory').boundingBox();
    expect(line && line.width + line.height).toBeGreaterThan(10);
    const map = await boxOf(page, 'log-dose-map');
    if (viewport.name === 'desktop') expect(Math.round(map.height)).toBe(400);
    else expect(map.width).toBeGreaterThan(300);
    // The first floor's plan (a job over several floors has one map each).
    await detail.getByRole('button', { name: t('en', 'map.zoomIn') }).first().click();
    await expect.poll(async () => (await viewOf(page)).scale).toBeCloseTo(1.5, 5);
    await settle(page);
    // The plan fits the row: neither the page nor the list's scroll box scrolls sideways.
    expect(await sidewaysOverflow(page)).toEqual([]);
    await screenshot(session, 'log-trajectory');
    await expectAccessible(session, 'log-trajectory');
  });

  it('keeps the navigation on the not-found page, its heading where the other screens have theirs', async () => {
    const { page } = session;
    // A screen's title row (h1 and its buttons) starts at the same place on every screen.
    const titleRow = () => page.locator('h1').first().locator('..').boundingBox();
    await session.goto('/settings');
    const expected = await titleRow();
    await session.goto('/no/such/screen');
    await expect.poll(() => textOf(page.locator('h1'))).toBe(t('en', 'notFound.title'));
    // The app's header with its menu (collapsed behind its toggle on a phone).
    expect(await page.locator('header nav').getByTestId('nav-jobs').count()).toBe(1);
    expect(await page.locator('header button', { hasText: t('en', 'nav.logout') }).count()).toBe(1);
    const shown = await titleRow();
    expect([shown?.x, shown?.y, shown?.width]).toEqual([expected?.x, expected?.y, expected?.width]);
    await expectAccessible(session, 'not-found-in-app');
  });
});

/**
 * Every control a finger can hit on the page, smaller than 24×24 CSS px (WCAG 2.5.8), except the standard's own
 * exceptions met here: a link inside a line of text, and the rooms drawn on a floor plan (the map is the
 * "essential" presentation; each room's name is also in the list below the plan and under zoom).
 */
function smallTargets(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const selector = [
      'a[href]',
      'button',
      'input:not([type=hidden])',
      'select',
      'textarea',
      'summary',
      '[role=button]',
      '[role=switch]',
      '[role=checkbox]',
      '[role=tab]',
      '[tabindex]:not([tabindex="-1"])',
    ].join(',');
    const found: string[] = [];
    for (const element of Array.from(document.querySelectorAll<HTMLElement | SVGElement>(selector))) {
      if (element.closest('[data-testid=map-overlay]')) continue;
      // Visually hidden until focused (the skip link): not a target while it is not shown.
      if (element.closest('.visually-hidden, .visually-hidden-focusable')) continue;
      if (!element.checkVisibility({ visibilityProperty: true, opacityProperty: true })) continue;
      const box = element.getBoundingClientRect();
      if (box.width === 0 && box.height === 0) continue;
      if (element instanceof HTMLAnchorElement && getComputedStyle(element).display === 'inline') {
        const text = element.parentElement?.textContent.replace(element.textContent, '').trim() ?? '';
        if (text.length > 0) continue;
      }
      if (box.width >= 24 && box.height >= 24) continue;
      const name = element.getAttribute('aria-label') ?? element.textContent.trim().slice(0, 30);
      const testId = element.closest('[data-testid]')?.getAttribute('data-testid') ?? '';
      const classes = (element.getAttribute('class') ?? '').trim().split(/\s+/).filter(Boolean).map((name) => `.${name}`).join('');
      found.push(`${element.tagName.toLowerCase()}${classes} "${name}" in ${testId}: ${box.width.toFixed(0)}×${box.height.toFixed(0)}`);
    }
    return found;
  });
}

describe('targets on a phone (375×812)', () => {
  let session: Session;
  beforeAll(async () => {
    session = await signedInSession(browser, MOBILE, DEMO.admin);
  });
  afterAll(async () => {
    await session.close();
  });
  afterEach(() => {
    expectNoPageErrors(session);
  });

  it('no control under 24×24 px on the jobs list with a row open, the logs with a row open, the map and the robots', async () => {
    const { page } = session;
    const small: Record<string, string[]> = {};

    await session.goto('/jobs');
    await page.getByTestId('job-row').first().waitFor({ state: 'visible' });
    small.jobs = await smallTargets(page);
    await page.getByTestId('job-row').first().getByRole('button', { expanded: false }).click();
    await page.getByTestId('job-details').first().waitFor({ state: 'visible' });
    await settle(page);
    small['jobs, a row open'] = await smallTargets(page);

    await session.goto('/logs');
    await page.getByTestId('log-row').first().waitFor({ state: 'visible' });
    await page.getByTestId('log-row').first().getByRole('button', { expanded: false }).click();
    await page.getByTestId('log-detail').waitFor({ state: 'visible' });
    await settle(page);
    small['logs, a row open'] = await smallTargets(page);

    const api = await apiSignIn(DEMO.org, DEMO.admin.username, DEMO.admin.password);
    const robot = await readyRobot(api, 'UVD-1');
    await session.goto(`/map?robot=${robot.robot_id}`);
    await page.getByTestId('floor-map').waitFor({ state: 'visible' });
    small.map = await smallTargets(page);

    await session.goto('/robots');
    await page.getByTestId('robot-row').first().waitFor({ state: 'visible' });
    small.robots = await smallTargets(page);

    // The menu, open.
    await page.getByRole('button', { name: t('en', 'nav.toggle') }).click();
    await page.getByTestId('nav-jobs').waitFor({ state: 'visible' });
    small.menu = await smallTargets(page);

    expect(small).toEqual({ jobs: [], 'jobs, a row open': [], 'logs, a row open': [], map: [], robots: [], menu: [] });
  });
});
