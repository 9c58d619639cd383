import type { Locks } from '../lib/auth/session-tabs.ts';

/**
 * Web Locks (navigator.locks) in memory, for tabs simulated in one jsdom (which has none): exclusive requests of
 * one name run one after the other, shared ones at once; `query` lists what is held.
 */
export class MemoryLocks implements Locks {
  private readonly chains = new Map<string, Promise<unknown>>();
  private readonly held: string[] = [];

  request(name: string, options: LockOptions, callback: () => Promise<unknown>): Promise<unknown> {
    const run = async () => {
      this.held.push(name);
      try {
        return await callback();
      } finally {
        this.held.splice(this.held.indexOf(name), 1);
      }
    };
    if (options.mode === 'shared') return run();
    const result = (this.chains.get(name) ?? Promise.resolve()).then(run);
    this.chains.set(
      name,
      result.catch(() => undefined),
    );
    return result;
  }

  query(): Promise<LockManagerSnapshot> {
    return Promise.resolve({ held: this.held.map((name) => ({ name, mode: 'exclusive' as const, clientId: 'memory' })) });
  }
}
