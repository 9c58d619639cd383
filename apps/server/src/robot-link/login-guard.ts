/**
 * Limits on the embedded broker's robot logins. A password check is an argon2 hash on libuv's thread pool,
 * the pool the API's own logins, file reads and DNS need: 50 wrong logins in parallel took the API's p50 from
 * 6 ms to 410–681 ms. So failures lock out their source address and the robot name they tried (Keycloak's
 * model: from the Nth consecutive failure on, a wait that doubles up to a maximum), and only a few password
 * checks run at once: the others wait their turn here, in a bounded line, not on the thread pool, and a login
 * that finds the line full, or waits too long, is refused.
 */

export interface LoginLimits {
  /** Password checks of MQTT logins running at once. */
  maxVerifications: number;
  /** Logins waiting for a password check; one more is refused at once. */
  maxWaiting: number;
  /** A login that waited this long for a password check is refused. */
  maxWaitMs: number;
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
  // A whole fleet behind one address reconnecting after a restart (the telemetry bench logs in 50 at a time).
  maxWaiting: 100,
  maxWaitMs: 10_000,
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
  private readonly waiting: { resolve: (end: (() => void) | undefined) => void; timer: NodeJS.Timeout }[] = [];
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
   * A turn for one password check: at once while fewer than the maximum run, else after waiting in line;
   * undefined when the line is full or the wait too long. The returned function ends the turn.
   */
  acquire(): Promise<(() => void) | undefined> {
    if (this.running < this.limits.maxVerifications) {
      this.running++;
      return Promise.resolve(this.turn());
    }
    if (this.waiting.length >= this.limits.maxWaiting) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      const waiter = {
        resolve,
        timer: setTimeout(() => {
          this.waiting.splice(this.waiting.indexOf(waiter), 1);
          resolve(undefined);
        }, this.limits.maxWaitMs).unref(),
      };
      this.waiting.push(waiter);
    });
  }

  private turn(): () => void {
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      const next = this.waiting.shift();
      if (!next) {
        this.running--;
        return;
      }
      clearTimeout(next.timer);
      next.resolve(this.turn());
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
