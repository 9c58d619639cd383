/**
 * Lighthouse (desktop preset, performance only) on a page that is already signed in: the console keeps its
 * session in the tab's session storage, which Lighthouse's storage reset leaves alone (it clears caches, service
 * workers and file systems), so auditing in that same tab audits the signed-in screen.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import lighthouse, { desktopConfig, type Config, type RunnerResult } from 'lighthouse';
import type { Page } from 'puppeteer-core';
import { z } from 'zod';

const CONFIG: Config = {
  ...desktopConfig,
  settings: {
    ...desktopConfig.settings,
    onlyCategories: ['performance'],
    // The console's live streams are fetch requests that never end. Lighthouse counts them as network activity
    // (it exempts only EventSource and WebSocket), so it never sees the network quiet and waits until this
    // limit (45 s by default); the screens paint within 2 s, so 10 s loses nothing and saves half a minute a run.
    maxWaitForLoad: 10_000,
  },
};

/** Runs that fail to record (not slow ones) are run again up to this many times per screen. */
const MAX_RETRIES = 3;

const NumericAudit = z.object({ numericValue: z.number() });
const NetworkRequests = z.object({
  details: z.object({ items: z.array(z.object({ url: z.string(), resourceType: z.string().optional() })) }),
});

export interface LighthouseFigures {
  /** 0-100, of the median run. */
  score: number;
  /** Every run's score, in run order. */
  scores: number[];
  fcpMs: number;
  lcpMs: number;
  tbtMs: number;
  /** Same-origin JavaScript and CSS the page fetched (URL paths). */
  assets: string[];
  warnings: string[];
}

const scoreOf = (result: RunnerResult) => Math.round((result.lhr.categories.performance?.score ?? 0) * 100);
const metricOf = (result: RunnerResult, id: string) => NumericAudit.parse(result.lhr.audits[id]).numericValue;

export const medianOf = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] ?? 0) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
};

/**
 * Lighthouse's own choice among several runs (lighthouse/core/lib/median-run.js, whose types do not resolve
 * here): the run nearest the median first contentful paint and median time to interactive, ties to the
 * quicker interactive.
 */
function medianRun(results: RunnerResult[]): RunnerResult | undefined {
  const fcp = (result: RunnerResult) => metricOf(result, 'first-contentful-paint');
  const interactive = (result: RunnerResult) => metricOf(result, 'interactive');
  const medianFcp = medianOf(results.map(fcp));
  const medianInteractive = medianOf(results.map(interactive));
  const distance = (result: RunnerResult) => (medianFcp - fcp(result)) ** 2 + (medianInteractive - interactive(result)) ** 2;
  return [...results].sort((a, b) => distance(a) - distance(b) || interactive(a) - interactive(b))[0];
}

/**
 * Audits `url` in `page` `runs` times and keeps the median run, whose JSON and HTML reports go to
 * `reportDir/{name}.report.json|html`.
 */
export async function runLighthouse(page: Page, url: string, reportDir: string, name: string, runs: number): Promise<LighthouseFigures> {
  const results: RunnerResult[] = [];
  const retried: string[] = [];
  while (results.length < runs) {
    const result = await lighthouse(url, { output: ['json', 'html'], logLevel: 'error' }, CONFIG, page);
    if (!result) throw new Error(`Lighthouse gave no result for ${url}`);
    const failure = result.lhr.runtimeError;
    if (!failure) {
      results.push(result);
      continue;
    }
    // A run whose trace Chromium failed to record (NO_NAVSTART, seen once in ten /map runs) says nothing of the
    // page: it is run again, a few times at most, and named among the warnings.
    if (retried.length >= MAX_RETRIES) throw new Error(`Lighthouse: ${failure.code} ${failure.message}`);
    retried.push(failure.code);
  }
  const chosen = medianRun(results);
  if (!chosen) throw new Error('no Lighthouse run');
  const { lhr } = chosen;

  await mkdir(reportDir, { recursive: true });
  const [json, html] = Array.isArray(chosen.report) ? chosen.report : [chosen.report];
  if (json) await writeFile(path.join(reportDir, `${name}.report.json`), json);
  if (html) await writeFile(path.join(reportDir, `${name}.report.html`), html);

  const origin = new URL(url).origin;
  const assets = NetworkRequests.parse(lhr.audits['network-requests'])
    .details.items.filter((item) => item.resourceType === 'Script' || item.resourceType === 'Stylesheet')
    .map((item) => new URL(item.url))
    .filter((asset) => asset.origin === origin)
    .map((asset) => asset.pathname);
  return {
    score: scoreOf(chosen),
    scores: results.map(scoreOf),
    fcpMs: metricOf(chosen, 'first-contentful-paint'),
    lcpMs: metricOf(chosen, 'largest-contentful-paint'),
    tbtMs: metricOf(chosen, 'total-blocking-time'),
    assets,
    warnings: [...lhr.runWarnings, ...retried.map((code) => `a run failed (${code}) and was run again`)],
  };
}
