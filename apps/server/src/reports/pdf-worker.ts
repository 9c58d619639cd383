/**
 * The PDF worker thread: draws one report (pdf.ts) and sends its bytes back as they are written. The host sends
 * `start`, then for a period report pages of rooms (`rooms`), each answered with `ready` once drawn, then `end`;
 * the worker answers `chunk`s and finally `done` (or `error`).
 */
import { parentPort } from 'node:worker_threads';
import { documentTitle, newDocument, startReport, type PdfStart, type ReportDocument } from './pdf.ts';
import type { ReportRoom } from './rows.ts';

export type ToWorker = { type: 'start'; start: PdfStart } | { type: 'rooms'; rooms: ReportRoom[] } | { type: 'end' };
export type FromWorker = { type: 'chunk'; bytes: Uint8Array } | { type: 'ready' } | { type: 'done' } | { type: 'error'; message: string };

const port = parentPort;
if (!port) throw new Error('pdf-worker.ts runs as a worker thread');

const send = (message: FromWorker, transfer: ArrayBuffer[] = []) => {
  port.postMessage(message, transfer);
};

let report: ReportDocument | undefined;

port.on('message', (message: ToWorker) => {
  try {
    if (message.type === 'start') {
      const doc = newDocument(message.start, documentTitle(message.start));
      doc.on('data', (chunk: Buffer) => {
        // A copy of its own, so its memory can move to the host without a second copy there.
        const bytes = new Uint8Array(chunk);
        send({ type: 'chunk', bytes }, [bytes.buffer]);
      });
      doc.on('end', () => {
        send({ type: 'done' });
      });
      report = startReport(doc, message.start);
      // After the chunks the page wrote (pdfkit emits them on its stream's next turns).
      setImmediate(() => {
        send({ type: 'ready' });
      });
    } else if (message.type === 'rooms') {
      report?.addRooms(message.rooms);
      setImmediate(() => {
        send({ type: 'ready' });
      });
    } else {
      report?.end();
    }
  } catch (error) {
    send({ type: 'error', message: error instanceof Error ? `${error.message}\n${error.stack ?? ''}` : String(error) });
  }
});
