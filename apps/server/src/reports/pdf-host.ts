/**
 * Runs a PDF report in a worker thread (pdf-worker.ts) and streams its bytes: drawing thousands of rows and
 * embedding the font costs seconds of CPU that must not stall the server's event loop. The database stays here
 * (PGlite lives on this thread): this side reads a page of rows, hands it to the worker, and reads the next one
 * only when the worker has drawn it and the client has taken the bytes (backpressure end to end).
 *
 * The worker starts from the sources or built, as the server does (lib/typescript-worker.ts). Starting one costs about
 * a second of CPU (loading pdfkit and its font machinery; from the sources, tsx's loader too): a worker that drew a
 * report to its end waits, idle, for the next one for a while instead of ending.
 */
import { Readable } from 'node:stream';
import type { Worker } from 'node:worker_threads';
import { startWorker } from '../lib/typescript-worker.ts';
import type { PdfStart } from './pdf.ts';
import type { FromWorker, ToWorker } from './pdf-worker.ts';
import type { ReportRoom } from './rows.ts';

/** How long a worker that finished a report stays for the next one. */
export const PDF_WORKER_IDLE_MS = 60_000;

/** A worker thread of pdf-worker.ts. */
export const startPdfWorker = (): Worker =>
  startWorker(import.meta.url, './pdf-worker', {
    // A report that outgrows this fails alone instead of taking the server's memory.
    resourceLimits: { maxOldGenerationSizeMb: 512 },
    stdout: false,
    stderr: false,
  });

/** A worker held for one report: `release(true)` when it drew the report to its end and may draw the next. */
export interface WorkerLease {
  worker: Worker;
  release: (reusable: boolean) => Promise<void>;
}

/**
 * At most `size` reports drawn at once; the others wait their turn (each worker holds a font and a page). A worker
 * that drew its report to the end is kept for the next report, at most `idleMs` idle; one that failed, or whose
 * report was left half drawn (its client gone), ends, and the next report starts a new one.
 */
export class WorkerSlots {
  private busy = 0;
  private closed = false;
  private readonly waiting: (() => void)[] = [];
  private readonly idle: { worker: Worker; timer: NodeJS.Timeout }[] = [];

  constructor(
    readonly size: number,
    private readonly start: () => Worker = startPdfWorker,
    private readonly idleMs = PDF_WORKER_IDLE_MS,
  ) {}

  async acquire(): Promise<WorkerLease> {
    if (this.busy >= this.size) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.busy += 1;
    let leased: Worker;
    try {
      leased = this.takeIdle() ?? this.started();
    } catch (error) {
      this.freeSlot();
      throw error;
    }
    let released = false;
    return {
      worker: leased,
      release: async (reusable) => {
        if (released) return;
        released = true;
        this.freeSlot();
        // Never more than `size` kept: a worker starts only when none is idle, so leased and idle are `size` at most.
        if (reusable && !this.closed) this.keep(leased);
        else await leased.terminate();
      },
    };
  }

  /** Ends the idle workers; workers of reports under way end with their reports. */
  async close(): Promise<void> {
    this.closed = true;
    const idle = this.idle.splice(0);
    for (const { timer } of idle) clearTimeout(timer);
    await Promise.all(idle.map(({ worker }) => worker.terminate()));
  }

  private started(): Worker {
    const worker = this.start();
    // A report's errors reach it through its own listeners (inbox below). One of an idle worker ends the worker, which
    // the next report then passes over (takeIdle), instead of an unhandled 'error' event.
    worker.on('error', () => undefined);
    return worker;
  }

  private freeSlot(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.busy -= 1;
  }

  /** An idle worker still running (a worker that has exited has thread id -1), the most recently used first. */
  private takeIdle(): Worker | undefined {
    for (let kept = this.idle.pop(); kept; kept = this.idle.pop()) {
      clearTimeout(kept.timer);
      if (kept.worker.threadId !== -1) {
        kept.worker.ref();
        return kept.worker;
      }
    }
    return undefined;
  }

  private keep(worker: Worker): void {
    // Idle, it holds no process open.
    worker.unref();
    const timer = setTimeout(() => {
      const index = this.idle.findIndex((kept) => kept.worker === worker);
      if (index !== -1) this.idle.splice(index, 1);
      void worker.terminate();
    }, this.idleMs);
    timer.unref();
    this.idle.push({ worker, timer });
  }
}

/** Messages of one worker, for one report, as an async queue; `stop` removes its listeners from the worker. */
function inbox(worker: Worker): { next: () => Promise<FromWorker>; stop: () => void } {
  const queued: FromWorker[] = [];
  let wake: (() => void) | undefined;
  let failure: Error | undefined;
  const notify = () => {
    const resume = wake;
    wake = undefined;
    resume?.();
  };
  const onMessage = (message: FromWorker) => {
    queued.push(message);
    notify();
  };
  const onError = (error: Error) => {
    failure = error;
    notify();
  };
  const onExit = (code: number) => {
    failure ??= new Error(`the PDF worker exited (${code})`);
    notify();
  };
  worker.on('message', onMessage).on('error', onError).on('exit', onExit);
  return {
    next: async () => {
      for (;;) {
        const next = queued.shift();
        if (next) return next;
        if (failure) throw failure;
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
      }
    },
    stop: () => {
      worker.off('message', onMessage).off('error', onError).off('exit', onExit);
    },
  };
}

async function* drawInWorker(slots: WorkerSlots, start: PdfStart, pages: AsyncIterable<ReportRoom[]> | undefined): AsyncGenerator<Uint8Array> {
  const { worker, release } = await slots.acquire();
  const { next, stop } = inbox(worker);
  const post = (message: ToWorker) => {
    worker.postMessage(message);
  };
  const rows = pages?.[Symbol.asyncIterator]();
  // The next page is read while the worker draws this one: at most two pages are held.
  const read = (): Promise<IteratorResult<ReportRoom[]>> => (rows ? rows.next() : Promise.resolve({ done: true, value: undefined }));
  let upcoming = read();
  // A failed read surfaces where the page is awaited, not as an unhandled rejection meanwhile.
  upcoming.catch(() => undefined);
  /** The worker sent `done`: the report is whole and the worker has nothing of it left. */
  let drawn = false;
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
      } else if (message.type === 'done') {
        drawn = true;
        return;
      } else throw new Error(`PDF worker: ${message.message}`);
    }
  } finally {
    stop();
    await rows?.return?.();
    // Half drawn (the client gone, a failed read or worker): the worker ends rather than carry a report's rest.
    await release(drawn);
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
