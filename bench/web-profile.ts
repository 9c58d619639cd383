/**
 * Where a screen's first load spends the main thread: the JavaScript functions with the most self time, mapped
 * through the build's source maps to the console's source (or the package) they come from, averaged over runs.
 * Reads the build bench:web made (`e2e-artifacts/bench-web-dist`; run `npm run bench:web` or `npm run build` into it
 * first). Each run opens the screen from about:blank in a signed-in tab, with the V8 sampling profiler on, until
 * `--ready` shows and half a second after.
 *
 *   npm run bench:web-profile -- [--screen /jobs] [--ready 'tbody tr'] [--runs 5] [--top 40] [--user operator]
 *
 * `(program)` is the browser's own work (parsing, style, layout, paint), `(idle)` the main thread waiting (for
 * the network). A figure to find what to make cheaper, not to compare builds: for that, alternate them in one
 * process (bench/README.md).
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { TraceMap, originalPositionFor } from '@jridgewell/trace-mapping';
import { startConsoleServer } from '../e2e/support/server.ts';
import { launchChromium, signIn, WEB_DIST } from './web-browser.ts';

const { values: args } = parseArgs({
  options: {
    screen: { type: 'string', default: '/jobs' },
    ready: { type: 'string', default: 'tbody tr' },
    runs: { type: 'string', default: '5' },
    top: { type: 'string', default: '40' },
    user: { type: 'string', default: 'operator' },
  },
});
const runs = Math.max(1, Number(args.runs));

/** Source maps of the build's scripts, read once; null where a script has none. */
const maps = new Map<string, TraceMap | null>();
async function mapOf(file: string): Promise<TraceMap | null> {
  if (!maps.has(file)) maps.set(file, await readFile(`${file}.map`, 'utf8').then((text) => new TraceMap(text), () => null));
  return maps.get(file) ?? null;
}

/** A profile node's function as the source names it: `name package/file:line` or `name src/…:line`. */
async function placeOf(frame: { functionName: string; url: string; lineNumber: number; columnNumber: number }): Promise<string> {
  const name = frame.functionName || '(anonymous)';
  const asset = frame.url.split('/assets/')[1];
  if (!asset) return `${name} ${frame.url.split('/').pop() ?? ''}`.trim();
  const map = await mapOf(path.join(WEB_DIST, 'assets', asset));
  if (!map) return `${name} ${asset}`;
  const original = originalPositionFor(map, { line: frame.lineNumber + 1, column: frame.columnNumber });
  const source = (original.source ?? asset).replace(/.*node_modules\//, '').replace(/.*\/apps\/web\/src\//, 'src/');
  return `${original.name ?? name} ${source}:${String(original.line ?? '?')}`;
}

async function main(): Promise<void> {
  const server = await startConsoleServer({ logName: 'bench-web-profile-server.log', demoFleet: false, env: { WEB_DIST } });
  const browser = await launchChromium([server]);
  const selfMs = new Map<string, number>();
  const readyMs: number[] = [];
  try {
    const page = await browser.newPage();
    await page.setViewport({ width: 1280, height: 800 });
    await signIn(page, server.baseUrl, args.user);
    for (let run = 0; run < runs; run++) {
      await page.goto('about:blank');
      const cdp = await page.createCDPSession();
      await cdp.send('Profiler.enable');
      await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
      await cdp.send('Profiler.start');
      const started = performance.now();
      await page.goto(`${server.baseUrl}${args.screen}`);
      await page.waitForSelector(args.ready, { timeout: 15_000 });
      readyMs.push(performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 500));
      const { profile } = await cdp.send('Profiler.stop');
      await cdp.detach();
      const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
      const deltas = profile.timeDeltas ?? [];
      for (const [index, id] of (profile.samples ?? []).entries()) {
        const node = nodes.get(id);
        if (!node) continue;
        const place = await placeOf(node.callFrame);
        selfMs.set(place, (selfMs.get(place) ?? 0) + (deltas[index] ?? 0) / 1000 / runs);
      }
    }
  } finally {
    await browser.close();
    await server.stop();
  }
  const sortedReady = [...readyMs].sort((a, b) => a - b);
  console.log(`${args.screen}: '${args.ready}' shown after ${sortedReady.map((ms) => ms.toFixed(0)).join(', ')} ms (${String(runs)} runs)`);
  console.log('self time per load, ms (mean of the runs):');
  for (const [place, ms] of [...selfMs].sort((a, b) => b[1] - a[1]).slice(0, Number(args.top))) console.log(`${ms.toFixed(1).padStart(8)}  ${place}`);
}

await main();
