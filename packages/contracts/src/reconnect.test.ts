import { describe, expect, it } from 'vitest';
import { reconnectDelayMs, refusedDelayMs, retryAfterMs } from './reconnect.ts';

const backoff = { initialMs: 1000, maxMs: 30_000 };

describe('reconnectDelayMs (full jitter)', () => {
  it('draws from a window that doubles per attempt up to the cap', () => {
    expect([0, 1, 2, 3, 4, 5, 9].map((attempt) => reconnectDelayMs(attempt, backoff, () => 1))).toEqual([1000, 2000, 4000, 8000, 16_000, 30_000, 30_000]);
    expect(reconnectDelayMs(3, backoff, () => 0)).toBe(0);
    expect(reconnectDelayMs(3, backoff, () => 0.25)).toBe(2000);
  });

  it('stays within the window whatever the draw', () => {
    for (let attempt = 0; attempt < 12; attempt++) {
      const delay = reconnectDelayMs(attempt, backoff);
      expect(delay).toBeGreaterThanOrEqual(0);
      expect(delay).toBeLessThanOrEqual(Math.min(30_000, 1000 * 2 ** attempt));
    }
  });
});

describe('refusedDelayMs', () => {
  it('is at least the Retry-After, plus the draw, and cut at the cap', () => {
    expect(refusedDelayMs(5000, 0, backoff, () => 0)).toBe(5000);
    expect(refusedDelayMs(5000, 1, backoff, () => 0.5)).toBe(6000);
    expect(refusedDelayMs(86_400_000, 0, backoff, () => 0)).toBe(300_000);
  });
});

describe('retryAfterMs', () => {
  it('reads Retry-After in seconds or as an HTTP date', () => {
    expect(retryAfterMs('2')).toBe(2000);
    expect(retryAfterMs(null)).toBeNull();
    expect(retryAfterMs(undefined)).toBeNull();
    expect(retryAfterMs('soon')).toBeNull();
    const inFiveSeconds = retryAfterMs(new Date(Date.now() + 5000).toUTCString()) ?? -1;
    expect(inFiveSeconds).toBeGreaterThan(3000);
    expect(inFiveSeconds).toBeLessThanOrEqual(5000);
    expect(retryAfterMs(new Date(Date.now() - 5000).toUTCString())).toBe(0);
  });
});
