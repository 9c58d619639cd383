import { describe, expect, it } from 'vitest';
import { LoginGuard, type LoginLimits } from './login-guard.ts';

const limits: LoginLimits = {
  maxVerifications: 2,
  maxVerificationsPerAddress: 1,
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

  it('bounds password checks in flight, overall and per address', () => {
    const { guard } = guardAt();
    const first = guard.beginVerification('10.0.0.1');
    expect(first).toBeDefined();
    expect(guard.beginVerification('10.0.0.1')).toBeUndefined();
    const second = guard.beginVerification('10.0.0.2');
    expect(second).toBeDefined();
    expect(guard.beginVerification('10.0.0.3')).toBeUndefined();
    first?.();
    first?.();
    expect(guard.beginVerification('10.0.0.3')).toBeDefined();
    expect(guard.beginVerification('10.0.0.1')).toBeUndefined();
  });
});
