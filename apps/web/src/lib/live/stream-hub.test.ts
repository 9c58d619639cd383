import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FakeEventStream } from '../../testing/fake-event-stream.ts';
import { StreamHub, type StreamConnect } from './stream-hub.ts';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

/** The times (fake clock, ms from the subscription) of each connection attempt, each answered by `answer`. */
const recordAttempts = (answer: (attempt: number) => Response) => {
  const started = Date.now();
  const at: number[] = [];
  const connect: StreamConnect = () => {
    at.push(Date.now() - started);
    return Promise.resolve(answer(at.length - 1));
  };
  return { at, connect };
};

/** The waits between consecutive attempts. */
const gaps = (at: readonly number[]) => at.slice(1).map((time, index) => time - (at[index] ?? 0));

/** Draws taken in turn, then the last one again. */
const draws = (...values: number[]) => {
  let next = 0;
  return () => values[Math.min(next++, values.length - 1)] ?? 0;
};

const hubOf = (connect: StreamConnect, random: () => number) =>
  new StreamHub<unknown>({ connect, event: 'job_change', parse: () => null, onEvent: () => undefined, initialDelayMs: 1000, maxDelayMs: 30_000, random, lifecycle: new EventTarget() });

describe('the reconnect schedule of a live stream (full jitter, capped)', () => {
  it('waits a draw of the doubling window after each failed attempt, never more than the cap', async () => {
    const { at, connect } = recordAttempts(() => new Response(null, { status: 502 }));
    const random = draws(0.5, 0.25, 0.9, 0.125, 0.5, 0.999, 0.5, 0.75);
    const release = hubOf(connect, random).subscribe([]);
    await vi.advanceTimersByTimeAsync(120_000);
    release();
    // Windows 1, 2, 4, 8, 16, 30 (the cap), 30, 30 s, each drawn from.
    expect(gaps(at).slice(0, 8)).toEqual([500, 500, 3600, 1000, 8000, 29_970, 15_000, 22_500]);
  });

  it('spreads consoles dropped at the same moment (a server restart) over the window', async () => {
    const consoles = Array.from({ length: 200 }, () => {
      const streams: FakeEventStream[] = [];
      const recorded = recordAttempts(() => {
        const stream = new FakeEventStream();
        streams.push(stream);
        return stream.response;
      });
      return { ...recorded, streams, release: hubOf(recorded.connect, Math.random).subscribe([]) };
    });
    await vi.advanceTimersByTimeAsync(0);
    for (const { streams } of consoles) streams[0]?.end();
    await vi.advanceTimersByTimeAsync(1000);
    for (const { release } of consoles) release();
    const retries = consoles.map(({ at }) => gaps(at)[0] ?? Number.NaN);
    // Each came back within the first window (1 s), at a time of its own: some in every tenth of it.
    expect(retries.every((wait) => wait >= 0 && wait <= 1000)).toBe(true);
    expect(new Set(retries.map((wait) => Math.min(9, Math.floor(wait / 100)))).size).toBe(10);
  });

  it('waits at least the Retry-After of a 503 (the server at its stream limit), plus the draw', async () => {
    const refusal = () => new Response(JSON.stringify({ error: 'overloaded', message: 'full' }), { status: 503, headers: { 'Retry-After': '7' } });
    const { at, connect } = recordAttempts((attempt) => (attempt < 2 ? refusal() : new FakeEventStream().response));
    // The smallest draws: what the server asked for is the whole wait.
    const release = hubOf(connect, () => 0).subscribe([]);
    await vi.advanceTimersByTimeAsync(6999);
    expect(at).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(at).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(7000);
    expect(at).toHaveLength(3);
    // Open: no more attempts.
    await vi.advanceTimersByTimeAsync(60_000);
    expect(at).toHaveLength(3);
    release();

    const drawn = recordAttempts((attempt) => (attempt === 0 ? refusal() : new FakeEventStream().response));
    const releaseDrawn = hubOf(drawn.connect, () => 0.5).subscribe([]);
    await vi.advanceTimersByTimeAsync(60_000);
    releaseDrawn();
    // 7 s asked for, and half of the first window on top.
    expect(gaps(drawn.at)).toEqual([7500]);
  });

  it('reads Retry-After as an HTTP date too', async () => {
    const { at, connect } = recordAttempts((attempt) =>
      attempt === 0 ? new Response(null, { status: 503, headers: { 'Retry-After': new Date(Date.now() + 12_000).toUTCString() } }) : new FakeEventStream().response,
    );
    const release = hubOf(connect, () => 0).subscribe([]);
    await vi.advanceTimersByTimeAsync(60_000);
    release();
    // An HTTP date has whole seconds: the wait is at least 11 s, at most 12.
    const [wait] = gaps(at);
    expect(wait).toBeGreaterThan(11_000);
    expect(wait).toBeLessThanOrEqual(12_000);
  });
});
