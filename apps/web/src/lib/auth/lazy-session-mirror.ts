import type { SessionMirror } from './session-mirror.ts';

/**
 * The page's session mirror (auth/session-mirror.ts): its IndexedDB code is loaded with the first write, after a
 * sign-in, not with the first screen. Where there is no IndexedDB (a private window of some browsers) nothing is
 * mirrored, and a notification's button opens the console instead of answering.
 */
export const lazySessionMirror = (): SessionMirror => {
  let mirror: Promise<SessionMirror | null> | null = null;
  const load = () =>
    (mirror ??=
      typeof indexedDB === 'undefined' ? Promise.resolve(null) : import('./session-mirror.ts').then((module) => module.createIndexedDbSessionMirror()));
  return {
    write: async (session) => {
      await (await load())?.write(session);
    },
    clear: async () => {
      await (await load())?.clear();
    },
    read: async () => (await (await load())?.read()) ?? null,
  };
};
