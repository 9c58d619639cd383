import { parseSseFrames } from '@uvd/contracts';
import type { SseFrame } from '@uvd/contracts';

/**
 * Reads a `text/event-stream` body frame by frame until it ends or `signal` aborts. EventSource cannot send the
 * bearer header (behaviour §7 "auth header"), so streams are opened with fetch and read here.
 */
export const readSseStream = async (
  body: ReadableStream<Uint8Array>,
  signal: AbortSignal,
  onFrame: (frame: SseFrame) => void,
): Promise<void> => {
  const reader = body.getReader();
  const cancel = () => {
    void reader.cancel().catch(() => undefined);
  };
  signal.addEventListener('abort', cancel, { once: true });
  const decoder = new TextDecoder();
  let pending = '';
  // A function, so the check after each await reads the live flag.
  const stopped = () => signal.aborted;
  try {
    while (!stopped()) {
      const { done, value } = await reader.read();
      if (done) break;
      pending += decoder.decode(value, { stream: true });
      const { frames, rest } = parseSseFrames(pending);
      pending = rest;
      for (const frame of frames) {
        if (stopped()) return;
        onFrame(frame);
      }
    }
  } finally {
    signal.removeEventListener('abort', cancel);
    reader.releaseLock();
  }
};
