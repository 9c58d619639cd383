/**
 * Interaction latency of real inputs sent through the DevTools protocol, two ways:
 * - the Event Timing API's duration (input to the next presented frame, what INP reports);
 * - input to the end of the main thread's next frame (its rendering done: requestAnimationFrame, then a message),
 *   the classic measure. Headless Chromium without a GPU sometimes reports a frame's presentation hundreds of
 *   milliseconds late: a trace of /map's plan clicks shows each frame committed within 10 ms of the click while
 *   Event Timing said 200-1100 ms, several clicks ending at the same later frame. This one does not depend on it.
 * And the robot_update events the page's own robot stream received meanwhile (read from the network, so the page
 * is not touched).
 */
import path from 'node:path';
import type { CDPSession, Page } from 'puppeteer-core';
import { z } from 'zod';
import { ARTIFACTS_DIR } from '../e2e/support/paths.ts';

/** Installed before any script of the page runs (evaluateOnNewDocument), so no entry is missed. */
export const OBSERVE_EVENTS = `
  window.__bench = { events: [], frames: [] };
  for (const type of ['pointerdown', 'pointerup', 'click', 'keydown', 'keyup']) {
    addEventListener(type, (event) => {
      const start = event.timeStamp;
      requestAnimationFrame(() => {
        const channel = new MessageChannel();
        channel.port1.onmessage = () => { window.__bench.frames.push([start, performance.now() - start]); };
        channel.port2.postMessage(null);
      });
    }, { capture: true });
  }
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      if (entry.interactionId) {
        window.__bench.events.push([entry.interactionId, entry.startTime, entry.duration, entry.processingStart, entry.processingEnd]);
      }
    }
  }).observe({ type: 'event', durationThreshold: 16, buffered: true });
`;
const Events = z.array(z.tuple([z.number(), z.number(), z.number(), z.number(), z.number()]));
const Marks = z.array(z.tuple([z.string(), z.number()]));
const Frames = z.array(z.tuple([z.number(), z.number()]));
const MARK = 'bench:';
const READ_MARKS = `performance.getEntriesByType('mark').filter((mark) => mark.name.startsWith('${MARK}')).map((mark) => [mark.name.slice(${MARK.length}), mark.startTime])`;

/** Names the input about to be sent, so a slow interaction can be told apart (a mark on the page's timeline). */
const label = (page: Page, what: string) => page.evaluate(`performance.mark(${JSON.stringify(MARK + what)})`);

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Counts `event: robot_update` frames on the page's GET /robot/stream responses. */
export class RobotStreamCounter {
  private count = 0;
  private readonly tails = new Map<string, string>();

  private constructor(private readonly cdp: CDPSession) {}

  static async attach(page: Page): Promise<RobotStreamCounter> {
    const cdp = await page.createCDPSession();
    const counter = new RobotStreamCounter(cdp);
    cdp.on('Network.responseReceived', (event) => {
      if (!new URL(event.response.url).pathname.endsWith('/robot/stream')) return;
      counter.tails.set(event.requestId, '');
      // Without this, fetch bodies are not handed to the protocol while they stream.
      cdp
        .send('Network.streamResourceContent', { requestId: event.requestId })
        .then((reply) => {
          counter.read(event.requestId, reply.bufferedData);
        })
        .catch(() => {
          // The request ended before it was asked for (a reconnect): nothing to count.
        });
    });
    cdp.on('Network.dataReceived', (event) => {
      if (event.data) counter.read(event.requestId, event.data);
    });
    await cdp.send('Network.enable');
    return counter;
  }

  private read(requestId: string, base64: string): void {
    const tail = this.tails.get(requestId);
    if (tail === undefined) return;
    const lines = (tail + Buffer.from(base64, 'base64').toString('utf8')).split('\n');
    this.tails.set(requestId, lines.pop() ?? '');
    this.count += lines.filter((line) => line === 'event: robot_update').length;
  }

  get received(): number {
    return this.count;
  }

  async detach(): Promise<void> {
    await this.cdp.detach();
  }
}

export interface LatencyFigures {
  screen: string;
  /** Inputs sent (clicks and key presses), each one interaction. */
  interactions: number;
  /** One duration per interaction (its slowest event, as INP counts it); 0 for those under Event Timing's 16 ms floor; sorted. */
  durations: number[];
  /** Per input, its slowest event's time to the end of the main thread's next frame; sorted. */
  nextFrame: number[];
  /** robot_update events per second the page's stream received while the inputs ran. */
  eventsPerSecond: number;
  /**
   * The input of the slowest interaction and where its time went: input delay (waiting for the main thread),
   * handlers, and presentation (rendering up to the next paint), e.g. `plan click: 4 + 2 + 610`.
   */
  slowest: string;
}

export type Interact = (page: Page) => Promise<number>;

/** Opens `screen`, waits for `ready` and a settling pause, then sends the inputs and reads their Event Timing. */
export async function measureInteractions(page: Page, counter: RobotStreamCounter, baseUrl: string, screen: string, ready: string, interact: Interact): Promise<LatencyFigures> {
  await page.goto(`${baseUrl}${screen}`, { waitUntil: 'load' });
  try {
    await page.waitForSelector(ready, { timeout: 15_000 });
  } catch (error) {
    // What the page showed instead, for whoever reads the failure.
    const screenshot = path.join(ARTIFACTS_DIR, `bench-${screen.replace(/\W+/g, '') || 'root'}-not-ready.png`);
    await page.screenshot({ path: screenshot, fullPage: true }).catch(() => undefined);
    throw new Error(`${screen} did not show ${ready} within 15 s (screenshot: ${screenshot})`, { cause: error });
  }
  // The live streams connect and the first updates land before anything is measured.
  await pause(3000);
  await page.evaluate(`window.__bench.events = []; window.__bench.frames = []; performance.clearMarks()`);
  const receivedBefore = counter.received;
  const startedAt = performance.now();
  const interactions = await interact(page);
  await pause(1000);
  const seconds = (performance.now() - startedAt) / 1000;
  const events = Events.parse(await page.evaluate('window.__bench.events'));
  const marks = Marks.parse(await page.evaluate(READ_MARKS));
  const frames = Frames.parse(await page.evaluate('window.__bench.frames'));
  // Each input's events lie between its mark and the next input's.
  const nextFrame = marks
    .map(([, at], index) => {
      const until = marks[index + 1]?.[1] ?? Number.POSITIVE_INFINITY;
      return Math.max(0, ...frames.filter(([start]) => start >= at && start < until).map(([, duration]) => duration));
    })
    .sort((a, b) => a - b);
  const byInteraction = new Map<number, { startTime: number; duration: number; processingStart: number; processingEnd: number }>();
  for (const [interactionId, startTime, duration, processingStart, processingEnd] of events) {
    const known = byInteraction.get(interactionId);
    if (!known || duration > known.duration) byInteraction.set(interactionId, { startTime, duration, processingStart, processingEnd });
  }
  const measured = [...byInteraction.values()].sort((a, b) => a.duration - b.duration);
  const worst = measured[measured.length - 1];
  const slowest = worst
    ? `${marks.filter(([, at]) => at <= worst.startTime).pop()?.[0] ?? '?'}: ` +
      [worst.processingStart - worst.startTime, worst.processingEnd - worst.processingStart, worst.startTime + worst.duration - worst.processingEnd]
        .map((part) => Math.max(0, part).toFixed(0))
        .join(' + ')
    : '-';
  const durations = [...Array.from({ length: Math.max(0, interactions - measured.length) }, () => 0), ...measured.map((entry) => entry.duration)];
  return { screen, interactions, durations, nextFrame, eventsPerSecond: (counter.received - receivedBefore) / seconds, slowest };
}

const ROBOT_ROWS = 12;
/** Where the plan is clicked, as fractions of its box: rooms and corridors. */
const PLAN_CLICKS = [[0.3, 0.3], [0.5, 0.5], [0.7, 0.4], [0.4, 0.7], [0.6, 0.6], [0.2, 0.5], [0.8, 0.7], [0.5, 0.2], [0.35, 0.55], [0.65, 0.25]] as const;

/** Clicks robot rows (the dialog opens) and closes each dialog with Escape. */
export const interactRobots: Interact = async (page) => {
  const rows = await page.$$('tbody tr[data-testid="robot-row"]');
  let inputs = 0;
  for (let index = 0; index < Math.min(rows.length, ROBOT_ROWS); index += 1) {
    // The status cell: a click on the row itself, not on the name's button.
    await label(page, 'row click');
    await page.click(`tbody tr[data-testid="robot-row"]:nth-child(${index + 1}) td`);
    inputs += 1;
    await page.waitForSelector('.modal[role="dialog"]', { visible: true, timeout: 5000 });
    await pause(150);
    await label(page, 'Escape');
    await page.keyboard.press('Escape');
    inputs += 1;
    await page.waitForSelector('.modal[role="dialog"]', { hidden: true, timeout: 5000 });
    await pause(150);
  }
  return inputs;
};

/** Arrow keys on the building and floor selects (another plan loads, then the first again) and clicks on the plan. */
export const interactMap: Interact = async (page) => {
  let inputs = 0;
  const selects = await page.$$('main select:not([disabled])');
  for (const [index, select] of selects.slice(0, 2).entries()) {
    await select.focus();
    for (const key of ['ArrowDown', 'ArrowUp', 'ArrowDown', 'ArrowUp'] as const) {
      await label(page, `${index === 0 ? 'building' : 'floor'} ${key}`);
      await page.keyboard.press(key);
      inputs += 1;
      await pause(400);
    }
  }
  // The last arrow key brought the first plan back: a user clicks once it shows.
  await page.waitForSelector('[data-testid="floor-map"] img', { timeout: 10_000 });
  await page.waitForFunction(`document.querySelector('[data-testid="floor-map"] img')?.complete === true`, { timeout: 10_000 });
  await pause(1000);
  const plan = await page.$('[data-testid="floor-map"]');
  const box = await plan?.boundingBox();
  if (box) {
    for (const [index, [fx, fy]] of PLAN_CLICKS.entries()) {
      await label(page, `plan click ${index + 1}`);
      await page.mouse.click(box.x + box.width * fx, box.y + box.height * fy);
      inputs += 1;
      await pause(200);
    }
  }
  return inputs;
};
