import { describe, expect, it } from 'vitest';
import { LoginGuard, type LoginLimits } from './login-guard.ts';

const limits: LoginLimits = {
  maxVerifications: 2,
  maxWaiting: 10,
  maxWaitMs: 10_000,
  failuresBeforeLockout: 3,
  lockoutBaseMs: 1000,
  lockoutMaxMs: 5000,
  failureMemoryMs: 60_000,
};

function guardAt(start = 1_000_000) {
  const clock = { now: start };
  return { guard: new LoginGuard(limits, () => clock.now), clock };
}

describe('LoginGuard', () => {
  it('locks an address out from the Nth failure on, for a wait that doubles up to the maximum', () => {
    const { guard, clock } = guardAt();
    guard.recordFailure('10.0.0.1');
    guard.recordFailure('10.0.0.1');
    expect(guard.lockedFor('10.0.0.1', 'uvd/1')).toBe(0);
    guard.recordFailure('10.0.0.1');
    expect(guard.lockedFor('10.0.0.1', 'uvd/1')).toBe(1000);
    expect(guard.lockedFor('10.0.0.2', 'uvd/1')).toBe(0);
    clock.now += 1000;
    guard.recordFailure('10.0.0.1');
    expect(guard.lockedFor('10.0.0.1', 'uvd/2')).toBe(2000);
    for (let n = 0; n < 10; n++) guard.recordFailure('10.0.0.1');
    expect(guard.lockedFor('10.0.0.1', 'uvd/2')).toBe(5000);
  });

  it('locks a robot name whatever the address, and forgives it after a success', () => {
    const { guard } = guardAt();
    for (let n = 1; n <= 3; n++) guard.recordFailure(`10.0.1.${n}`, 'uvd/7');
    expect(guard.lockedFor('10.0.2.1', 'uvd/7')).toBe(1000);
    expect(guard.lockedFor('10.0.2.1', 'uvd/8')).toBe(0);
    guard.recordSuccess('uvd/7');
    expect(guard.lockedFor('10.0.2.1', 'uvd/7')).toBe(0);
  });

  it('forgets failures after a quiet while', () => {
    const { guard, clock } = guardAt();
    guard.recordFailure('10.0.0.1');
    guard.recordFailure('10.0.0.1');
    clock.now += 60_001;
    guard.recordFailure('10.0.0.1');
    expect(guard.lockedFor('10.0.0.1', 'uvd/1')).toBe(0);
  });

  it('runs a bounded number of password checks, lines up a bounded number more, and refuses the rest', async () => {
    const guard = new LoginGuard({ ...limits, maxVerifications: 2, maxWaiting: 2, maxWaitMs: 60_000 });
    const first = await guard.acquire();
    const second = await guard.acquire();
    expect(first).toBeDefined();
    expect(second).toBeDefined();
    const third = guard.acquire();
    const fourth = guard.acquire();
    expect(await guard.acquire()).toBeUndefined();
    first?.();
    first?.();
    const thirdTurn = await third;
    expect(thirdTurn).toBeDefined();
    second?.();
    expect(await fourth).toBeDefined();
  });

  it('refuses a login that waited too long', async () => {
    const guard = new LoginGuard({ ...limits, maxVerifications: 1, maxWaiting: 5, maxWaitMs: 20 });
    const first = await guard.acquire();
    expect(await guard.acquire()).toBeUndefined();
    first?.();
    expect(await guard.acquire()).toBeDefined();
  });
});
