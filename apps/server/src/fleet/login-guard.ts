/**
 * Limits on the embedded broker's robot logins. A password check is an argon2 hash on libuv's thread pool,
 * the pool the API's own logins, file reads and DNS need: 50 wrong logins in parallel took the API's p50 from
 * 6 ms to 410–681 ms. So failures lock out their source address and the robot name they tried (Keycloak's
 * model: from the Nth consecutive failure on, a wait that doubles up to a maximum), and only a few password
 * checks run at once (one per address); a login beyond that is refused at once, not queued.
 */

export interface LoginLimits {
  /** Password checks of MQTT logins running at once, over all addresses. */
  maxVerifications: number;
  /** Password checks running at once for logins from one source address. */
  maxVerificationsPerAddress: number;
  /** Failed logins in a row (per address, per robot name) before logins are refused for a while. */
  failuresBeforeLockout: number;
  /** The first lockout; each further failure doubles it, up to `lockoutMaxMs`. */
  lockoutBaseMs: number;
  lockoutMaxMs: number;
  /** Failures are forgotten after this long without a new one. */
  failureMemoryMs: number;
}

export const DEFAULT_LOGIN_LIMITS: LoginLimits = {
  maxVerifications: 2,
  maxVerificationsPerAddress: 1,
  failuresBeforeLockout: 5,
  lockoutBaseMs: 2000,
  lockoutMaxMs: 300_000,
  failureMemoryMs: 900_000,
};

interface Failures {
  count: number;
  lastAt: number;
  lockedUntil: number;
}

/** Addresses and names remembered at most; beyond, the oldest go (a spray of addresses must not grow memory). */
const MAX_TRACKED = 50_000;

export class LoginGuard {
  private readonly failures = new Map<string, Failures>();
  private readonly inFlight = new Map<string, number>();
  private running = 0;

  constructor(
    private readonly limits: LoginLimits,
    private readonly now: () => number = Date.now,
  ) {}

  /** How long logins for `username` from `address` are still refused, in ms; 0 when they are not. */
  lockedFor(address: string, username: string): number {
    const now = this.now();
    const wait = (key: string) => Math.max(0, (this.current(key, now)?.lockedUntil ?? 0) - now);
    return Math.max(wait(`address:${address}`), wait(`name:${username}`));
  }

  /**
   * A slot for one password check from `address`, or undefined when the checks running are at their bound.
   * The returned function gives the slot back.
   */
  beginVerification(address: string): (() => void) | undefined {
    const fromAddress = this.inFlight.get(address) ?? 0;
    if (this.running >= this.limits.maxVerifications || fromAddress >= this.limits.maxVerificationsPerAddress) return undefined;
    this.running++;
    this.inFlight.set(address, fromAddress + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.running--;
      const left = (this.inFlight.get(address) ?? 1) - 1;
      if (left > 0) this.inFlight.set(address, left);
      else this.inFlight.delete(address);
    };
  }

  /** A failed login from `address`; `username` only when it names a robot (unknown names are the address's). */
  recordFailure(address: string, username?: string): void {
    this.fail(`address:${address}`);
    if (username !== undefined) this.fail(`name:${username}`);
  }

  /** A robot logged in: its name's failures are forgiven (its address's are not: one known password must not
   * buy an attacker fresh guesses). */
  recordSuccess(username: string): void {
    this.failures.delete(`name:${username}`);
  }

  private current(key: string, now: number): Failures | undefined {
    const entry = this.failures.get(key);
    if (entry && now - entry.lastAt > this.limits.failureMemoryMs && entry.lockedUntil <= now) {
      this.failures.delete(key);
      return undefined;
    }
    return entry;
  }

  private fail(key: string): void {
    const now = this.now();
    const entry = this.current(key, now) ?? { count: 0, lastAt: now, lockedUntil: 0 };
    entry.count++;
    entry.lastAt = now;
    const over = entry.count - this.limits.failuresBeforeLockout;
    if (over >= 0) {
      // 2 ** over grows past any maximum quickly; cap the exponent so the product stays a finite number.
      entry.lockedUntil = now + Math.min(this.limits.lockoutMaxMs, this.limits.lockoutBaseMs * 2 ** Math.min(over, 30));
    }
    // Re-inserted, so the map's order is oldest failure first.
    this.failures.delete(key);
    this.failures.set(key, entry);
    if (this.failures.size > MAX_TRACKED) {
      const oldest = this.failures.keys().next();
      if (!oldest.done) this.failures.delete(oldest.value);
    }
  }
}
