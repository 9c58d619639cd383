/**
 * Web console figures, in Debian's Chromium against the real server:
 * - the gzipped size of the JavaScript and CSS a first visit loads (index.html's entry graph);
 * - Lighthouse's desktop preset (performance score, FCP, LCP, total blocking time) on /jobs and /map, signed in,
 *   with the robot stream idle, and on /map again while the robots stream, with the JS and CSS each screen
 *   fetched; reports in e2e-artifacts/lighthouse;
 * - interaction latency on /robots and /map (Event Timing duration of clicks on robot rows, Escape on the robot
 *   dialog, arrow keys on the map's selects, clicks on the plan) with the robot stream idle (no robot connected)
 *   and while --robots simulated robots stream (all online, each moving round its dock, answering pings), with
 *   the robot_update events per second the page received.
 *
 *   npm run bench:web -- [--skip-build] [--robots 200] [--user operator] [--lighthouse-runs 3]
 *
 * One Chromium, one signed-in tab for all of it (the session lives in the tab's session storage). The server is
 * the browser tests' (e2e/support/server.ts: fresh embedded database, demo organizations) without its own
 * simulated fleet: the bench plays the robots (bench/web-fleet.ts). Prints figures; never fails on them.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { brotliCompressSync, constants as zlib, gzipSync } from 'node:zlib';
import type { Page } from 'puppeteer-core';
import { z } from 'zod';
import { ARTIFACTS_DIR, REPO_ROOT } from '../e2e/support/paths.ts';
import { buildWeb, startConsoleServer } from '../e2e/support/server.ts';
import { freePort, prepareFleet, startMovingFleet, type BenchFleetPlan } from './web-fleet.ts';
import { interactMap, interactRobots, measureInteractions, OBSERVE_EVENTS, RobotStreamCounter, type LatencyFigures } from './web-interactions.ts';
import { chooseFirstFloor, launchChromium, printTable, signIn, WEB_DIST } from './web-browser.ts';
import { runLighthouse, type LighthouseFigures } from './web-lighthouse.ts';

const { values: args } = parseArgs({
  options: {
    'skip-build': { type: 'boolean', default: false },
    robots: { type: 'string', default: '200' },
    user: { type: 'string', default: 'operator' },
    'lighthouse-runs': { type: 'string', default: '3' },
  },
});
const robotTotal = Math.max(0, Number(args.robots));
const username = args.user;
const lighthouseRuns = Math.max(1, Number(args['lighthouse-runs']));
const REPORT_DIR = path.join(ARTIFACTS_DIR, 'lighthouse');
const LIGHTHOUSE_SCREENS = ['/jobs', '/map'];
const STREAM_WARMUP_MS = 10_000;
const STREAM_SAMPLE_MS = 5000;
const VIEWPORT = { width: 1280, height: 800 };
type Stream = 'idle' | 'streaming';
const AIM = { initialJsGzip: 150 * 1024, lighthouse: 95, interactionMs: 200 };

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
/** Event Timing reports nothing under 16 ms: those interactions show as "<16". */
const ms = (value: number) => (Number.isNaN(value) ? '-' : value < 16 ? '<16' : value.toFixed(0));

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

const fileOf = (urlPath: string) => path.join(WEB_DIST, decodeURIComponent(urlPath.replace(/^\//, '')));
async function total(urlPaths: string[]): Promise<Sizes> {
  const list = await Promise.all([...new Set(urlPaths)].map((urlPath) => sizesOf(fileOf(urlPath))));
  return list.reduce((sum, s) => ({ raw: sum.raw + s.raw, gzip: sum.gzip + s.gzip, brotli: sum.brotli + s.brotli }), { raw: 0, gzip: 0, brotli: 0 });
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

/** robot_update events per second on the robot stream of every robot the user sees (no robot_list). */
async function fleetStreamRate(baseUrl: string, token: string): Promise<number> {
  const controller = new AbortController();
  const timer = setTimeout(() => { controller.abort(); }, STREAM_SAMPLE_MS);
  let events = 0;
  try {
    const response = await fetch(`${baseUrl}/api/robot/stream`, { headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' }, signal: controller.signal });
    if (!response.body) return 0;
    let buffer = '';
    for await (const chunk of response.body.pipeThrough(new TextDecoderStream())) {
      const lines = (buffer + chunk).split('\n');
      buffer = lines.pop() ?? '';
      events += lines.filter((line) => line === 'event: robot_update').length;
    }
  } catch {
    // aborted: the sample is over
  } finally {
    clearTimeout(timer);
  }
  return events / (STREAM_SAMPLE_MS / 1000);
}

const SCREENS_UNDER_LOAD = [
  { screen: '/robots', ready: 'tbody tr[data-testid="robot-row"]', interact: interactRobots },
  { screen: '/map', ready: '[data-testid="floor-map"]', interact: interactMap },
] as const;

async function main(): Promise<void> {
  const started = Date.now();
  if (args['skip-build']) console.log(`--skip-build: measuring the existing build in ${path.relative(REPO_ROOT, WEB_DIST)}`);
  else buildWeb(WEB_DIST);

  const graph = await entryGraph();
  const initialJs = await total(graph.js);
  const initialCss = await total(graph.css);

  let plan: BenchFleetPlan = { robots: [] };
  const mqttPort = await freePort();
  const server = await startConsoleServer({
    logName: 'bench-web-server.log',
    prepare: async (dataDir) => {
      plan = await prepareFleet(dataDir, robotTotal, username);
    },
    // The bench plays the robots: it decides when the stream is idle and when it streams.
    demoFleet: false,
    env: { WEB_DIST, MQTT_HOST: '127.0.0.1', MQTT_PORT: String(mqttPort) },
  });
  const browser = await launchChromium([server]);
  const lighthouse: { screen: string; stream: Stream; figures: LighthouseFigures; js: Sizes; css: Sizes }[] = [];
  const audit = async (page: Page, screen: string, stream: Stream) => {
    const figures = await runLighthouse(page, `${server.baseUrl}${screen}`, REPORT_DIR, `${screen.replace(/^\//, '')}-${stream}`, lighthouseRuns);
    const js = await total(figures.assets.filter((asset) => asset.endsWith('.js')));
    const css = await total(figures.assets.filter((asset) => asset.endsWith('.css')));
    lighthouse.push({ screen, stream, figures, js, css });
    console.error(`lighthouse ${screen} (${stream}): ${figures.scores.join(', ')}`);
    // Lighthouse leaves its desktop screen emulation behind.
    await page.setViewport(VIEWPORT);
  };
  const latency: { stream: Stream; figures: LatencyFigures }[] = [];
  let fleetRate = 0;
  let connected = 0;
  try {
    const page = await browser.newPage();
    await signIn(page, server.baseUrl, username);
    await chooseFirstFloor(page, server.baseUrl);

    for (const screen of LIGHTHOUSE_SCREENS) await audit(page, screen, 'idle');
    await page.evaluateOnNewDocument(OBSERVE_EVENTS);
    const counter = await RobotStreamCounter.attach(page);
    for (const { screen, ready, interact } of SCREENS_UNDER_LOAD) {
      latency.push({ stream: 'idle', figures: await measureInteractions(page, counter, server.baseUrl, screen, ready, interact) });
    }

    const fleet = await startMovingFleet(`mqtt://127.0.0.1:${mqttPort}`, plan);
    connected = fleet.connected;
    try {
      await pause(STREAM_WARMUP_MS);
      const token = z.string().parse(await page.evaluate("sessionStorage.getItem('access_token')"));
      fleetRate = await fleetStreamRate(server.baseUrl, token);
      for (const { screen, ready, interact } of SCREENS_UNDER_LOAD) {
        latency.push({ stream: 'streaming', figures: await measureInteractions(page, counter, server.baseUrl, screen, ready, interact) });
      }
      // The screen that draws every robot, loaded while they all move.
      await audit(page, '/map', 'streaming');
    } finally {
      await fleet.stop();
    }
    await counter.detach();
  } finally {
    await browser.close();
    await server.stop();
  }

  printTable(
    `Initial load: index.html's entry script, module preloads and stylesheets (aim: JS under ${kb(AIM.initialJsGzip)} gzip)`,
    ['', 'files', 'raw', 'gzip', 'brotli'],
    [
      ['JavaScript', String(graph.js.length), kb(initialJs.raw), kb(initialJs.gzip), kb(initialJs.brotli)],
      ['CSS', String(graph.css.length), kb(initialCss.raw), kb(initialCss.gzip), kb(initialCss.brotli)],
    ],
  );

  printTable(
    `Lighthouse ${(await import('lighthouse/package.json', { with: { type: 'json' } })).default.version}, desktop preset, performance only, signed in as the demo ${username}, ` +
      `median of ${lighthouseRuns} run(s) (aim: score ${AIM.lighthouse}+)`,
    ['screen', 'stream', 'score', 'all runs', 'FCP ms', 'LCP ms', 'TBT ms', 'JS fetched gzip', 'CSS fetched gzip'],
    lighthouse.map(({ screen, stream, figures, js, css }) => [
      screen,
      stream,
      String(figures.score),
      figures.scores.join(' '),
      figures.fcpMs.toFixed(0),
      figures.lcpMs.toFixed(0),
      figures.tbtMs.toFixed(0),
      kb(js.gzip),
      kb(css.gzip),
    ]),
  );
  for (const { screen, stream, figures } of lighthouse) {
    for (const warning of figures.warnings) {
      // See web-lighthouse.ts: the open live streams keep Lighthouse from seeing the network quiet.
      const note = warning.includes('loaded too slowly') ? ' (the open live streams; metrics come from the trace)' : '';
      console.log(`  ${screen} (${stream}) warning: ${warning}${note}`);
    }
  }
  console.log(`  reports: ${path.relative(REPO_ROOT, REPORT_DIR)}/{jobs-idle,map-idle,map-streaming}.report.{json,html}`);

  printTable(
    `Interaction latency (ms), 1280×800; ${connected} of ${plan.robots.length} robots streaming ${fleetRate.toFixed(0)} robot_update/s to a stream ` +
      `of every robot the ${username} sees (aim: under ${AIM.interactionMs} ms). Frame: input to the end of the main thread's next frame. ` +
      `Event Timing: input to the next presented frame (INP's measure; headless Chromium reports some presentations late, see web-interactions.ts)`,
    ['screen', 'stream', 'page events/s', 'inputs', 'frame p50', 'p95', 'max', 'Event Timing p50', 'p95', 'max', 'slowest: input delay + handlers + presentation'],
    latency.map(({ stream, figures }) => [
      figures.screen,
      stream,
      figures.eventsPerSecond.toFixed(0),
      String(figures.interactions),
      percentile(figures.nextFrame, 50).toFixed(0),
      percentile(figures.nextFrame, 95).toFixed(0),
      (figures.nextFrame[figures.nextFrame.length - 1] ?? Number.NaN).toFixed(0),
      ms(percentile(figures.durations, 50)),
      ms(percentile(figures.durations, 95)),
      ms(figures.durations[figures.durations.length - 1] ?? Number.NaN),
      figures.slowest,
    ]),
  );
  for (const { screen } of SCREENS_UNDER_LOAD) {
    const idle = latency.find((row) => row.stream === 'idle' && row.figures.screen === screen)?.figures;
    const streaming = latency.find((row) => row.stream === 'streaming' && row.figures.screen === screen)?.figures;
    if (!idle || !streaming) continue;
    const frameRatio = (p: number) => (percentile(streaming.nextFrame, p) / Math.max(1, percentile(idle.nextFrame, p))).toFixed(2);
    // Under 16 ms Event Timing says nothing: 16 stands for those, so the ratio never divides by zero.
    const timingRatio = (p: number) => (Math.max(16, percentile(streaming.durations, p)) / Math.max(16, percentile(idle.durations, p))).toFixed(2);
    console.log(`  ${screen} streaming / idle: frame p50 ×${frameRatio(50)}, p95 ×${frameRatio(95)}; Event Timing p50 ×${timingRatio(50)}, p95 ×${timingRatio(95)}`);
  }
  console.log(`\n${((Date.now() - started) / 1000).toFixed(0)} s in all`);
}

await main();
