/**
 * The PDF workers' life: a worker that drew a report to its end draws the next one (starting one costs about a second
 * of CPU); one whose report was left half drawn or failed ends, and the next report gets a new one; idle ones end
 * after their time and when the server closes. Real worker threads drawing real PDFs.
 */
import type { Worker } from 'node:worker_threads';
import { afterAll, describe, expect, it } from 'vitest';
import { pdfBytes, pdfStream, startPdfWorker, WorkerSlots } from './pdf-host.ts';
import type { PdfStart } from './pdf.ts';
import type { ReportRoom } from './rows.ts';

const PERIOD: PdfStart = {
  kind: 'period',
  language: 'en',
  timeZone: 'Europe/Helsinki',
  generatedAt: '2030-03-31T12:00:00.000Z',
  generatedBy: 'tester',
  summary: {
    from_date: '2030-03-01',
    to_date: '2030-03-31',
    scope: 'organization',
    scope_id: null,
    scope_name: 'Hospital',
    jobs: 0,
    total: { rooms_planned: 0, rooms_fully_dosed: 0, rate: null },
    by_building: [],
    by_week: [],
  },
};

/** A whole PDF: its header and, last, its end-of-file marker. */
const whole = (bytes: Buffer): boolean => bytes.subarray(0, 5).toString() === '%PDF-' && bytes.subarray(-6).toString().includes('%%EOF');

/** Slots whose workers are counted. */
function countedSlots(size = 1, idleMs?: number): { slots: WorkerSlots; workers: Worker[] } {
  const workers: Worker[] = [];
  const start = () => {
    const worker = startPdfWorker();
    workers.push(worker);
    return worker;
  };
  return { slots: new WorkerSlots(size, start, idleMs), workers };
}

const ended = (worker: Worker): boolean => worker.threadId === -1;

describe('PDF workers', () => {
  // One server's slots for the first three tests, in order: a worker costs about a second of CPU to start.
  const { slots, workers } = countedSlots();
  afterAll(() => slots.close());

  it('draws one report after another on one worker', async () => {
    expect(whole(await pdfBytes(slots, PERIOD))).toBe(true);
    expect(whole(await pdfBytes(slots, { ...PERIOD, language: 'fi' }))).toBe(true);
    expect(whole(await pdfBytes(slots, PERIOD))).toBe(true);
    expect(workers).toHaveLength(1);
    expect(ended(workers[0] as Worker)).toBe(false);
  });

  it('ends the worker of a report its client left half read, and draws the next on a new one', async () => {
    // Rooms that never run out: the report is under way until its reader goes.
    async function* endless(): AsyncGenerator<ReportRoom[]> {
      for (;;) yield [];
    }
    const stream = await pdfStream(slots, PERIOD, endless());
    for await (const _chunk of stream) break;
    await expect.poll(() => ended(workers[0] as Worker)).toBe(true);
    expect(whole(await pdfBytes(slots, PERIOD))).toBe(true);
    expect(workers).toHaveLength(2);
  });

  it('ends the worker of a report that failed, and draws the next on a new one', async () => {
    async function* failing(): AsyncGenerator<ReportRoom[]> {
      yield [];
      throw new Error('the database went away');
    }
    await expect(pdfBytes(slots, PERIOD, failing())).rejects.toThrow('the database went away');
    await expect.poll(() => ended(workers[1] as Worker)).toBe(true);
    expect(whole(await pdfBytes(slots, PERIOD))).toBe(true);
    expect(workers).toHaveLength(3);
  });

  it('ends an idle worker after its time, and the idle ones when the server closes', async () => {
    const short = countedSlots(1, 200);
    try {
      await pdfBytes(short.slots, PERIOD);
      await expect.poll(() => ended(short.workers[0] as Worker)).toBe(true);
      await pdfBytes(short.slots, PERIOD);
      expect(short.workers).toHaveLength(2);
      await short.slots.close();
      expect(short.workers.every(ended)).toBe(true);
    } finally {
      await short.slots.close();
    }
  });
});
