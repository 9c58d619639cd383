/**
 * A sliding-window counter per key, in this process's memory (like the token endpoint's limit, @fastify/rate-limit's
 * default store): enough to stop a flood of reset mails from one address or to one account. Several processes
 * behind a balancer each count on their own, so the limit is per process.
 */
export class WindowLimit {
  private readonly hits = new Map<string, number[]>();

  constructor(
    readonly max: number,
    readonly windowMs: number,
  ) {}

  /** Counts a hit of `key` at `now` if under the limit; else how long until the next one is allowed (ms). */
  take(key: string, now = Date.now()): { ok: true } | { ok: false; retryAfterMs: number } {
    const since = now - this.windowMs;
    const recent = (this.hits.get(key) ?? []).filter((at) => at > since);
    if (recent.length >= this.max) {
      this.hits.set(key, recent);
      return { ok: false, retryAfterMs: (recent[0] ?? now) + this.windowMs - now };
    }
    recent.push(now);
    this.hits.set(key, recent);
    if (this.hits.size > 10_000) this.prune(since);
    return { ok: true };
  }

  private prune(since: number) {
    for (const [key, times] of this.hits) if (times.every((at) => at <= since)) this.hits.delete(key);
  }
}
