/**
 * Runs a PDF report in a worker thread (pdf-worker.ts) and streams its bytes: drawing thousands of rows and
 * embedding the font costs seconds of CPU that must not stall the server's event loop. The database stays here
 * (PGlite lives on this thread): this side reads a page of rows, hands it to the worker, and reads the next one
 * only when the worker has drawn it and the client has taken the bytes (backpressure end to end).
 *
 * The worker starts from the sources or built, as the server does (lib/typescript-worker.ts).
 */
import { Readable } from 'node:stream';
import type { Worker } from 'node:worker_threads';
import { startWorker } from '../lib/typescript-worker.ts';
import type { PdfStart } from './pdf.ts';
import type { FromWorker, ToWorker } from './pdf-worker.ts';
import type { ReportRoom } from './rows.ts';

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
  const worker = startWorker(import.meta.url, './pdf-worker', {
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
