/**
 * Lighthouse on two builds of the console in one process, run by run in turn: the working tree's web app against
 * the web app at a git revision (default HEAD, i.e. the uncommitted change), each build served by its own server
 * on the demo organization, both audited in one Chromium. One build's score moves by up to 20 between runs on
 * this machine (bench/README.md), with whatever else the machine does; alternating puts both builds under the
 * same conditions, so their medians, and the run-by-run differences, compare.
 *
 *   npm run bench:web-compare -- [--base HEAD] [--screens /jobs,/map] [--runs 6] [--user operator]
 *
 * The base build is `apps/web` (and the root's TypeScript settings) at that revision; the packages it imports
 * (`@uvd/contracts`) and every dependency come from the working tree: a change to the web app compares, a change to
 * a package is in both builds. Prints figures; never fails on them.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { Page } from 'puppeteer-core';
import { ARTIFACTS_DIR, REPO_ROOT } from '../e2e/support/paths.ts';
import { buildWeb, startConsoleServer, type ConsoleServer } from '../e2e/support/server.ts';
import { chooseFirstFloor, launchChromium, printTable, signIn } from './web-browser.ts';
import { medianOf, runLighthouse, type LighthouseFigures } from './web-lighthouse.ts';

const { values: args } = parseArgs({
  options: {
    base: { type: 'string', default: 'HEAD' },
    screens: { type: 'string', default: '/jobs,/map' },
    runs: { type: 'string', default: '6' },
    user: { type: 'string', default: 'operator' },
  },
});
const runs = Math.max(1, Number(args.runs));
const screens = args.screens.split(',').map((screen) => screen.trim()).filter(Boolean);
const REPORT_DIR = path.join(ARTIFACTS_DIR, 'lighthouse-compare');
/** Inside the repository, so the base's imports resolve through the root's node_modules. */
const BASE_TREE = path.join(ARTIFACTS_DIR, 'bench-compare-base');
const BASE_DIST = path.join(ARTIFACTS_DIR, 'bench-compare-base-dist');
const CHANGE_DIST = path.join(ARTIFACTS_DIR, 'bench-compare-change-dist');

/** `apps/web` and the root's TypeScript settings at `revision`, built into BASE_DIST. */
async function buildBase(revision: string): Promise<string> {
  const commit = execFileSync('git', ['rev-parse', '--short', revision], { cwd: REPO_ROOT, encoding: 'utf8' }).trim();
  await rm(BASE_TREE, { recursive: true, force: true });
  await mkdir(BASE_TREE, { recursive: true });
  const archive = spawnSync('git', ['archive', '--format=tar', commit, 'apps/web', 'tsconfig.base.json'], { cwd: REPO_ROOT, maxBuffer: 1 << 30 });
  if (archive.status !== 0) throw new Error(`git archive ${commit}: ${archive.stderr.toString()}`);
  const untar = spawnSync('tar', ['-x', '-C', BASE_TREE], { input: archive.stdout });
  if (untar.status !== 0) throw new Error(`tar: ${untar.stderr.toString()}`);
  const started = Date.now();
  const build = spawnSync(process.execPath, [path.join(REPO_ROOT, 'node_modules/vite/bin/vite.js'), 'build', '--outDir', BASE_DIST, '--emptyOutDir'], {
    cwd: path.join(BASE_TREE, 'apps/web'),
    encoding: 'utf8',
    env: { ...process.env, NODE_ENV: 'production' },
  });
  await rm(BASE_TREE, { recursive: true, force: true });
  if (build.status !== 0) throw new Error(`the web app at ${commit} did not build:\n${build.stdout}\n${build.stderr}`);
  console.log(`web console at ${commit} built into ${path.relative(REPO_ROOT, BASE_DIST)} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return commit;
}

interface Side {
  /** In report file names. */
  key: 'base' | 'change';
  name: string;
  server: ConsoleServer;
  page: Page;
  figures: Map<string, LighthouseFigures[]>;
}

async function main(): Promise<void> {
  const commit = await buildBase(args.base);
  buildWeb(CHANGE_DIST);
  const builds = [
    { key: 'base', name: `base ${commit}`, dist: BASE_DIST },
    { key: 'change', name: 'working tree', dist: CHANGE_DIST },
  ] as const;
  const servers: ConsoleServer[] = [];
  try {
    for (const build of builds) {
      servers.push(await startConsoleServer({ logName: `bench-web-compare-${build.key}.log`, demoFleet: false, env: { WEB_DIST: build.dist } }));
    }
  } catch (error) {
    await Promise.all(servers.map((server) => server.stop()));
    throw error;
  }
  const browser = await launchChromium(servers);
  const sides: Side[] = [];
  try {
    for (const [index, { key, name }] of builds.entries()) {
      const server = servers[index];
      if (!server) throw new Error(`no server for ${name}`);
      const page = await browser.newPage();
      await page.setViewport({ width: 1280, height: 800 });
      await signIn(page, server.baseUrl, args.user);
      if (screens.includes('/map')) await chooseFirstFloor(page, server.baseUrl);
      sides.push({ key, name, server, page, figures: new Map() });
    }
    for (let run = 0; run < runs; run++) {
      for (const screen of screens) {
        // Which build goes first changes every run: neither is always the one after the other's load.
        for (const side of run % 2 === 0 ? sides : [...sides].reverse()) {
          await side.page.bringToFront();
          const figures = await runLighthouse(side.page, `${side.server.baseUrl}${screen}`, REPORT_DIR, `${screen.replace(/^\//, '')}-${side.key}`, 1);
          side.figures.set(screen, [...(side.figures.get(screen) ?? []), figures]);
          console.error(`run ${String(run + 1)} ${screen} ${side.name}: ${String(figures.score)} (FCP ${figures.fcpMs.toFixed(0)}, LCP ${figures.lcpMs.toFixed(0)}, TBT ${figures.tbtMs.toFixed(0)} ms)`);
        }
      }
    }
  } finally {
    await browser.close();
    await Promise.all(servers.map((server) => server.stop()));
  }

  printTable(
    `Lighthouse 12, desktop preset, performance only, signed in as the demo ${args.user}; ${String(runs)} runs per build, alternating`,
    ['screen', 'build', 'score median', 'lowest', 'all runs', 'FCP ms', 'LCP ms', 'TBT ms'],
    screens.flatMap((screen) =>
      sides.map((side) => {
        const list = side.figures.get(screen) ?? [];
        const scores = list.map((figures) => figures.score);
        return [
          screen,
          side.name,
          String(medianOf(scores)),
          String(Math.min(...scores)),
          scores.join(' '),
          medianOf(list.map((figures) => figures.fcpMs)).toFixed(0),
          medianOf(list.map((figures) => figures.lcpMs)).toFixed(0),
          medianOf(list.map((figures) => figures.tbtMs)).toFixed(0),
        ];
      }),
    ),
  );
  console.log(`reports of the last run: ${path.relative(REPO_ROOT, REPORT_DIR)}`);
}

await main();
