/**
 * A downloaded PDF read as a person would see it: its first page drawn by pdf.js in Chromium and saved as PNG beside
 * the other artifacts, and its text, so a test can check what the report says. The page is served from a routed
 * origin of its own (no network, no console CSP); pdf.js comes from node_modules.
 */
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { z } from 'zod';
import { ARTIFACTS_DIR, REPO_ROOT } from './paths.ts';

/** Where the tests leave the reports they downloaded and their first pages. */
export const REPORTS_DIR = path.join(ARTIFACTS_DIR, 'reports');

const ORIGIN = 'http://pdf-render.invalid';
const PDFJS_DIR = path.join(REPO_ROOT, 'node_modules/pdfjs-dist');

const RENDER_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>PDF</title></head>
<body style="margin:0;background:#fff">
<canvas id="page"></canvas>
<script type="module">
import * as pdfjs from '/build/pdf.min.mjs';
pdfjs.GlobalWorkerOptions.workerSrc = '/build/pdf.worker.min.mjs';
window.renderPdf = async (base64) => {
  const data = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
  const pdf = await pdfjs.getDocument({ data, standardFontDataUrl: '/standard_fonts/' }).promise;
  const page = await pdf.getPage(1);
  const viewport = page.getViewport({ scale: 1.5 });
  const canvas = document.getElementById('page');
  canvas.width = Math.ceil(viewport.width);
  canvas.height = Math.ceil(viewport.height);
  await page.render({ canvas, canvasContext: canvas.getContext('2d'), viewport }).promise;
  const content = await page.getTextContent();
  return { pages: pdf.numPages, text: content.items.map((item) => ('str' in item ? item.str : '')).join(' ') };
};
window.pdfReady = true;
</script>
</body></html>`;

const Rendered = z.object({ pages: z.number().int().min(1), text: z.string() });
export type RenderedPdf = z.infer<typeof Rendered>;

/** Draws the first page of `pdf` into `${name}-page1.png` in REPORTS_DIR; resolves with its page count and first page's text. */
export async function renderFirstPage(browser: Browser, pdf: Buffer, name: string): Promise<RenderedPdf & { png: string }> {
  await mkdir(REPORTS_DIR, { recursive: true });
  const page = await browser.newPage({ viewport: { width: 1000, height: 1400 } });
  try {
    await page.route(`${ORIGIN}/**`, async (route) => {
      const { pathname } = new URL(route.request().url());
      if (pathname === '/') {
        await route.fulfill({ contentType: 'text/html', body: RENDER_PAGE });
        return;
      }
      const file = path.join(PDFJS_DIR, path.normalize(pathname));
      if (!file.startsWith(PDFJS_DIR)) {
        await route.fulfill({ status: 404 });
        return;
      }
      await route.fulfill({ path: file, contentType: file.endsWith('.mjs') ? 'text/javascript' : undefined });
    });
    await page.goto(`${ORIGIN}/`);
    await page.waitForFunction(() => Reflect.get(window, 'pdfReady') === true);
    const result = Rendered.parse(
      await page.evaluate(async (base64) => {
        const render = Reflect.get(window, 'renderPdf') as (data: string) => Promise<unknown>;
        return render(base64);
      }, pdf.toString('base64')),
    );
    const png = path.join(REPORTS_DIR, `${name}-page1.png`);
    await page.locator('#page').screenshot({ path: png });
    return { ...result, png };
  } finally {
    await page.close();
  }
}
