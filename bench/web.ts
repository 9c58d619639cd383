/**
 * Web console load figures (issue 4 acceptance): the gzipped size of the JavaScript and CSS a first visit loads
 * (the entry graph of index.html, and everything /jobs and /map actually fetch), then first and largest
 * contentful paint and total blocking time of /jobs and /map, signed in, at 1280×800 in Debian's Chromium.
 *
 *   npx tsx bench/web.ts [--skip-build] [--runs 3] [--cpu 1]
 *
 * Builds the SPA (unless --skip-build), starts the real server on it like the browser tests (e2e/support/server.ts:
 * fresh embedded database, demo organization, simulated fleet), signs in as the demo operator, then loads each
 * screen --runs times in a fresh tab and prints medians. --cpu slows the CPU down (CDP throttling; Lighthouse's
 * desktop preset uses 1). TBT is the Lighthouse definition: the part over 50 ms of every long task after the first
 * contentful paint, up to 5 s after load. Prints figures; never fails on them.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { brotliCompressSync, constants as zlib, gzipSync } from 'node:zlib';
import { chromium, type BrowserContext } from 'playwright-core';
import { z } from 'zod';
import { CHROMIUM_PATH, WEB_DIST } from '../e2e/support/paths.ts';
import { buildWeb, startConsoleServer } from '../e2e/support/server.ts';

const { values: args } = parseArgs({
  options: {
    'skip-build': { type: 'boolean', default: false },
    runs: { type: 'string', default: '3' },
    cpu: { type: 'string', default: '1' },
  },
});
const runs = Math.max(1, Number(args.runs));
const cpuSlowdown = Math.max(1, Number(args.cpu));
const SCREENS = ['/jobs', '/map'];
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
  window.__bench = { lcp: 0, longTasks: [] };
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

async function main(): Promise<void> {
  if (args['skip-build']) console.log(`--skip-build: measuring the existing build in ${WEB_DIST}`);
  else buildWeb();

  const graph = await entryGraph();
  const js = sum(await Promise.all(graph.js.map((file) => sizesOf(fileOf(file)))));
  const css = sum(await Promise.all(graph.css.map((file) => sizesOf(fileOf(file)))));
  console.log('\ninitial load (index.html: entry script, module preloads, stylesheets)');
  console.log(`  JavaScript ${graph.js.length} file(s): ${kb(js.raw)} raw, ${kb(js.gzip)} gzip, ${kb(js.brotli)} brotli  (aim: under ${kb(AIM_INITIAL_JS_GZIP)} gzip)`);
  console.log(`  CSS        ${graph.css.length} file(s): ${kb(css.raw)} raw, ${kb(css.gzip)} gzip, ${kb(css.brotli)} brotli`);

  const server = await startConsoleServer({ logName: 'bench-web-server.log' });
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
    console.log('\nnot measured here: the Lighthouse performance score (the lighthouse package is not installed) and');
    console.log('interaction latency on /robots and /map while 200 robots stream.');
  } finally {
    await browser.close();
    await server.stop();
  }
}

await main();
