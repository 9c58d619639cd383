/**
 * Web console figures (issue 4 acceptance), in Debian's Chromium at 1280×800 against the real server:
 * - the gzipped size of the JavaScript and CSS a first visit loads (index.html's entry graph, and everything /jobs
 *   and /map actually fetch);
 * - first and largest contentful paint and total blocking time of /jobs and /map, signed in;
 * - interaction latency on /robots and /map while --robots simulated robots stream their state: the Event Timing
 *   API's duration (input to the next paint, what INP reports) of clicks on robot rows, Escape on the dialog,
 *   arrow keys on the map's selects and clicks on the map.
 *
 *   npx tsx bench/web.ts [--skip-build] [--runs 3] [--cpu 1] [--robots 200]
 *
 * Builds the SPA (unless --skip-build) and starts the real server on it like the browser tests (e2e/support/server.ts:
 * fresh embedded database, demo organization, simulated fleet), with the demo organization's robots cloned up to
 * --robots (all played by the simulator, so each pings and reports state). Each screen loads --runs times in a fresh
 * tab; medians are printed. --cpu slows the CPU down (CDP throttling; Lighthouse's desktop preset uses 1). TBT is
 * Lighthouse's definition: the part over 50 ms of every long task after the first contentful paint, up to 5 s after
 * load. Prints figures; never fails on them.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { brotliCompressSync, constants as zlib, gzipSync } from 'node:zlib';
import { eq, inArray } from 'drizzle-orm';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { z } from 'zod';
import { openDatabase } from '../apps/server/src/db/client.ts';
import { robotGroups, robots } from '../apps/server/src/db/schema.ts';
import { seedDemoIfEmpty } from '../apps/server/src/seed/demo-seed.ts';
import { CHROMIUM_PATH, WEB_DIST } from '../e2e/support/paths.ts';
import { buildWeb, startConsoleServer } from '../e2e/support/server.ts';

const { values: args } = parseArgs({
  options: {
    'skip-build': { type: 'boolean', default: false },
    runs: { type: 'string', default: '3' },
    cpu: { type: 'string', default: '1' },
    robots: { type: 'string', default: '200' },
  },
});
const robotTotal = Math.max(0, Number(args.robots));
const runs = Math.max(1, Number(args.runs));
const cpuSlowdown = Math.max(1, Number(args.cpu));
const SCREENS = ['/jobs', '/map'];
const STREAM_SAMPLE_MS = 5000;
const SETTLE_MS = 5000;
const AIM_INITIAL_JS_GZIP = 150 * 1024;

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};

interface Sizes {
  raw: number;
  gzip: number;
  brotli: number;
}

const sizeCache = new Map<string, Sizes>();
async function sizesOf(file: string): Promise<Sizes> {
  const cached = sizeCache.get(file);
  if (cached) return cached;
  const content = await readFile(file);
  const sizes = {
    raw: content.length,
    gzip: gzipSync(content, { level: 9 }).length,
    brotli: brotliCompressSync(content, { params: { [zlib.BROTLI_PARAM_QUALITY]: 11 } }).length,
  };
  sizeCache.set(file, sizes);
  return sizes;
}

function sum(list: Sizes[]): Sizes {
  return list.reduce((total, s) => ({ raw: total.raw + s.raw, gzip: total.gzip + s.gzip, brotli: total.brotli + s.brotli }), { raw: 0, gzip: 0, brotli: 0 });
}

/** The JavaScript and CSS index.html makes the browser fetch before anything renders: entry, preloads, styles. */
async function entryGraph(): Promise<{ js: string[]; css: string[] }> {
  const html = await readFile(path.join(WEB_DIST, 'index.html'), 'utf8');
  const js = new Set<string>();
  const css = new Set<string>();
  for (const match of html.matchAll(/<script[^>]*\bsrc="([^"]+)"/g)) if (match[1]) js.add(match[1]);
  for (const match of html.matchAll(/<link[^>]*>/g)) {
    const tag = match[0];
    const href = /\bhref="([^"]+)"/.exec(tag)?.[1];
    if (!href) continue;
    if (/\brel="modulepreload"/.test(tag)) js.add(href);
    if (/\brel="stylesheet"/.test(tag)) css.add(href);
  }
  return { js: [...js], css: [...css] };
}

const fileOf = (urlPath: string) => path.join(WEB_DIST, decodeURIComponent(urlPath.replace(/^\//, '')));

/** Collected in the page from the first byte on (an init script, so nothing is missed). */
const OBSERVE = `
  window.__bench = { lcp: 0, longTasks: [], events: [] };
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      if (entry.interactionId) window.__bench.events.push([entry.interactionId, entry.name, entry.duration]);
    }
  }).observe({ type: 'event', durationThreshold: 16, buffered: true });
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) window.__bench.lcp = entry.renderTime || entry.loadTime || entry.startTime;
  }).observe({ type: 'largest-contentful-paint', buffered: true });
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) window.__bench.longTasks.push([entry.startTime, entry.duration]);
  }).observe({ type: 'longtask', buffered: true });
`;
const READ = `(() => {
  const fcp = performance.getEntriesByName('first-contentful-paint')[0];
  const navigation = performance.getEntriesByType('navigation')[0];
  const resources = performance.getEntriesByType('resource')
    .filter((entry) => entry.initiatorType === 'script' || entry.initiatorType === 'link' || /\\.(js|css)$/.test(new URL(entry.name).pathname))
    .map((entry) => new URL(entry.name).pathname);
  return {
    fcp: fcp ? fcp.startTime : 0,
    lcp: window.__bench.lcp,
    load: navigation ? navigation.loadEventEnd : 0,
    longTasks: window.__bench.longTasks,
    resources,
  };
})()`;
const Reading = z.object({
  fcp: z.number(),
  lcp: z.number(),
  load: z.number(),
  longTasks: z.array(z.tuple([z.number(), z.number()])),
  resources: z.array(z.string()),
});

async function measure(context: BrowserContext, baseUrl: string, screen: string) {
  const page = await context.newPage();
  if (cpuSlowdown > 1) {
    const cdp = await context.newCDPSession(page);
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: cpuSlowdown });
  }
  await page.goto(`${baseUrl}${screen}`, { waitUntil: 'load' });
  await page.waitForTimeout(SETTLE_MS);
  const reading = Reading.parse(await page.evaluate(READ));
  await page.close();
  const tbt = reading.longTasks
    .filter(([start]) => start >= reading.fcp && start <= reading.load + SETTLE_MS)
    .reduce((total, [, duration]) => total + Math.max(0, duration - 50), 0);
  const assets = reading.resources.filter((resource) => /\.(js|css)$/.test(resource));
  return { ...reading, tbt, assets };
}

/** The demo organization's robots cloned (floor, mode, groups) up to `total`, before the server opens the folder. */
async function seedRobots(dataDir: string, total: number): Promise<void> {
  const database = await openDatabase({ dataDir });
  try {
    await seedDemoIfEmpty(database);
    const demo = await database.db.select().from(robots).where(eq(robots.orgId, 'demo'));
    const memberships = await database.db.select().from(robotGroups).where(inArray(robotGroups.robotId, demo.map((robot) => robot.id)));
    const clones = Array.from({ length: Math.max(0, total - demo.length) }, (_, index) => {
      const base = demo[index % demo.length];
      if (!base) throw new Error('the demo organization has no robot to clone');
      const home = base.home ?? { x: 0, y: 0, theta: 0 };
      return {
        base: base.id,
        row: {
          orgId: base.orgId,
          name: `Bench-${String(index + 1).padStart(3, '0')}`,
          manufacturer: base.manufacturer,
          serialNumber: `bench-${index + 1}`,
          mode: base.mode,
          battery: 40 + (index % 60),
          floorId: base.floorId,
          // Side by side near the original's dock, half a metre apart.
          home: { x: home.x + (index % 8) * 0.5, y: home.y + (Math.floor(index / 8) % 8) * 0.5, theta: home.theta },
        },
      };
    });
    for (let start = 0; start < clones.length; start += 50) {
      const chunk = clones.slice(start, start + 50);
      const inserted = await database.db.insert(robots).values(chunk.map((clone) => clone.row)).returning({ id: robots.id });
      const groupRows = inserted.flatMap((robot, index) =>
        memberships.filter((membership) => membership.robotId === chunk[index]?.base).map((membership) => ({ ...membership, robotId: robot.id })),
      );
      if (groupRows.length > 0) await database.db.insert(robotGroups).values(groupRows);
    }
  } finally {
    await database.close();
  }
}

const TokenReply = z.object({ access_token: z.string() });

async function passwordGrant(baseUrl: string, username: string, password: string): Promise<string> {
  const response = await fetch(`${baseUrl}/idp/realms/demo/protocol/openid-connect/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'password', client_id: 'uvd-console', username, password, scope: 'openid' }),
  });
  return TokenReply.parse(await response.json()).access_token;
}

/** robot_update events per second on the robot stream, as a console tab receives them. */
async function streamRate(baseUrl: string, token: string): Promise<number> {
  const controller = new AbortController();
  const response = await fetch(`${baseUrl}/api/robot/stream`, { headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' }, signal: controller.signal });
  if (!response.body) return 0;
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let events = 0;
  let buffer = '';
  const timer = setTimeout(() => {
    controller.abort();
  }, STREAM_SAMPLE_MS);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      buffer += value;
      const lines = buffer.split('\n');
      buffer = lines.pop() ?? '';
      events += lines.filter((line) => line.startsWith('event: robot_update')).length;
    }
  } catch {
    // aborted: the sample is over
  } finally {
    clearTimeout(timer);
  }
  return events / (STREAM_SAMPLE_MS / 1000);
}

/** Clicks robot rows (a dialog opens) and closes each dialog with Escape; returns how many inputs were sent. */
async function interactRobots(page: Page): Promise<number> {
  const rows = page.locator('tbody tr');
  const count = Math.min(await rows.count(), 8);
  let inputs = 0;
  for (let index = 0; index < count; index += 1) {
    await rows.nth(index).click();
    inputs += 1;
    const dialog = page.getByRole('dialog');
    try {
      await dialog.waitFor({ timeout: 3000 });
      await page.keyboard.press('Escape');
      inputs += 1;
      await dialog.waitFor({ state: 'detached', timeout: 3000 });
    } catch {
      // a row without a dialog: the click alone is measured
    }
  }
  return inputs;
}

/** Arrow keys on the map's selects (building, floor) and clicks on the plan; returns how many inputs were sent. */
async function interactMap(page: Page): Promise<number> {
  let inputs = 0;
  const selects = page.locator('main select');
  for (let index = 0; index < Math.min(await selects.count(), 2); index += 1) {
    const select = selects.nth(index);
    if (!(await select.isEnabled())) continue;
    await select.focus();
    for (const key of ['ArrowDown', 'ArrowUp', 'ArrowDown', 'ArrowUp']) {
      await page.keyboard.press(key);
      inputs += 1;
      await page.waitForTimeout(200);
    }
  }
  const plan = page.locator('main svg, main canvas').first();
  const box = (await plan.count()) > 0 ? await plan.boundingBox() : null;
  if (box && box.width > 50 && box.height > 50) {
    for (const [fx, fy] of [[0.3, 0.3], [0.5, 0.5], [0.7, 0.4], [0.4, 0.7], [0.6, 0.6]] as const) {
      await page.mouse.click(box.x + box.width * fx, box.y + box.height * fy);
      inputs += 1;
      await page.waitForTimeout(200);
    }
  }
  return inputs;
}

const Events = z.array(z.tuple([z.number(), z.string(), z.number()]));

async function interactionLatency(context: BrowserContext, baseUrl: string, screen: string, interact: (page: Page) => Promise<number>) {
  const page = await context.newPage();
  await page.goto(`${baseUrl}${screen}`, { waitUntil: 'load' });
  // Let the live streams connect and run before measuring.
  await page.waitForTimeout(5000);
  await page.evaluate('window.__bench.events = []');
  const inputs = await interact(page);
  await page.waitForTimeout(1000);
  const events = Events.parse(await page.evaluate('window.__bench.events'));
  await page.close();
  // One interaction (click = pointerdown + pointerup + click) counts with its slowest event, as INP does.
  const byInteraction = new Map<number, number>();
  for (const [interactionId, , duration] of events) byInteraction.set(interactionId, Math.max(byInteraction.get(interactionId) ?? 0, duration));
  const slow = [...byInteraction.values()].sort((a, b) => a - b);
  return { inputs, slow };
}

async function main(): Promise<void> {
  if (args['skip-build']) console.log(`--skip-build: measuring the existing build in ${WEB_DIST}`);
  else buildWeb();

  const graph = await entryGraph();
  const js = sum(await Promise.all(graph.js.map((file) => sizesOf(fileOf(file)))));
  const css = sum(await Promise.all(graph.css.map((file) => sizesOf(fileOf(file)))));
  console.log('\ninitial load (index.html: entry script, module preloads, stylesheets)');
  console.log(`  JavaScript ${graph.js.length} file(s): ${kb(js.raw)} raw, ${kb(js.gzip)} gzip, ${kb(js.brotli)} brotli  (aim: under ${kb(AIM_INITIAL_JS_GZIP)} gzip)`);
  console.log(`  CSS        ${graph.css.length} file(s): ${kb(css.raw)} raw, ${kb(css.gzip)} gzip, ${kb(css.brotli)} brotli`);

  const server = await startConsoleServer({
    logName: 'bench-web-server.log',
    prepare: robotTotal > 0 ? (dataDir) => seedRobots(dataDir, robotTotal) : undefined,
    env: { SIM_TIME_FACTOR: '1' },
  });
  const browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-quic', '--no-first-run'],
  });
  try {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, locale: 'en-US' });
    await context.addInitScript(OBSERVE);
    const page = await context.newPage();
    await page.goto(`${server.baseUrl}/auth`);
    await page.locator('#sign-in-organization').fill('demo');
    await page.locator('#sign-in-username').fill('operator');
    await page.locator('#sign-in-password').fill('operator-demo-1');
    await page.locator('form button[type=submit]').click();
    await page.waitForURL((url) => !url.pathname.startsWith('/auth'));
    await page.close();

    console.log(`\nscreens, signed in as the demo operator, 1280×800, CPU ×${cpuSlowdown}, median of ${runs} fresh loads`);
    for (const screen of SCREENS) {
      const results = [];
      for (let run = 0; run < runs; run += 1) results.push(await measure(context, server.baseUrl, screen));
      const last = results[results.length - 1];
      const loaded = last ? sum(await Promise.all(last.assets.map((asset) => sizesOf(fileOf(asset))))) : { raw: 0, gzip: 0, brotli: 0 };
      const loadedJs = last ? sum(await Promise.all(last.assets.filter((a) => a.endsWith('.js')).map((asset) => sizesOf(fileOf(asset))))) : loaded;
      console.log(
        `  ${screen.padEnd(6)} FCP ${median(results.map((r) => r.fcp)).toFixed(0)} ms, LCP ${median(results.map((r) => r.lcp)).toFixed(0)} ms, ` +
          `TBT ${median(results.map((r) => r.tbt)).toFixed(0)} ms, load ${median(results.map((r) => r.load)).toFixed(0)} ms; ` +
          `fetched ${last?.assets.length ?? 0} JS/CSS files, ${kb(loaded.gzip)} gzip (JS ${kb(loadedJs.gzip)})`,
      );
    }

    const token = await passwordGrant(server.baseUrl, 'admin', 'admin-demo-1');
    const rate = await streamRate(server.baseUrl, token);
    console.log(`\ninteraction latency, signed in as the demo admin, robot stream at ${rate.toFixed(0)} robot_update/s (--robots ${robotTotal})`);
    const admin = await browser.newContext({ viewport: { width: 1280, height: 800 }, locale: 'en-US' });
    await admin.addInitScript(OBSERVE);
    const adminPage = await admin.newPage();
    await adminPage.goto(`${server.baseUrl}/auth`);
    await adminPage.locator('#sign-in-organization').fill('demo');
    await adminPage.locator('#sign-in-username').fill('admin');
    await adminPage.locator('#sign-in-password').fill('admin-demo-1');
    await adminPage.locator('form button[type=submit]').click();
    await adminPage.waitForURL((url) => !url.pathname.startsWith('/auth'));
    await adminPage.close();
    for (const [screen, interact] of [['/robots', interactRobots], ['/map', interactMap]] as const) {
      const { inputs, slow } = await interactionLatency(admin, server.baseUrl, screen, interact);
      if (inputs === 0) {
        console.log(`  ${screen.padEnd(7)} nothing to interact with (no robot rows, selects or plan on the screen yet)`);
        continue;
      }
      // Event Timing reports only interactions of 16 ms or more; the others were faster than that.
      const worst = slow[slow.length - 1] ?? 0;
      const p75 = slow.length === 0 ? 0 : (slow[Math.floor(slow.length * 0.75)] ?? 0);
      console.log(
        `  ${screen.padEnd(7)} ${inputs} inputs; ${slow.length} took 16 ms or more; worst ${worst.toFixed(0)} ms, ` +
          `p75 of those ${p75.toFixed(0)} ms (aim: under 200 ms)`,
      );
    }
    await admin.close();

    console.log('\nnot measured here: the Lighthouse performance score (the lighthouse package is not installed).');
  } finally {
    await browser.close();
    await server.stop();
  }
}

await main();
