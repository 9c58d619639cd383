/**
 * Runs a PDF report in a worker thread (pdf-worker.ts) and streams its bytes: drawing thousands of rows and
 * embedding the font costs seconds of CPU that must not stall the server's event loop. The database stays here
 * (PGlite lives on this thread): this side reads a page of rows, hands it to the worker, and reads the next one
 * only when the worker has drawn it and the client has taken the bytes (backpressure end to end).
 *
 * Run from the sources, the worker is TypeScript: Node loads it through tsx's loader, registered in the worker
 * itself (the server runs under `node --import tsx`, but vitest, which transforms its own modules, and other hosts
 * pass no such flag). Built (`npm run build`), this module is dist/reports/pdf-host.js and the worker its
 * JavaScript sibling, started with the server's own flags (`--conditions=uvd-dist`) and no tsx.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, extname, join } from 'node:path';
import { Readable } from 'node:stream';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker, type WorkerOptions } from 'node:worker_threads';
import { z } from 'zod';
import type { PdfStart } from './pdf.ts';
import type { FromWorker, ToWorker } from './pdf-worker.ts';
import type { ReportRoom } from './rows.ts';

/** `.ts` when this module runs from the sources, `.js` when built. */
const OWN_EXTENSION = extname(fileURLToPath(import.meta.url));
const WORKER_ENTRY = new URL(`./pdf-worker${OWN_EXTENSION}`, import.meta.url);

/**
 * tsx's ESM API (`tsx/esm/api`, its `import` condition), found through the package's exports map: CommonJS
 * resolution would give its CommonJS build, whose register() does not load in a worker.
 */
function tsxApi(): string {
  const require = createRequire(import.meta.url);
  const manifestPath = require.resolve('tsx/package.json');
  const manifest: unknown = JSON.parse(readFileSync(manifestPath, 'utf8'));
  const entry = z.object({ exports: z.object({ './esm/api': z.object({ import: z.object({ default: z.string() }) }) }) }).parse(manifest);
  return pathToFileURL(join(dirname(manifestPath), entry.exports['./esm/api'].import.default)).href;
}
// Looked up only for the sources: a built server runs where tsx (a development dependency) may not be installed.
const TSX_API = OWN_EXTENSION === '.ts' ? tsxApi() : undefined;

// An eval'd CommonJS script: registers tsx, then imports the TypeScript entry.
const BOOTSTRAP = `
const { workerData } = require('node:worker_threads');
import(workerData.tsx).then((api) => api.register()).then(() => import(workerData.entry));
`;

/** How the worker starts: through tsx from the sources, directly when built. */
function workerStart(): [string | URL, WorkerOptions] {
  if (TSX_API === undefined) return [WORKER_ENTRY, {}];
  // Its own flags only: an inherited `--import tsx` would register the loader a second time.
  return [BOOTSTRAP, { eval: true, workerData: { tsx: TSX_API, entry: WORKER_ENTRY.href }, execArgv: [] }];
}

/** At most `size` reports drawn at once; the others wait their turn (each worker holds a font and a page). */
export class WorkerSlots {
  private busy = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(readonly size: number) {}

  async acquire(): Promise<() => void> {
    if (this.busy >= this.size) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.busy += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.shift();
      if (next) next();
      else this.busy -= 1;
    };
  }
}

/** Messages of one worker as an async queue. */
function inbox(worker: Worker): () => Promise<FromWorker> {
  const queued: FromWorker[] = [];
  let wake: (() => void) | undefined;
  let failure: Error | undefined;
  const notify = () => {
    const resume = wake;
    wake = undefined;
    resume?.();
  };
  worker.on('message', (message: FromWorker) => {
    queued.push(message);
    notify();
  });
  worker.on('error', (error) => {
    failure = error;
    notify();
  });
  worker.on('exit', (code) => {
    failure ??= new Error(`the PDF worker exited (${code})`);
    notify();
  });
  return async () => {
    for (;;) {
      const next = queued.shift();
      if (next) return next;
      if (failure) throw failure;
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
    }
  };
}

async function* drawInWorker(slots: WorkerSlots, start: PdfStart, pages: AsyncIterable<ReportRoom[]> | undefined): AsyncGenerator<Uint8Array> {
  const release = await slots.acquire();
  const [entry, launch] = workerStart();
  const worker = new Worker(entry, {
    ...launch,
    // A report that outgrows this fails alone instead of taking the server's memory.
    resourceLimits: { maxOldGenerationSizeMb: 512 },
    stdout: false,
    stderr: false,
  });
  const next = inbox(worker);
  const post = (message: ToWorker) => {
    worker.postMessage(message);
  };
  const rows = pages?.[Symbol.asyncIterator]();
  // The next page is read while the worker draws this one: at most two pages are held.
  const read = (): Promise<IteratorResult<ReportRoom[]>> => (rows ? rows.next() : Promise.resolve({ done: true, value: undefined }));
  let upcoming = read();
  // A failed read surfaces where the page is awaited, not as an unhandled rejection meanwhile.
  upcoming.catch(() => undefined);
  try {
    post({ type: 'start', start });
    for (;;) {
      const message = await next();
      if (message.type === 'chunk') yield message.bytes;
      else if (message.type === 'ready') {
        const page = await upcoming;
        if (page.done) post({ type: 'end' });
        else {
          post({ type: 'rooms', rooms: page.value });
          upcoming = read();
          upcoming.catch(() => undefined);
        }
      } else if (message.type === 'done') return;
      else throw new Error(`PDF worker: ${message.message}`);
    }
  } finally {
    release();
    await rows?.return?.();
    await worker.terminate();
  }
}

/**
 * The PDF as a stream. Resolves once the worker has written the document's first bytes, so a report that cannot
 * start (no worker slot, a failing worker) is still an HTTP error, not a cut response.
 */
export async function pdfStream(slots: WorkerSlots, start: PdfStart, pages?: AsyncIterable<ReportRoom[]>): Promise<Readable> {
  const chunks = drawInWorker(slots, start, pages);
  const first = await chunks.next();
  async function* all(): AsyncGenerator<Uint8Array> {
    if (!first.done) yield first.value;
    yield* chunks;
  }
  // A client gone mid-report destroys the stream, which returns the generator: its `finally` frees the worker and slot.
  return Readable.from(all(), { objectMode: false });
}

/** The whole PDF in memory (tests, the bench). */
export async function pdfBytes(slots: WorkerSlots, start: PdfStart, pages?: AsyncIterable<ReportRoom[]>): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const chunk of await pdfStream(slots, start, pages)) parts.push(Buffer.from(chunk as Uint8Array));
  return Buffer.concat(parts);
}
