import { describe, expect, it } from 'vitest';
import { nextAttemptAt, retryWait } from './retry.ts';

const schedule = { baseMs: 50, maxWaitMs: 3600_000, giveUpMs: 4000 };
const createdAt = new Date(1_000_000);
const at = (ms: number) => createdAt.getTime() + ms;

describe('the retry schedule of pushes and webhooks', () => {
  it('doubles a jittered wait, within its upper half, up to the longest wait', () => {
    expect(retryWait(1, 100, 10_000, () => 0)).toBe(50);
    expect(retryWait(1, 100, 10_000, () => 1)).toBe(100);
    expect(retryWait(4, 100, 10_000, () => 0)).toBe(400);
    expect(retryWait(30, 100, 10_000, () => 1)).toBe(10_000);
  });

  it('tries once more at the deadline when the next wait would pass it, and gives up only once it has come', () => {
    // After 7 failures by 1.6 s the doubling wait is 3.2 s: past the 4 s deadline, so the last try is at 4 s.
    expect(nextAttemptAt(schedule, { attempts: 7, createdAt }, at(1600), 0, () => 1)?.getTime()).toBe(at(4000));
    expect(nextAttemptAt(schedule, { attempts: 2, createdAt }, at(100), 0, () => 0)?.getTime()).toBe(at(150));
    expect(nextAttemptAt(schedule, { attempts: 8, createdAt }, at(4000), 0, () => 0)).toBeNull();
    expect(nextAttemptAt(schedule, { attempts: 8, createdAt }, at(4100), 0, () => 0)).toBeNull();
  });

  it("honours a receiver's Retry-After longer than the backoff, and gives up when it asks to wait past the deadline", () => {
    expect(nextAttemptAt(schedule, { attempts: 1, createdAt }, at(0), 1000, () => 0)?.getTime()).toBe(at(1000));
    expect(nextAttemptAt(schedule, { attempts: 1, createdAt }, at(1000), 3500, () => 0)).toBeNull();
  });
});
