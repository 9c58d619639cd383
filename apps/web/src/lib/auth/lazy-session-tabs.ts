import type { SessionTabs } from './session-tabs.ts';

/**
 * The tabs sharing the session (auth/session-tabs.ts), loaded beside the first screen rather than in it: the
 * initial bundle is at its budget. Where its chunk cannot load, or BroadcastChannel is missing, the tab keeps its
 * own session (null).
 */
export const lazySessionTabs = (): Promise<SessionTabs | null> | null =>
  typeof BroadcastChannel === 'undefined'
    ? null
    : import('./session-tabs.ts').then(
        (module) => module.browserSessionTabs(),
        () => null,
      );
