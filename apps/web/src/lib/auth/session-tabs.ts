import type { SessionTokens, TokenStore } from '../storage.ts';

/**
 * One session for every console tab of this browser, kept within behaviour §3: the session values (`refresh_token`,
 * `access_token`, `realm`) stay in each tab's session storage, never in local storage or IndexedDB (the service
 * worker's mirror, session-mirror.ts, holds the access token only). A tab opened without them asks the open tabs
 * over a BroadcastChannel and stores the answer in its own session storage; every new pair (a refresh, a sign-in)
 * is announced with the refresh token it replaces, and tabs holding that one take it; a logout or a refused
 * refresh ends the session in the tabs that share it. The session thus lasts as long as one tab keeps it, as
 * session storage does.
 *
 * Refreshes are one at a time across tabs (Web Locks). The lock says nothing of the messages sent meanwhile, so a
 * tab that gets it first sends itself a message through the channel and waits for it: every pair announced
 * before (by the tab that held the lock) has then arrived, and the tab re-reads its tokens. So two tabs never
 * spend the same refresh token. Without Web Locks tabs refresh on their own; two that spend one
 * token within seconds get the same pair from the identity provider's grace window (REFRESH_TOKEN_GRACE_SECONDS).
 * Without BroadcastChannel each tab keeps its own session, as before.
 */
export type TabMessage =
  | { type: 'ask' }
  /** `previous`: the refresh token this pair replaces; null for a session shared as it is (a sign-in, an answer). */
  | { type: 'session'; session: SessionTokens; previous: string | null }
  | { type: 'ended'; refreshToken: string };

/** What a tab's auth client lets the other tabs see and do. */
export interface TabHost {
  tokens: TokenStore;
  /** The tab's tokens while it is signed in with them: what a new tab is answered. */
  signedIn(): SessionTokens | null;
  /** Another tab refreshed this tab's session; the new pair is stored already. */
  rotated(): void;
  /** Another tab's sign-out or refused refresh ended this tab's session. */
  ended(): void;
}

export interface SessionTabs {
  /** Answers new tabs, and follows the other tabs' refreshes and sign-outs of this tab's session. */
  connect(host: TabHost): void;
  /** Runs `run` while no other tab runs one. */
  exclusive<T>(run: () => Promise<T>): Promise<T>;
  /** The session of another open tab, or null when none answers. */
  ask(): Promise<SessionTokens | null>;
  post(message: TabMessage): void;
  /** Marks this tab as holding the session (until `release`), so that new tabs know to ask. */
  hold(): void;
  release(): void;
  close(): void;
}

const CHANNEL = 'uvd-session';
const REFRESH_LOCK = 'uvd-session-refresh';
const HOLDER_LOCK = 'uvd-session-holder';
/** A message to itself that does not come back this soon is not waited for (the grace window covers that). */
const FLUSH_MS = 500;
/** How long a new tab waits for an open tab that holds the session to answer (it answers within milliseconds). */
const ASK_MS = 1000;

const isTabMessage = (data: unknown): data is TabMessage =>
  typeof data === 'object' && data !== null && 'type' in data && (data.type === 'ask' || data.type === 'session' || data.type === 'ended');

/** What is used of navigator.locks. */
export interface Locks {
  request(name: string, options: LockOptions, callback: () => Promise<unknown>): Promise<unknown>;
  query(): Promise<LockManagerSnapshot>;
}

export const createSessionTabs = (name: string, locks?: Locks): SessionTabs => {
  const channel = new BroadcastChannel(name);
  // A second end of the channel, whose messages reach this tab's first one after everything sent before them.
  const echo = new BroadcastChannel(name);
  let holding: (() => void) | null = null;
  const flush = () =>
    new Promise<void>((resolve) => {
      const id = String(Math.random());
      const done = () => {
        clearTimeout(timer);
        channel.removeEventListener('message', onMessage);
        resolve();
      };
      const onMessage = ({ data }: MessageEvent) => {
        if (data === id) done();
      };
      const timer = setTimeout(done, FLUSH_MS);
      channel.addEventListener('message', onMessage);
      echo.postMessage(id);
    });
  return {
    exclusive: (run) =>
      locks
        ? new Promise((resolve, reject) => {
            // The lock is held until `run` settles.
            void locks.request(REFRESH_LOCK, {}, () => flush().then(run).then(resolve, reject));
          })
        : run(),
    async ask() {
      // Only when a tab holds the session: a first visit signs in without waiting.
      const held = locks ? (await locks.query()).held ?? [] : [];
      if (!held.some((lock) => lock.name === HOLDER_LOCK)) return null;
      return new Promise((resolve) => {
        const done = (session: SessionTokens | null) => {
          clearTimeout(timer);
          channel.removeEventListener('message', onMessage);
          resolve(session);
        };
        const onMessage = ({ data }: MessageEvent) => {
          if (isTabMessage(data) && data.type === 'session') done(data.session);
        };
        const timer = setTimeout(() => {
          done(null);
        }, ASK_MS);
        channel.addEventListener('message', onMessage);
        channel.postMessage({ type: 'ask' } satisfies TabMessage);
      });
    },
    post: (message) => {
      channel.postMessage(message);
    },
    hold() {
      if (holding || !locks) return;
      const released = new Promise<void>((resolve) => (holding = resolve));
      void locks.request(HOLDER_LOCK, { mode: 'shared' }, () => released);
    },
    release() {
      holding?.();
      holding = null;
    },
    connect(host) {
      channel.addEventListener('message', ({ data }: MessageEvent) => {
        if (!isTabMessage(data)) return;
        const current = host.tokens.read();
        if (data.type === 'ask') {
          const session = host.signedIn();
          if (session) channel.postMessage({ type: 'session', session, previous: null } satisfies TabMessage);
        } else if (data.type === 'ended') {
          if (current?.refreshToken === data.refreshToken) host.ended();
        } else if (current && current.refreshToken === data.previous) {
          host.tokens.write(data.session);
          host.rotated();
        }
      });
    },
    close() {
      channel.close();
      echo.close();
    },
  };
};

/** The browser's tabs of this origin; null where BroadcastChannel is missing (each tab keeps its own session). */
export const browserSessionTabs = (): SessionTabs | null =>
  typeof BroadcastChannel === 'undefined' ? null : createSessionTabs(CHANNEL, typeof navigator.locks === 'undefined' ? undefined : navigator.locks);
