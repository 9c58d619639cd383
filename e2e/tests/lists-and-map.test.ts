/**
 * Issue #25, items 3, 4, 5 and 9, at 1280×800 and 375×812: a job name with an 88-character unbroken run keeps every
 * column on the screen; phone rows of the jobs and logs lists show the robot and the time; the next job due is first;
 * and the map on a phone: the screen's height, the zoom row beside (not over) the plan, a small pinch a small zoom,
 * "Centre on robot", and Ward 2B's room labels inside their rooms, clear of the walls.
 */
import { createJob, deleteJob, getDoses, getFloors, type Job } from '@uvd/contracts';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { apiSignIn, callApi, type ApiSession } from '../support/api.ts';
import { expectAccessible, expectNoPageErrors, launchBrowser, settle, VIEWPORTS, type Session } from '../support/browser.ts';
import { blockSession, DEMO, signedInSession, t, tFill, type Language } from '../support/console.ts';
import { nearestRooms, readyRobot, type JourneyRobot } from '../support/fleet.ts';

const LANGUAGES: readonly Language[] = ['en', 'fi', 'se'];
const stamp = Date.now().toString(36);
const LONG_NAME = `Night-${stamp}-${'x'.repeat(88)}`;
const DUE_NEXT = `Due next ${stamp}`;
const RECURRING = `Morning round A1 ${stamp}`;
const HOUR = 3_600_000;

let browser: Browser;
let api: ApiSession;
let robot: JourneyRobot;
const created: Job[] = [];

beforeAll(async () => {
  browser = await launchBrowser();
});

/** A call the server shed under load (503 "retry in 5 s", nothing done) is made again, a few times. */
async function unlessShed<T>(call: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (error) {
      if (attempt >= 6 || !String(error).includes('503')) throw error;
      await new Promise((resolve) => setTimeout(resolve, 5000));
    }
  }
}

let prepared: Promise<void> | undefined;
/** The jobs of this file, scheduled once by the first test that needs them (readyRobot polls: inside a test). */
const prepare = () =>
  (prepared ??= (async () => {
    api = await unlessShed(() => apiSignIn(DEMO.org, DEMO.admin.username, DEMO.admin.password));
    robot = await readyRobot(api, 'UVD-1');
    const [room] = await nearestRooms(api, robot, 1);
    const dose = Math.max(...(await unlessShed(() => callApi(api, getDoses))).uvc_doses);
    const schedule = async (name: string, inMs: number) => {
      const job = await unlessShed(() => callApi(api, createJob, {
        params: { robotId: robot.robot_id },
        query: { start_now: false },
        body: { name, notes: '', start_time: new Date(Date.now() + inMs).toISOString(), start_now: false, rooms: [{ room_id: room?.room_id ?? '', dose, order_no: 0 }] },
      }));
      created.push(job);
    };
    // Created soonest first: newest first, as the list was sorted, put the one due next last.
    await schedule(DUE_NEXT, 40 * 60_000);
    await schedule(RECURRING, 24 * HOUR);
    await schedule(RECURRING, 48 * HOUR);
    await schedule(LONG_NAME, 72 * HOUR);
  })().catch((error: unknown) => {
    // A sign-in shed under load (503) is tried again by the next test, not remembered as this file's failure.
    prepared = undefined;
    throw error;
  }));
afterAll(async () => {
  for (const job of created) await callApi(api, deleteJob, { params: { id: job.job_id } }).catch(() => undefined);
  await browser.close();
});

/** Every cell of the list's visible columns (head and rows) that reaches past the viewport's right edge. */
function offScreenCells(page: Page, rowTestId: string): Promise<string[]> {
  return page.evaluate((rowId) => {
    const table = document.querySelector(`[data-testid=${rowId}]`)?.closest('table');
    if (!table) return ['no table'];
    const cells = Array.from(table.querySelectorAll<HTMLElement>('thead th, tbody tr[data-testid] > td'));
    return cells
      .filter((cell) => cell.getClientRects().length > 0)
      .filter((cell) => cell.getBoundingClientRect().right > document.documentElement.clientWidth + 0.5)
      .map((cell) => `${cell.tagName} "${cell.innerText.slice(0, 20)}" ends at ${cell.getBoundingClientRect().right.toFixed(0)}`);
  }, rowTestId);
}

const columnWidth = (page: Page, className: string) => page.locator(`table th.${className}`).first().evaluate((th) => th.getBoundingClientRect().width);

describe.each(VIEWPORTS)('lists at $width×$height', (viewport) => {
  let session: Session;
  beforeAll(async () => {
    session = await signedInSession(browser, viewport, DEMO.admin);
  });
  afterAll(async () => {
    await session.goto('/jobs?lng=en');
    await session.close();
  });
  afterEach(() => {
    expectNoPageErrors(session);
  });

  it('keep every column on the screen beside a long name, show robot and time in a phone row, and list the next due job first', async () => {
    await prepare();
    const { page } = session;
    const phone = viewport.name === 'mobile';
    for (const language of LANGUAGES) {
      await session.goto(`/jobs?lng=${language}&limit=50`);
      await expect.poll(() => page.locator('table th').nth(1).innerText()).toBe(t(language, 'jobTable.name'));
      const rows = page.getByTestId('job-row');
      await rows.filter({ hasText: LONG_NAME.slice(0, 30) }).waitFor({ state: 'visible' });
      expect(await offScreenCells(page, 'job-row'), language).toEqual([]);
      // The status column keeps room for a running job's progress: at least 8.5 rem on a phone, 14 rem wider.
      expect(await columnWidth(page, 'list-status')).toBeGreaterThanOrEqual(phone ? 136 : 224);
      const sideways = await page.evaluate(() => Array.from(document.querySelectorAll('main .table-responsive')).filter((box) => box.scrollWidth > box.clientWidth + 1).length);
      expect(sideways, language).toBe(0);

      // Running first, then the Scheduled ones by start time: the job due in 40 minutes leads this test's jobs.
      const names = (await rows.getByTestId('list-row-name').allInnerTexts()).map((name) => name.trim());
      const ours = names.filter((name) => name.includes(stamp));
      expect(ours.map((name) => (name.startsWith('Night-') ? 'long' : name))).toEqual([DUE_NEXT, RECURRING, RECURRING, 'long']);

      // Phone rows say which robot and when, on a second line: the two rounds of one name are told apart.
      const details = rows.filter({ hasText: RECURRING }).getByTestId('list-row-details');
      if (phone) {
        const lines = await details.allInnerTexts();
        expect(lines).toHaveLength(2);
        for (const line of lines) expect(line).toContain(robot.name);
        expect(lines[0]).not.toBe(lines[1]);
      } else expect(await details.first().isVisible()).toBe(false);
    }
    await expectAccessible(session, 'jobs-long-name');

    await session.goto('/logs?lng=en');
    const logRow = page.getByTestId('log-row').first();
    await logRow.waitFor({ state: 'visible' });
    expect(await offScreenCells(page, 'log-row')).toEqual([]);
    const logDetails = logRow.getByTestId('list-row-details');
    if (phone) expect(await logDetails.innerText()).toMatch(/\S+ · \d/);
    else expect(await logDetails.isVisible()).toBe(false);
  });
});

interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

const boxOf = async (page: Page, testId: string): Promise<Box> => {
  const box = await page.getByTestId(testId).first().boundingBox();
  if (!box) throw new Error(`${testId} is not shown`);
  return box;
};

const scaleOf = (page: Page) =>
  page.getByTestId('plan-layer').first().evaluate((layer) => new DOMMatrix(getComputedStyle(layer).transform).a);

/** Touch points through the DevTools protocol (Chromium turns them into pointer events): fingers from → to. */
async function pinch(page: Page, from: { x: number; y: number }[], to: { x: number; y: number }[], steps = 6): Promise<void> {
  const cdp = await page.context().newCDPSession(page);
  const points = (list: { x: number; y: number }[]) => list.map((point, id) => ({ ...point, id, radiusX: 1, radiusY: 1, force: 1 }));
  try {
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: points(from) });
    for (let step = 1; step <= steps; step++) {
      const share = step / steps;
      const at = from.map((start, finger) => ({ x: start.x + ((to[finger]?.x ?? start.x) - start.x) * share, y: start.y + ((to[finger]?.y ?? start.y) - start.y) * share }));
      await cdp.send('Input.dispatchTouchEvent', { type: 'touchMove', touchPoints: points(at) });
    }
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
  } finally {
    await cdp.detach();
  }
}

/**
 * The named rooms' labels that leave their room or come within 2 px of its outline (the wall drawn on it), in page
 * pixels: the overlay's transform maps the room's polygon and the label's box alike.
 */
function labelsCrossingWalls(page: Page, roomNames: readonly string[]): Promise<{ shown: number; crossing: string[] }> {
  return page.evaluate((names) => {
    let shown = 0;
    const crossing: string[] = [];
    for (const room of Array.from(document.querySelectorAll<SVGGElement>('[data-testid=map-room]'))) {
      const name = room.getAttribute('aria-label') ?? '';
      if (!names.some((wanted) => name.startsWith(wanted))) continue;
      const label = room.querySelector<SVGTextElement>('[data-testid=room-label]');
      const polygon = room.querySelector('polygon');
      const matrix = polygon?.getScreenCTM();
      if (!label || !polygon || !matrix) continue;
      shown += 1;
      const outline = Array.from(polygon.points).map((point) => new DOMPoint(point.x, point.y).matrixTransform(matrix));
      const box = label.getBoundingClientRect();
      const distanceInside = (x: number, y: number) => {
        let inside = false;
        let nearest = Infinity;
        for (let i = 0, j = outline.length - 1; i < outline.length; j = i, i += 1) {
          const a = outline[i];
          const b = outline[j];
          if (!a || !b) continue;
          if (a.y > y !== b.y > y && x < ((b.x - a.x) * (y - a.y)) / (b.y - a.y) + a.x) inside = !inside;
          const [dx, dy] = [b.x - a.x, b.y - a.y];
          const share = Math.max(0, Math.min(1, ((x - a.x) * dx + (y - a.y) * dy) / (dx * dx + dy * dy || 1)));
          nearest = Math.min(nearest, Math.hypot(x - (a.x + share * dx), y - (a.y + share * dy)));
        }
        return inside ? nearest : -nearest;
      };
      const corners = [[box.left, box.top], [box.right, box.top], [box.left, box.bottom], [box.right, box.bottom]] as const;
      const least = Math.min(...corners.map(([x, y]) => distanceInside(x, y)));
      if (least < 2) crossing.push(`${name}: ${least.toFixed(1)} px`);
      // Readable: a line of the label at least 12 px high on the screen.
      if (box.height / label.querySelectorAll('tspan').length < 12) crossing.push(`${name}: ${box.height.toFixed(0)} px high`);
    }
    return { shown, crossing };
  }, roomNames);
}

describe.each(VIEWPORTS)('the map at $width×$height', (viewport) => {
  const session = blockSession(() => browser, viewport, DEMO.admin);

  it('uses the screen, keeps its buttons off the plan, pinches gently, centres on the robot and writes room names inside their rooms', async () => {
    await prepare();
    const { page } = session;
    const phone = viewport.name === 'mobile';
    await session.goto(`/map?robot=${robot.robot_id}`);
    await page.locator('[data-testid=floor-map] img').waitFor({ state: 'visible' });
    const plan = await boxOf(page, 'floor-map');
    if (phone) {
      expect(plan.height).toBeGreaterThanOrEqual(viewport.height * 0.75);
      expect(plan.height).toBeLessThanOrEqual(viewport.height);
    } else expect(Math.round(plan.height)).toBe(600);

    // The buttons sit in a row above the plan, 44 px targets, none over a room.
    const buttons = await page.locator('.floor-plan-controls').getByRole('button').all();
    expect(buttons.length).toBe(4);
    for (const button of buttons) {
      const box = await button.boundingBox();
      expect(box && box.height >= 44 && box.width >= 44 && box.y + box.height <= plan.y).toBe(true);
    }

    // Centre on the robot, after moving it out of view.
    await page.getByTestId('floor-map').focus();
    for (let press = 0; press < 4; press++) await page.keyboard.press('+');
    const marker = page.locator(`[data-testid=robot-marker][data-robot-id="${robot.robot_id}"] circle`);
    const markerX = Number(await page.locator(`[data-testid=robot-marker][data-robot-id="${robot.robot_id}"]`).getAttribute('data-x'));
    const overlayWidth = await page.getByTestId('map-overlay').evaluate((svg) => Number(svg.getAttribute('viewBox')?.split(' ')[2]));
    const away = markerX < overlayWidth / 2 ? 'ArrowRight' : 'ArrowLeft';
    for (let press = 0; press < 40; press++) await page.keyboard.press(away);
    const inView = async () => {
      const box = await marker.boundingBox();
      const now = await boxOf(page, 'floor-map');
      return box !== null && box.x >= now.x && box.x + box.width <= now.x + now.width && box.y >= now.y && box.y + box.height <= now.y + now.height;
    };
    expect(await inView()).toBe(false);
    await page.getByRole('button', { name: tFill('en', 'map.centreOn', { name: robot.name }) }).click();
    await expect.poll(inView).toBe(true);
    await page.getByRole('button', { name: t('en', 'map.zoomReset') }).click();
    await expect.poll(() => scaleOf(page)).toBe(1);

    if (phone) {
      const centre = { x: plan.x + plan.width / 2, y: plan.y + plan.height / 2 };
      // Fingers that land and shake by 4 px: no zoom at all.
      await pinch(page, [{ x: centre.x - 30, y: centre.y }, { x: centre.x + 30, y: centre.y }], [{ x: centre.x - 32, y: centre.y }, { x: centre.x + 32, y: centre.y }]);
      expect(await scaleOf(page)).toBe(1);
      // A small pinch (60 → 76 px apart): a small zoom, never a jump.
      await pinch(page, [{ x: centre.x - 30, y: centre.y }, { x: centre.x + 30, y: centre.y }], [{ x: centre.x - 38, y: centre.y }, { x: centre.x + 38, y: centre.y }]);
      const scale = await scaleOf(page);
      expect(scale).toBeGreaterThan(1.1);
      expect(scale).toBeLessThan(1.5);
      // Fingers landing close together (20 px) and parting a little: the spread is measured from at least 48 px.
      await page.getByRole('button', { name: t('en', 'map.zoomReset') }).click();
      await pinch(page, [{ x: centre.x - 10, y: centre.y }, { x: centre.x + 10, y: centre.y }], [{ x: centre.x - 25, y: centre.y }, { x: centre.x + 25, y: centre.y }]);
      expect(await scaleOf(page)).toBeLessThan(1.1);
    }

    // Ward 2B: its L-shaped patient rooms' names stay inside the rooms, clear of the walls, at a readable size.
    const floors = await callApi(api, getFloors, { query: { offset: 0, limit: 50 } });
    const ward = floors.data.find((floor) => floor.floor_name.includes('Ward 2B'));
    if (!ward) throw new Error('no Ward 2B');
    await page.getByLabel(t('en', 'map.building')).selectOption(ward.building_id);
    await page.getByLabel(t('en', 'map.floor')).selectOption(ward.floor_id);
    await page.locator('[data-testid=floor-map] img').waitFor({ state: 'visible' });
    await settle(page);
    const rooms = ['B2-204', 'B2-215', 'B2-216', 'B2-217'];
    // On a phone the whole plan leaves no room for a readable name: two zoom steps bring the rooms' numbers.
    if (phone) for (let press = 0; press < 2; press++) await page.getByRole('button', { name: t('en', 'map.zoomIn') }).click();
    await expect.poll(async () => (await labelsCrossingWalls(page, rooms)).shown).toBe(rooms.length);
    expect((await labelsCrossingWalls(page, rooms)).crossing).toEqual([]);
    await expectAccessible(session, 'map-ward-2b');
  });
});
